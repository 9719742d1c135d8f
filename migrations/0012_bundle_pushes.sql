-- Issue 13 item 4: bundles pushed to an OCI registry. One row per version
-- and registry target (oci://host[:port]/repository) with where the push
-- stands. Pushes run in the background (internal/pusher): publishing never
-- waits for the registry. Two console instances may push: a row is claimed
-- with a conditional UPDATE (state, claimed_until) before it is pushed, and
-- a claim whose holder died expires at claimed_until. Portable SQL: natural
-- key, TEXT timestamps in audit.TimeLayout ('' when unset), no engine
-- functions.

-- +goose Up
CREATE TABLE bundle_pushes (
    version         INTEGER NOT NULL REFERENCES bundles (version),
    target          TEXT    NOT NULL,
    state           TEXT    NOT NULL CHECK (state IN ('pending', 'pushing', 'pushed', 'failed')),
    attempts        INTEGER NOT NULL DEFAULT 0,
    last_error      TEXT    NOT NULL DEFAULT '', -- sanitised: never credentials
    digest          TEXT    NOT NULL DEFAULT '', -- manifest digest once pushed
    next_attempt_at TEXT    NOT NULL,
    claimed_until   TEXT    NOT NULL DEFAULT '',
    updated_at      TEXT    NOT NULL,
    pushed_at       TEXT    NOT NULL DEFAULT '',
    PRIMARY KEY (version, target)
);
CREATE INDEX bundle_pushes_target_state ON bundle_pushes (target, state, next_attempt_at);

-- +goose Down
DROP TABLE bundle_pushes;
