-- R10: an approval covers the exact situation the approver saw. For the
-- policy kinds, before_json pins the tool's policy; class_at_request pins
-- its risk class too, so a request to expose a DESTRUCTIVE tool cannot be
-- approved into exposing what a re-import has since made PRIVILEGED.
-- '' for requests made before this column existed (no class check).

-- +goose Up
ALTER TABLE change_requests ADD COLUMN class_at_request TEXT NOT NULL DEFAULT ''
    CHECK (class_at_request IN ('', 'READ', 'WRITE', 'DESTRUCTIVE', 'PRIVILEGED'));

-- +goose Down
ALTER TABLE change_requests DROP COLUMN class_at_request;
