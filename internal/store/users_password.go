package store

import (
	"context"
	"errors"

	"github.com/jmoiron/sqlx"
)

// Passwords an admin set. A password an admin chose in the console — for a
// new account, or as a reset — is known to that admin, so it must not stay
// the account's password (R10: the admin would hold the account). It works
// for one sign-in (Login), and that session may do nothing but choose the
// person's own password (SetUserPassword by the person); any later sign-in
// with it is refused with ErrInitialPasswordUsed. Passwords set on the host
// (toolgate user add) are the operator's business and work as they are.

// The password states of users.password_state.
const (
	passwordOwn     = ""
	passwordInitial = "initial"
	passwordUsed    = "used"
)

// ErrInitialPasswordUsed is Login's refusal of a password an admin set
// that opened a session once already: only an admin can set a new one.
var ErrInitialPasswordUsed = errors.New("the password an admin set was used for a sign-in already")

// setPasswordState records what the account's password is and returns the
// account as it is now.
func setPasswordState(ctx context.Context, tx *sqlx.Tx, id int64, state string) (*User, error) {
	if _, err := tx.ExecContext(ctx, `UPDATE users SET password_state = ? WHERE id = ?`, state, id); err != nil {
		return nil, err
	}
	return userByID(ctx, tx, id)
}

// useInitialPassword lets a password an admin set open one session: it
// marks the first use and refuses the next ones.
func useInitialPassword(ctx context.Context, tx *sqlx.Tx, id int64) error {
	var state string
	if err := tx.GetContext(ctx, &state, `SELECT password_state FROM users WHERE id = ?`, id); err != nil {
		return notFound(err, "The user")
	}
	switch state {
	case passwordUsed:
		return ErrInitialPasswordUsed
	case passwordInitial:
		_, err := tx.ExecContext(ctx, `UPDATE users SET password_state = ? WHERE id = ?`, passwordUsed, id)
		return err
	}
	return nil
}
