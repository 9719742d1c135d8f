-- R14: the tools a publish or a rollback left out of a version, and why
-- (the gate's reason, store.WithheldTool), so the Bundles page can say
-- what a version did not sign. A table of its own rather than a column of
-- bundles, whose large columns must stay last (migration 0010). Portable
-- SQL: natural key, no engine functions.

-- +goose Up
CREATE TABLE bundle_withheld (
    version INTEGER NOT NULL REFERENCES bundles (version),
    tool    TEXT    NOT NULL,
    reason  TEXT    NOT NULL,
    PRIMARY KEY (version, tool)
);

-- +goose Down
DROP TABLE bundle_withheld;
