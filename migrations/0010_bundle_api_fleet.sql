-- Issue 11: a bundle API and a Bundles page whose cost does not grow with
-- the bundle, and a fleet table runtime tokens cannot flood or overwrite.
--
-- 1. bundles is rebuilt with the large columns (signed, payload) last. A
--    SQLite row stores its columns in declaration order and spills what does
--    not fit in the page into a chain of overflow pages; a column declared
--    after a 5 MB payload can only be reached by walking that chain. With the
--    summary columns first, history listings and the ETag never touch it.
-- 2. runtime_instances is keyed by (token_id, instance_id): an instance row
--    belongs to the token that created it, and another token sending the
--    same instance id gets a row of its own instead of overwriting it. It
--    records the runtime's last refusal (X-Toolgate-Refused).
-- 3. runtime_tokens counts the instance rows evicted to keep a token under
--    its bound, so the Runtimes page can say that it happened.
-- 4. publish_generation is bumped by triggers on every table the next
--    bundle is computed from, so the Bundles page can cache its preview and
--    know, with one cheap read, when it is stale, whichever process wrote.

-- +goose Up
DROP TRIGGER bundles_immutable;
ALTER TABLE bundles RENAME TO bundles_old;
CREATE TABLE bundles (
    version      INTEGER PRIMARY KEY,
    etag         TEXT    NOT NULL UNIQUE,
    key_id       TEXT    NOT NULL,
    tool_count   INTEGER NOT NULL,
    issued_at    TEXT    NOT NULL,
    expires_at   TEXT    NOT NULL,
    published_by TEXT    NOT NULL,
    note         TEXT    NOT NULL DEFAULT '',
    rollback_of  INTEGER REFERENCES bundles (version),
    signed       TEXT    NOT NULL,
    payload      BLOB    NOT NULL
);
INSERT INTO bundles (version, etag, key_id, tool_count, issued_at, expires_at, published_by, note, rollback_of, signed, payload)
    SELECT version, etag, key_id, tool_count, issued_at, expires_at, published_by, note, rollback_of, signed, payload
    FROM bundles_old ORDER BY version;
DROP TABLE bundles_old;

-- +goose StatementBegin
CREATE TRIGGER bundles_immutable BEFORE UPDATE ON bundles
BEGIN
    SELECT RAISE(ABORT, 'published bundles are immutable');
END;
-- +goose StatementEnd

CREATE TABLE runtime_instances_new (
    token_id     INTEGER NOT NULL REFERENCES runtime_tokens (id),
    instance_id  TEXT    NOT NULL,
    name         TEXT    NOT NULL,
    version      INTEGER NOT NULL DEFAULT 0, -- the bundle version it says it runs
    remote_addr  TEXT    NOT NULL DEFAULT '',
    refused      TEXT    NOT NULL DEFAULT '', -- its last refusal reason; '' when none
    first_seen   TEXT    NOT NULL,
    last_seen    TEXT    NOT NULL,
    PRIMARY KEY (token_id, instance_id)
);
INSERT INTO runtime_instances_new (token_id, instance_id, name, version, remote_addr, first_seen, last_seen)
    SELECT token_id, instance_id, name, version, remote_addr, first_seen, last_seen FROM runtime_instances;
DROP TABLE runtime_instances;
ALTER TABLE runtime_instances_new RENAME TO runtime_instances;
CREATE INDEX runtime_instances_last_seen ON runtime_instances (last_seen);
CREATE INDEX runtime_instances_token_last_seen ON runtime_instances (token_id, last_seen);

ALTER TABLE runtime_tokens ADD COLUMN instances_evicted INTEGER NOT NULL DEFAULT 0;
ALTER TABLE runtime_tokens ADD COLUMN last_evicted_at TEXT;

CREATE TABLE publish_generation (
    id INTEGER PRIMARY KEY CHECK (id = 1),
    n  INTEGER NOT NULL
);
INSERT INTO publish_generation (id, n) VALUES (1, 1);

-- +goose StatementBegin
CREATE TRIGGER publish_gen_sources_i AFTER INSERT ON sources BEGIN UPDATE publish_generation SET n = n + 1; END;
-- +goose StatementEnd
-- +goose StatementBegin
CREATE TRIGGER publish_gen_sources_u AFTER UPDATE ON sources BEGIN UPDATE publish_generation SET n = n + 1; END;
-- +goose StatementEnd
-- +goose StatementBegin
CREATE TRIGGER publish_gen_sources_d AFTER DELETE ON sources BEGIN UPDATE publish_generation SET n = n + 1; END;
-- +goose StatementEnd
-- +goose StatementBegin
CREATE TRIGGER publish_gen_tools_i AFTER INSERT ON tools BEGIN UPDATE publish_generation SET n = n + 1; END;
-- +goose StatementEnd
-- +goose StatementBegin
CREATE TRIGGER publish_gen_tools_u AFTER UPDATE ON tools BEGIN UPDATE publish_generation SET n = n + 1; END;
-- +goose StatementEnd
-- +goose StatementBegin
CREATE TRIGGER publish_gen_tools_d AFTER DELETE ON tools BEGIN UPDATE publish_generation SET n = n + 1; END;
-- +goose StatementEnd
-- +goose StatementBegin
CREATE TRIGGER publish_gen_policies_i AFTER INSERT ON tool_policies BEGIN UPDATE publish_generation SET n = n + 1; END;
-- +goose StatementEnd
-- +goose StatementBegin
CREATE TRIGGER publish_gen_policies_u AFTER UPDATE ON tool_policies BEGIN UPDATE publish_generation SET n = n + 1; END;
-- +goose StatementEnd
-- +goose StatementBegin
CREATE TRIGGER publish_gen_policies_d AFTER DELETE ON tool_policies BEGIN UPDATE publish_generation SET n = n + 1; END;
-- +goose StatementEnd
-- +goose StatementBegin
CREATE TRIGGER publish_gen_requests_i AFTER INSERT ON change_requests BEGIN UPDATE publish_generation SET n = n + 1; END;
-- +goose StatementEnd
-- +goose StatementBegin
CREATE TRIGGER publish_gen_requests_u AFTER UPDATE ON change_requests BEGIN UPDATE publish_generation SET n = n + 1; END;
-- +goose StatementEnd
-- +goose StatementBegin
CREATE TRIGGER publish_gen_requests_d AFTER DELETE ON change_requests BEGIN UPDATE publish_generation SET n = n + 1; END;
-- +goose StatementEnd
-- +goose StatementBegin
CREATE TRIGGER publish_gen_settings_i AFTER INSERT ON settings BEGIN UPDATE publish_generation SET n = n + 1; END;
-- +goose StatementEnd
-- +goose StatementBegin
CREATE TRIGGER publish_gen_settings_u AFTER UPDATE ON settings BEGIN UPDATE publish_generation SET n = n + 1; END;
-- +goose StatementEnd
-- +goose StatementBegin
CREATE TRIGGER publish_gen_settings_d AFTER DELETE ON settings BEGIN UPDATE publish_generation SET n = n + 1; END;
-- +goose StatementEnd
-- +goose StatementBegin
CREATE TRIGGER publish_gen_bundles_i AFTER INSERT ON bundles BEGIN UPDATE publish_generation SET n = n + 1; END;
-- +goose StatementEnd
-- Approvals carry the approver's email.
-- +goose StatementBegin
CREATE TRIGGER publish_gen_users_email AFTER UPDATE OF email ON users BEGIN UPDATE publish_generation SET n = n + 1; END;
-- +goose StatementEnd
-- Signing keys live in files; their changes reach the database only as audit entries.
-- +goose StatementBegin
CREATE TRIGGER publish_gen_keys AFTER INSERT ON audit_log WHEN NEW.action LIKE 'key.%'
BEGIN UPDATE publish_generation SET n = n + 1; END;
-- +goose StatementEnd

-- +goose Down
DROP TRIGGER publish_gen_keys;
DROP TRIGGER publish_gen_users_email;
DROP TRIGGER publish_gen_bundles_i;
DROP TRIGGER publish_gen_settings_d;
DROP TRIGGER publish_gen_settings_u;
DROP TRIGGER publish_gen_settings_i;
DROP TRIGGER publish_gen_requests_d;
DROP TRIGGER publish_gen_requests_u;
DROP TRIGGER publish_gen_requests_i;
DROP TRIGGER publish_gen_policies_d;
DROP TRIGGER publish_gen_policies_u;
DROP TRIGGER publish_gen_policies_i;
DROP TRIGGER publish_gen_tools_d;
DROP TRIGGER publish_gen_tools_u;
DROP TRIGGER publish_gen_tools_i;
DROP TRIGGER publish_gen_sources_d;
DROP TRIGGER publish_gen_sources_u;
DROP TRIGGER publish_gen_sources_i;
DROP TABLE publish_generation;
ALTER TABLE runtime_tokens DROP COLUMN last_evicted_at;
ALTER TABLE runtime_tokens DROP COLUMN instances_evicted;

-- Back to one row per instance id: the most recently seen one wins.
CREATE TABLE runtime_instances_old (
    instance_id  TEXT    PRIMARY KEY,
    name         TEXT    NOT NULL,
    token_id     INTEGER NOT NULL REFERENCES runtime_tokens (id),
    version      INTEGER NOT NULL DEFAULT 0,
    remote_addr  TEXT    NOT NULL DEFAULT '',
    first_seen   TEXT    NOT NULL,
    last_seen    TEXT    NOT NULL
);
INSERT OR IGNORE INTO runtime_instances_old (instance_id, name, token_id, version, remote_addr, first_seen, last_seen)
    SELECT instance_id, name, token_id, version, remote_addr, first_seen, last_seen FROM runtime_instances
    ORDER BY last_seen DESC;
DROP TABLE runtime_instances;
ALTER TABLE runtime_instances_old RENAME TO runtime_instances;
