-- What a second console instance must share with the first, so that
-- several consoles can run on one database (PostgreSQL): the bundle
-- signing keys, the session cookie keys and the sign-in throttle.
--
-- signing_keys: private keys are sealed (AES-256-GCM, the key id as
-- associated data) under a key-encryption key that each console reads from
-- a file and that is never stored here (internal/keyring): a dump of this
-- table cannot sign. sealed_private is NULL once a key is retired. At most
-- one key is active (a partial unique index, on both engines). seq orders
-- the keys (keys made within one second share created_at); it is MAX + 1
-- inside the write transaction, so no engine-specific sequence is needed.
-- console_secrets: other sealed secrets by name (the session cookie keys).
-- login_throttle: one GCRA "theoretical arrival time" (unix milliseconds)
-- per bucket; bucket is a SHA-256 of the bucket's kind and key, so no
-- address or typed text is stored. login_known_pairs: (account, address)
-- pairs that signed in, hashed the same way, with the time in unix ms.
-- Times used only for arithmetic are BIGINT milliseconds; times people
-- read are TEXT in audit.TimeLayout as elsewhere.

-- +goose Up
CREATE TABLE signing_keys (
    kid            TEXT    PRIMARY KEY,
    seq            BIGINT  NOT NULL UNIQUE,
    public_key     TEXT    NOT NULL,
    sealed_private TEXT,
    active         INTEGER NOT NULL DEFAULT 0 CHECK (active IN (0, 1)),
    created_at     TEXT    NOT NULL,
    retired_at     TEXT,
    CHECK (active = 0 OR retired_at IS NULL),
    CHECK (retired_at IS NULL OR sealed_private IS NULL)
);
CREATE UNIQUE INDEX signing_keys_one_active ON signing_keys (active) WHERE active = 1;

CREATE TABLE console_secrets (
    name       TEXT PRIMARY KEY,
    sealed     TEXT NOT NULL,
    created_at TEXT NOT NULL
);

CREATE TABLE login_throttle (
    bucket TEXT   PRIMARY KEY,
    tat_ms BIGINT NOT NULL
);
CREATE INDEX login_throttle_tat ON login_throttle (tat_ms);

CREATE TABLE login_known_pairs (
    pair  TEXT   PRIMARY KEY,
    at_ms BIGINT NOT NULL
);
CREATE INDEX login_known_pairs_at ON login_known_pairs (at_ms);

-- +goose Down
DROP TABLE login_known_pairs;
DROP TABLE login_throttle;
DROP TABLE console_secrets;
DROP TABLE signing_keys;
