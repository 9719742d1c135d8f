-- Published bundles (immutable), runtime tokens and the runtimes seen
-- fetching bundles (the fleet view). Signing keys live in the data
-- directory (internal/bundle.KeyDir); their changes are audited.

-- +goose Up

-- signed is the JWS exactly as runtimes receive it; payload the canonical
-- JSON inside it; etag the strong ETag (a hash of signed). rollback_of names
-- the version whose content this one republished.
CREATE TABLE bundles (
    version      INTEGER PRIMARY KEY,
    payload      BLOB    NOT NULL,
    signed       TEXT    NOT NULL,
    etag         TEXT    NOT NULL UNIQUE,
    key_id       TEXT    NOT NULL,
    tool_count   INTEGER NOT NULL,
    issued_at    TEXT    NOT NULL,
    expires_at   TEXT    NOT NULL,
    published_by TEXT    NOT NULL,
    note         TEXT    NOT NULL DEFAULT '',
    rollback_of  INTEGER REFERENCES bundles (version)
);

-- +goose StatementBegin
CREATE TRIGGER bundles_immutable BEFORE UPDATE ON bundles
BEGIN
    SELECT RAISE(ABORT, 'published bundles are immutable');
END;
-- +goose StatementEnd

-- Only a SHA-256 of the token is stored; the token is shown once.
CREATE TABLE runtime_tokens (
    id           INTEGER PRIMARY KEY,
    name         TEXT    NOT NULL UNIQUE,
    token_hash   TEXT    NOT NULL UNIQUE,
    created_at   TEXT    NOT NULL,
    created_by   TEXT    NOT NULL,
    revoked_at   TEXT,
    last_used_at TEXT
);

-- One row per runtime instance that fetched a bundle.
CREATE TABLE runtime_instances (
    instance_id  TEXT    PRIMARY KEY,
    name         TEXT    NOT NULL,
    token_id     INTEGER NOT NULL REFERENCES runtime_tokens (id),
    version      INTEGER NOT NULL DEFAULT 0, -- the bundle version it says it runs
    remote_addr  TEXT    NOT NULL DEFAULT '',
    first_seen   TEXT    NOT NULL,
    last_seen    TEXT    NOT NULL
);

-- +goose Down
DROP TABLE runtime_instances;
DROP TABLE runtime_tokens;
DROP TRIGGER bundles_immutable;
DROP TABLE bundles;
