-- R13: a change request records the definition digest (bundle.DefinitionDigest)
-- of the tool as it would be published once the request applies: what the
-- approver is shown and approves. Approving checks the tool still has that
-- digest, else the request becomes void. '' for requests made before this
-- column existed (no digest check).

-- +goose Up
ALTER TABLE change_requests ADD COLUMN definition_digest TEXT NOT NULL DEFAULT '';

-- +goose Down
ALTER TABLE change_requests DROP COLUMN definition_digest;
