-- R10: a password an admin sets in the console (a new account's, or a
-- reset) is known to that admin, so it works for one sign-in only, and the
-- person then chooses their own before anything else.
--
-- password_state: '' the person's own password; 'initial' set by an admin,
-- not used yet; 'used' signed in with once, refused from then on.

-- +goose Up
ALTER TABLE users ADD COLUMN password_state TEXT NOT NULL DEFAULT '' CHECK (password_state IN ('', 'initial', 'used'));

-- +goose Down
ALTER TABLE users DROP COLUMN password_state;
