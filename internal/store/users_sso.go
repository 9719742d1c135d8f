package store

import (
	"context"
	"database/sql"
	"errors"
	"slices"

	"github.com/jmoiron/sqlx"

	"github.com/toolgate/toolgate/internal/apperr"
	"github.com/toolgate/toolgate/internal/audit"
	"github.com/toolgate/toolgate/internal/auth"
)

// Single sign-on (README "Single sign-on (OpenID Connect)"). An account signed in through an OpenID Connect
// provider is created just in time and managed by that provider: matched by
// (provider, subject), never by email; no password; its roles are replaced
// by what the provider's groups map to at every sign-in, and nobody edits
// them in the console. While DB.SSOProvider is set (the console runs with
// single sign-on), no console user can give the approver role to anyone:
// it comes from the provider's groups only (R10). The operator on the host
// still can (toolgate user add), for local break-glass accounts.

// SSOSignIn is one sign-in the web side has verified (state, PKCE, nonce,
// ID token signature and audience, verified email) and mapped to roles.
type SSOSignIn struct {
	// Provider is the issuer URL; Subject the ID token's "sub".
	Provider string
	Subject  string
	Email    string
	// Roles are what the provider's groups map to now; empty refuses the
	// sign-in and takes every role away (ErrNoSSORole).
	Roles   []auth.Role
	Address string
}

// ErrNoSSORole refuses a sign-in whose groups map to no role. The account,
// if it exists, has lost all of its roles and sessions by then.
var ErrNoSSORole = apperr.Forbiddenf("Your account at the identity provider is in none of the groups that give a role " +
	"in this console. Ask an administrator of the identity provider to add you to a group.")

func ssoActor(provider string) string { return "sso:" + provider }

// SignInSSO finds or creates the account of in, applies its roles, and
// starts a session (like Login), all in one transaction. It returns the
// session token. Changes to the account are audited with actor
// "sso:<issuer>"; the sign-in as "login.success" with the provider subject
// and the roles granted.
func (db *DB) SignInSSO(ctx context.Context, in SSOSignIn, p SessionPolicy) (*User, string, error) {
	email, err := NormalizeEmail(in.Email)
	if err != nil {
		return nil, "", err
	}
	token, err := newToken()
	if err != nil {
		return nil, "", err
	}
	in.Email, in.Roles = email, slices.Clone(in.Roles)
	var u *User
	noRole := false
	err = db.inTx(ctx, "sso sign-in", func(tx *sqlx.Tx) error {
		if u, err = db.ssoAccount(ctx, tx, in); err != nil || u == nil {
			return err
		}
		if len(in.Roles) == 0 {
			noRole = true
			return db.ssoRevoke(ctx, tx, in, u)
		}
		if err := insertSession(ctx, tx, u.ID, token, db.Now(), p); err != nil {
			return err
		}
		return db.appendAudit(ctx, tx, audit.Entry{Actor: u.Email, Action: "login.success", Subject: subjectUser(u.ID),
			After: auditJSON(map[string]any{"address": in.Address, "method": "oidc", "provider": in.Provider,
				"provider_subject": in.Subject, "roles": u.Roles})})
	})
	switch {
	case err != nil:
		return nil, "", err
	case noRole || u == nil:
		return nil, "", ErrNoSSORole
	}
	return u, token, nil
}

// ssoAccount returns the account of in, created or brought up to date;
// nil (and nothing written) when it does not exist and would get no role.
func (db *DB) ssoAccount(ctx context.Context, tx *sqlx.Tx, in SSOSignIn) (*User, error) {
	var id int64
	err := tx.GetContext(ctx, &id, `SELECT id FROM users WHERE provider = ? AND subject = ?`, in.Provider, in.Subject)
	switch {
	case errors.Is(err, sql.ErrNoRows) && len(in.Roles) == 0:
		return nil, nil
	case errors.Is(err, sql.ErrNoRows):
		return db.ssoCreate(ctx, tx, in)
	case err != nil:
		return nil, err
	}
	before, err := userByID(ctx, tx, id)
	if err != nil {
		return nil, err
	}
	if before.Disabled {
		return nil, apperr.Forbiddenf("Your console account is disabled. Ask a console admin to re-enable it.")
	}
	if before.Email != in.Email {
		if err := emailFree(ctx, tx, in.Email, in.Provider); err != nil {
			return nil, err
		}
		if _, err := tx.ExecContext(ctx, `UPDATE users SET email = ?, updated_at = ? WHERE id = ?`,
			in.Email, formatTime(db.Now()), id); err != nil {
			return nil, err
		}
		if err := db.recordUserChange(ctx, tx, ssoActor(in.Provider), "user.email", before); err != nil {
			return nil, err
		}
		before.Email = in.Email
	}
	if len(in.Roles) > 0 && !slices.Equal(before.Roles, in.Roles) {
		if err := db.ssoSetRoles(ctx, tx, in, before); err != nil {
			return nil, err
		}
	}
	return userByID(ctx, tx, id)
}

// emailFree refuses an address another account has: SSO accounts are
// matched by subject, so taking over a local account by its email is not
// possible.
func emailFree(ctx context.Context, tx *sqlx.Tx, email, provider string) error {
	var n int
	if err := tx.GetContext(ctx, &n, `SELECT count(*) FROM users WHERE email = ?`, email); err != nil {
		return err
	}
	if n > 0 {
		return apperr.Conflictf("Another console account already uses the email %s, so the account from %s cannot be "+
			"created with it. A console admin can disable the other account or an operator can change it; it is never "+
			"taken over automatically.", email, provider)
	}
	return nil
}

func (db *DB) ssoCreate(ctx context.Context, tx *sqlx.Tx, in SSOSignIn) (*User, error) {
	if err := emailFree(ctx, tx, in.Email, in.Provider); err != nil {
		return nil, err
	}
	now := formatTime(db.Now())
	var id int64
	if err := tx.GetContext(ctx, &id, `INSERT INTO users (email, password_hash, provider, subject, created_at, updated_at)
		VALUES (?, '', ?, ?, ?, ?) RETURNING id`, in.Email, in.Provider, in.Subject, now, now); err != nil {
		return nil, err
	}
	if err := setRoles(ctx, tx, id, in.Roles); err != nil {
		return nil, err
	}
	a := &accountActor{name: ssoActor(in.Provider)}
	if err := db.recordAct(ctx, tx, id, actCreate, a, 0); err != nil {
		return nil, err
	}
	if slices.Contains(in.Roles, auth.RoleApprover) {
		if err := db.recordAct(ctx, tx, id, actGrantApprover, a, 0); err != nil {
			return nil, err
		}
	}
	u, err := userByID(ctx, tx, id)
	if err != nil {
		return nil, err
	}
	return u, db.appendAudit(ctx, tx, audit.Entry{Actor: a.name, Action: "user.add", Subject: subjectUser(id),
		After: auditJSON(u.auditView())})
}

// ssoSetRoles replaces before's roles with in.Roles, as the provider said.
func (db *DB) ssoSetRoles(ctx context.Context, tx *sqlx.Tx, in SSOSignIn, before *User) error {
	if err := setRoles(ctx, tx, before.ID, in.Roles); err != nil {
		return err
	}
	if !before.Has(auth.RoleApprover) && slices.Contains(in.Roles, auth.RoleApprover) {
		if err := db.recordAct(ctx, tx, before.ID, actGrantApprover, &accountActor{name: ssoActor(in.Provider)}, 0); err != nil {
			return err
		}
	}
	return db.recordUserChange(ctx, tx, ssoActor(in.Provider), "user.roles", before)
}

// ssoRevoke takes every role and session from u, whose groups map to no
// role any more.
func (db *DB) ssoRevoke(ctx context.Context, tx *sqlx.Tx, in SSOSignIn, u *User) error {
	if _, err := tx.ExecContext(ctx, `DELETE FROM sessions WHERE user_id = ?`, u.ID); err != nil {
		return err
	}
	if len(u.Roles) == 0 {
		return nil
	}
	if _, err := tx.ExecContext(ctx, `DELETE FROM user_roles WHERE user_id = ?`, u.ID); err != nil {
		return err
	}
	return db.recordUserChange(ctx, tx, ssoActor(in.Provider), "user.roles", u)
}
