-- Single sign-on (issue 14): users created just in time from an OpenID
-- Connect provider, and break-glass accounts.
--
-- provider is the issuer URL of the identity provider that manages the
-- account ('' for a local account); subject is the provider's "sub" for it.
-- A managed account has no password (password_hash ''), and its roles come
-- from the provider's groups at every sign-in. break_glass marks the local
-- accounts an operator allowed to sign in with a password while local
-- sign-in is turned off (toolgate user break-glass).

-- +goose Up
ALTER TABLE users ADD COLUMN provider TEXT NOT NULL DEFAULT '';
ALTER TABLE users ADD COLUMN subject TEXT NOT NULL DEFAULT '';
ALTER TABLE users ADD COLUMN break_glass INTEGER NOT NULL DEFAULT 0 CHECK (break_glass IN (0, 1));
CREATE UNIQUE INDEX users_provider_subject ON users (provider, subject) WHERE provider <> '';
-- The dashboard lists recent break-glass sign-ins by action.
CREATE INDEX audit_log_action_at ON audit_log (action, at);

-- +goose Down
DROP INDEX audit_log_action_at;
DROP INDEX users_provider_subject;
ALTER TABLE users DROP COLUMN break_glass;
ALTER TABLE users DROP COLUMN subject;
ALTER TABLE users DROP COLUMN provider;
