-- Call requests (R16): one row per call a runtime asked a person about
-- (internal/callgate), with its decision and, once approved, the grant's
-- nonce and validity. id is random; the arguments are stored masked
-- (secrets replaced by the runtime), never in clear. A grant is spent
-- once: consumed_at is set by one UPDATE … WHERE state = 'approved' AND
-- consumed_at IS NULL. Both engines take this file as it is (no
-- autoincrement id, TEXT timestamps).

-- +goose Up
CREATE TABLE call_requests (
    id                TEXT    PRIMARY KEY,
    tool              TEXT    NOT NULL,
    definition_digest TEXT    NOT NULL,
    arguments_digest  TEXT    NOT NULL,
    arguments         TEXT    NOT NULL, -- masked JSON object
    mode              TEXT    NOT NULL CHECK (mode IN ('confirm', 'approve')),
    reason            TEXT    NOT NULL DEFAULT '',
    risk_class        TEXT    NOT NULL DEFAULT '',
    principal_kind    TEXT    NOT NULL,
    principal_subject TEXT    NOT NULL DEFAULT '',
    principal_client  TEXT    NOT NULL DEFAULT '',
    principal_groups  TEXT    NOT NULL DEFAULT '[]', -- JSON array
    bundle_version    BIGINT  NOT NULL,
    token_id          BIGINT  NOT NULL, -- the runtime token that filed it
    instance          TEXT    NOT NULL DEFAULT '',
    state             TEXT    NOT NULL CHECK (state IN ('pending', 'approved', 'denied', 'expired', 'consumed')),
    created_at        TEXT    NOT NULL,
    expires_at        TEXT    NOT NULL, -- a pending request expires then; a denied one is answered until then
    decided_at        TEXT,
    decided_by        TEXT    NOT NULL DEFAULT '',
    comment           TEXT    NOT NULL DEFAULT '',
    grant_nonce       TEXT    UNIQUE,
    grant_not_after   TEXT,
    grant_jws         TEXT    NOT NULL DEFAULT '',
    consumed_at       TEXT,
    consumed_by       TEXT    NOT NULL DEFAULT ''
);
CREATE INDEX call_requests_identity ON call_requests (principal_kind, principal_subject, tool, arguments_digest);
CREATE INDEX call_requests_state ON call_requests (state, created_at);

-- +goose Down
DROP TABLE call_requests;
