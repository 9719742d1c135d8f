-- Call records: one row per tools/call decision a runtime reported
-- (internal/callrecord), kept for --call-records-retention. id is the
-- runtime's random record id, so a batch sent twice is stored once; the
-- arguments are never stored, only their digest. Both engines take this
-- file as it is (no autoincrement id, TEXT timestamps).

-- +goose Up
CREATE TABLE call_records (
    id                 TEXT    PRIMARY KEY,
    token_id           BIGINT  NOT NULL, -- the runtime token that reported it
    tool               TEXT    NOT NULL,
    definition_digest  TEXT    NOT NULL DEFAULT '',
    arguments_digest   TEXT    NOT NULL,
    principal_kind     TEXT    NOT NULL,
    principal_subject  TEXT    NOT NULL DEFAULT '',
    principal_client   TEXT    NOT NULL DEFAULT '',
    decision           TEXT    NOT NULL,
    class              TEXT    NOT NULL,
    status             INTEGER NOT NULL DEFAULT 0,
    attempts           INTEGER NOT NULL DEFAULT 0,
    called_at          TEXT    NOT NULL,
    duration_ms        BIGINT  NOT NULL DEFAULT 0,
    received_at        TEXT    NOT NULL
);
CREATE INDEX call_records_tool ON call_records (tool, called_at);
CREATE INDEX call_records_principal ON call_records (principal_kind, principal_subject, called_at);
CREATE INDEX call_records_called_at ON call_records (called_at);

-- +goose Down
DROP TABLE call_records;
