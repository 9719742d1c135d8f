-- Webhooks that tell approvers of new call and change requests
-- (internal/webhook), their deliveries and the log of every attempt.
-- The signing secret is stored sealed (internal/keyring KEK) and shown
-- once, at creation. A delivery is claimed by one console at a time with a
-- lease (lease_until), so consoles sharing a database send it once.
-- Portable SQL: random TEXT ids, TEXT timestamps, no engine functions.

-- +goose Up
CREATE TABLE webhooks (
    id            TEXT    PRIMARY KEY,
    name          TEXT    NOT NULL UNIQUE,
    url           TEXT    NOT NULL,
    format        TEXT    NOT NULL,      -- json | slack
    events        TEXT    NOT NULL,      -- comma-separated notify kinds
    secret_sealed TEXT    NOT NULL,
    created_at    TEXT    NOT NULL,
    created_by    TEXT    NOT NULL
);
CREATE TABLE webhook_deliveries (
    id          TEXT    PRIMARY KEY,
    webhook_id  TEXT    NOT NULL REFERENCES webhooks (id) ON DELETE CASCADE,
    kind        TEXT    NOT NULL,
    subject     TEXT    NOT NULL,        -- the request's id
    body        TEXT    NOT NULL,        -- the event as JSON (no secrets)
    state       TEXT    NOT NULL,        -- pending | sent | failed
    attempts    INTEGER NOT NULL DEFAULT 0,
    next_at     TEXT    NOT NULL,
    lease_until TEXT    NOT NULL DEFAULT '',
    created_at  TEXT    NOT NULL
);
CREATE INDEX webhook_deliveries_due ON webhook_deliveries (state, next_at);
CREATE TABLE webhook_attempts (
    id          TEXT    PRIMARY KEY,
    delivery_id TEXT    NOT NULL REFERENCES webhook_deliveries (id) ON DELETE CASCADE,
    webhook_id  TEXT    NOT NULL REFERENCES webhooks (id) ON DELETE CASCADE,
    kind        TEXT    NOT NULL,
    subject     TEXT    NOT NULL,
    attempt     INTEGER NOT NULL,
    at          TEXT    NOT NULL,
    status      INTEGER NOT NULL DEFAULT 0, -- HTTP status; 0 when none came
    error       TEXT    NOT NULL DEFAULT '',
    duration_ms BIGINT  NOT NULL DEFAULT 0,
    outcome     TEXT    NOT NULL             -- sent | retry | failed
);
CREATE INDEX webhook_attempts_log ON webhook_attempts (webhook_id, at);

-- +goose Down
DROP TABLE webhook_attempts;
DROP TABLE webhook_deliveries;
DROP TABLE webhooks;
