-- Every tool records the version of the risk rules that classified it
-- (risk.RulesVersion). Tools stored before this column were classified by
-- version 1. At start the console re-classifies tools of older versions
-- (store.ReclassifyTools); detected_class then holds the new verdict, which
-- may be below the class in force: the rules never lower a class silently.

-- +goose Up
ALTER TABLE tools ADD COLUMN rules_version INTEGER NOT NULL DEFAULT 1;
CREATE INDEX tools_rules_version ON tools (rules_version);

-- +goose Down
DROP INDEX tools_rules_version;
ALTER TABLE tools DROP COLUMN rules_version;
