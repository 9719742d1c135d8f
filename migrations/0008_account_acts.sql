-- R10 approver independence: who did what to whose account, and when, so
-- that "was this approver's account created, given the approver role,
-- re-enabled or reset by the requester (or at their request) recently?" is
-- one indexed query. The audit log records the same acts for people to
-- read; this table is what the approval check reads.
--
-- actor_id is NULL when the act was done on the host (toolgate user add:
-- actor 'operator@host'); requested_by names the account on whose request
-- it was done, when the operator said so.

-- +goose Up
CREATE TABLE account_acts (
    id           INTEGER PRIMARY KEY,
    subject_id   INTEGER NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    act          TEXT    NOT NULL CHECK (act IN ('create', 'grant_approver', 'enable', 'password_reset')),
    actor_id     INTEGER REFERENCES users (id) ON DELETE SET NULL,
    actor        TEXT    NOT NULL,
    requested_by INTEGER REFERENCES users (id) ON DELETE SET NULL,
    at           TEXT    NOT NULL
);
CREATE INDEX account_acts_subject_at ON account_acts (subject_id, at);

-- +goose Down
DROP TABLE account_acts;
