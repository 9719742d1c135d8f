-- The toolgate.bundle/v1 form of each version published as
-- toolgate.bundle/v2 (bundle.DowngradeV1: the same version without the
-- tools whose policy has groups or conditions), signed at the same time,
-- for the runtimes that read only v1 during a rolling upgrade (bundle
-- doc.go, "Rolling upgrade"). A table of its own, beside bundles, whose
-- large columns must stay last (migration 0010); signed is last here too.
-- Rows are written once, with their version, and never changed. Each
-- runtime instance keeps the schemas it said it reads
-- (X-Toolgate-Bundle-Schemas; '' when it sent none: a runtime from before
-- v2), for the Runtimes page. Portable SQL: natural key, no engine
-- functions.

-- +goose Up
CREATE TABLE bundle_downgrades (
    version    BIGINT  NOT NULL PRIMARY KEY REFERENCES bundles (version),
    etag       TEXT    NOT NULL UNIQUE,
    tool_count INTEGER NOT NULL,
    withheld   INTEGER NOT NULL,
    signed     TEXT    NOT NULL
);
ALTER TABLE runtime_instances ADD COLUMN bundle_schemas TEXT NOT NULL DEFAULT '';

-- +goose Down
ALTER TABLE runtime_instances DROP COLUMN bundle_schemas;
DROP TABLE bundle_downgrades;
