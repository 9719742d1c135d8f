-- Content-addressed schemas: a request body schema shared by many
-- operations (one $ref'd component behind every endpoint) is stored once,
-- keyed by the SHA-256 of its JSON, and an operation's operation_json holds
-- {"$toolgate_blob":"<sha256>"} in its place (see store/schema_blobs.go).
-- Rows are immutable and never deleted: removed tools keep their history.
--
-- schema_gaps_ack_by names who acknowledged that a tool's input schema is
-- incomplete (openapi.Operation.SchemaGaps): such a tool cannot be exposed
-- until someone has; '' when nobody has, or a re-import changed the gaps.

-- +goose Up
CREATE TABLE schema_blobs (
    sha256 TEXT PRIMARY KEY,
    body   TEXT NOT NULL
);
ALTER TABLE tools ADD COLUMN schema_gaps_ack_by TEXT NOT NULL DEFAULT '';

-- +goose Down
ALTER TABLE tools DROP COLUMN schema_gaps_ack_by;
DROP TABLE schema_blobs;
