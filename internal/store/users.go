package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"net/mail"
	"slices"
	"strings"
	"time"

	"github.com/jmoiron/sqlx"

	"github.com/toolgate/toolgate/internal/apperr"
	"github.com/toolgate/toolgate/internal/audit"
	"github.com/toolgate/toolgate/internal/auth"
)

// User is a person who signs in to the console.
type User struct {
	ID           int64       `json:"id"`
	Email        string      `json:"email"`
	Roles        []auth.Role `json:"roles"`
	Disabled     bool        `json:"disabled"`
	PasswordHash string      `json:"-"`
	// Provider is the issuer URL of the identity provider that manages the
	// account, "" for a local account; Subject is the provider's "sub".
	// A managed account has no password and its roles come from the
	// provider's groups at every sign-in (users_sso.go).
	Provider string `json:"provider,omitempty"`
	Subject  string `json:"subject,omitempty"`
	// BreakGlass marks a local account an operator allowed to sign in with
	// a password while local sign-in is turned off (SetBreakGlass).
	BreakGlass bool `json:"break_glass,omitempty"`
	// MustSetPassword is true while the password is one an admin set in
	// the console (adding the account, or resetting it): the person must
	// choose their own before anything else (R10, users_password.go).
	MustSetPassword bool      `json:"must_set_password,omitempty"`
	CreatedAt       time.Time `json:"-"`
	UpdatedAt       time.Time `json:"-"`
}

// Has reports whether u holds role.
func (u *User) Has(role auth.Role) bool { return slices.Contains(u.Roles, role) }

// Managed reports whether an identity provider manages u.
func (u *User) Managed() bool { return u.Provider != "" }

// NewUser is what CreateUser needs.
type NewUser struct {
	Email        string
	PasswordHash string
	Roles        []auth.Role
	// RequestedBy, if set, is the email of the console user at whose
	// request the account is made (an operator on the host acting for
	// someone): that user's requests cannot be approved by it for the
	// independence window (R10).
	RequestedBy string
}

// auditView is the part of a user recorded in audit before/after: never
// the password hash.
func (u *User) auditView() map[string]any {
	v := map[string]any{"email": u.Email, "roles": u.Roles, "disabled": u.Disabled}
	if u.Managed() {
		v["provider"], v["subject"] = u.Provider, u.Subject
	}
	if u.BreakGlass {
		v["break_glass"] = true
	}
	if u.MustSetPassword {
		v["must_set_password"] = true
	}
	return v
}

func subjectUser(id int64) string { return fmt.Sprintf("user:%d", id) }

// NormalizeEmail trims and lower-cases an address and checks its shape.
func NormalizeEmail(email string) (string, error) {
	e := strings.ToLower(strings.TrimSpace(email))
	a, err := mail.ParseAddress(e)
	if err != nil || a.Address != e {
		return "", apperr.Invalidf("%q is not an email address.", email)
	}
	return e, nil
}

type userRow struct {
	ID           int64  `db:"id"`
	Email        string `db:"email"`
	PasswordHash string `db:"password_hash"`
	Disabled     bool   `db:"disabled"`
	Provider     string `db:"provider"`
	Subject      string `db:"subject"`
	BreakGlass   bool   `db:"break_glass"`
	Password     string `db:"password_state"`
	CreatedAt    string `db:"created_at"`
	UpdatedAt    string `db:"updated_at"`
}

// CountUsers returns how many users exist (0 means first run).
func (db *DB) CountUsers(ctx context.Context) (int, error) {
	var n int
	err := db.readTx(ctx, "count users", func(tx *sqlx.Tx) error {
		return tx.GetContext(ctx, &n, `SELECT count(*) FROM users`)
	})
	return n, err
}

// CreateUser adds a user, audited as actor's "user.add". Giving the new
// user the approver role is an approver power (see users_independence.go).
// When actor is a console user, the password is theirs, not the new
// user's: it works for one sign-in (users_password.go).
func (db *DB) CreateUser(ctx context.Context, actor string, nu NewUser) (*User, error) {
	var u *User
	err := db.inTx(ctx, "create user", func(tx *sqlx.Tx) error {
		a, err := resolveActor(ctx, tx, actor)
		if err != nil {
			return err
		}
		approver := slices.Contains(nu.Roles, auth.RoleApprover)
		if approver {
			if err := db.ssoForbidsGrant(a); err != nil {
				return err
			}
			if err := mayUseApproverPowers(ctx, tx, a, "give the approver role"); err != nil {
				return err
			}
		}
		var requestedBy int64
		if nu.RequestedBy != "" {
			if err := tx.GetContext(ctx, &requestedBy, `SELECT id FROM users WHERE lower(email) = lower(?)`,
				strings.ToLower(strings.TrimSpace(nu.RequestedBy))); err != nil {
				if errors.Is(err, sql.ErrNoRows) {
					return apperr.Invalidf("No console user has the email %s (who asked for the account).", nu.RequestedBy)
				}
				return err
			}
		}
		if u, err = db.insertUser(ctx, tx, nu); err != nil {
			return err
		}
		if a.user != nil { // an admin chose the password: it works once
			if u, err = setPasswordState(ctx, tx, u.ID, passwordInitial); err != nil {
				return err
			}
		}
		if err := db.recordAct(ctx, tx, u.ID, actCreate, a, requestedBy); err != nil {
			return err
		}
		if approver {
			if err := db.recordAct(ctx, tx, u.ID, actGrantApprover, a, requestedBy); err != nil {
				return err
			}
		}
		after := u.auditView()
		if nu.RequestedBy != "" {
			after["requested_by"] = nu.RequestedBy
		}
		return db.appendAudit(ctx, tx, audit.Entry{Actor: actor, Action: "user.add",
			Subject: subjectUser(u.ID), After: auditJSON(after)})
	})
	return u, err
}

// CreateFirstAdmin adds the first user, an admin, through the one-time setup
// link. It is a Conflict when any user exists already, so two people racing
// through the link cannot both become admins.
func (db *DB) CreateFirstAdmin(ctx context.Context, email, passwordHash string) (*User, error) {
	var u *User
	err := db.inTx(ctx, "create first admin", func(tx *sqlx.Tx) error {
		var n int
		if err := tx.GetContext(ctx, &n, `SELECT count(*) FROM users`); err != nil {
			return err
		}
		if n > 0 {
			return apperr.Conflictf("Setup is already done: sign in instead.")
		}
		var err error
		u, err = db.insertUser(ctx, tx, NewUser{Email: email, PasswordHash: passwordHash, Roles: []auth.Role{auth.RoleAdmin}})
		if err != nil {
			return err
		}
		return db.appendAudit(ctx, tx, audit.Entry{Actor: u.Email, Action: "setup",
			Subject: subjectUser(u.ID), After: auditJSON(u.auditView())})
	})
	return u, err
}

func (db *DB) insertUser(ctx context.Context, tx *sqlx.Tx, nu NewUser) (*User, error) {
	email, err := NormalizeEmail(nu.Email)
	if err != nil {
		return nil, err
	}
	if len(nu.Roles) == 0 {
		return nil, apperr.Invalidf("Give the user at least one role.")
	}
	if email == OperatorActor {
		return nil, apperr.Invalidf("%s is reserved for changes made on the host; choose another address.", email)
	}
	var n int
	if err := tx.GetContext(ctx, &n, `SELECT count(*) FROM users WHERE lower(email) = lower(?)`, email); err != nil {
		return nil, err
	}
	if n > 0 {
		return nil, apperr.Conflictf("A user with the email %s exists already.", email)
	}
	now := formatTime(db.Now())
	var id int64
	if err := tx.GetContext(ctx, &id, `INSERT INTO users (email, password_hash, created_at, updated_at)
		VALUES (?, ?, ?, ?) RETURNING id`, email, nu.PasswordHash, now, now); err != nil {
		return nil, err
	}
	if err := setRoles(ctx, tx, id, nu.Roles); err != nil {
		return nil, err
	}
	return userByID(ctx, tx, id)
}

func setRoles(ctx context.Context, tx *sqlx.Tx, id int64, roles []auth.Role) error {
	if _, err := tx.ExecContext(ctx, `DELETE FROM user_roles WHERE user_id = ?`, id); err != nil {
		return err
	}
	for _, r := range roles {
		if _, err := tx.ExecContext(ctx, `INSERT INTO user_roles (user_id, role) VALUES (?, ?)`, id, string(r)); err != nil {
			return err
		}
	}
	return nil
}

// UserByID returns the user with id, or NotFound.
func (db *DB) UserByID(ctx context.Context, id int64) (*User, error) {
	var u *User
	err := db.readTx(ctx, "user by id", func(tx *sqlx.Tx) error {
		var err error
		u, err = userByID(ctx, tx, id)
		return err
	})
	return u, err
}

// UserByEmail returns the user with email (any case), or NotFound.
func (db *DB) UserByEmail(ctx context.Context, email string) (*User, error) {
	var u *User
	err := db.readTx(ctx, "user by email", func(tx *sqlx.Tx) error {
		var id int64
		err := tx.GetContext(ctx, &id, `SELECT id FROM users WHERE lower(email) = lower(?)`, strings.TrimSpace(email))
		if err != nil {
			return notFound(err, "The user")
		}
		u, err = userByID(ctx, tx, id)
		return err
	})
	return u, err
}

// ListUsers returns every user ordered by email.
func (db *DB) ListUsers(ctx context.Context) ([]*User, error) {
	var out []*User
	err := db.readTx(ctx, "list users", func(tx *sqlx.Tx) error {
		var ids []int64
		if err := tx.SelectContext(ctx, &ids, `SELECT id FROM users ORDER BY email`); err != nil {
			return err
		}
		for _, id := range ids {
			u, err := userByID(ctx, tx, id)
			if err != nil {
				return err
			}
			out = append(out, u)
		}
		return nil
	})
	return out, err
}

func userByID(ctx context.Context, tx *sqlx.Tx, id int64) (*User, error) {
	var r userRow
	if err := tx.GetContext(ctx, &r, `SELECT id, email, password_hash, disabled, provider, subject, break_glass,
		password_state, created_at, updated_at FROM users WHERE id = ?`, id); err != nil {
		return nil, notFound(err, "The user")
	}
	var roles []string
	if err := tx.SelectContext(ctx, &roles, `SELECT role FROM user_roles WHERE user_id = ?`, id); err != nil {
		return nil, err
	}
	rs, err := auth.NormalizeRoles(roles)
	if err != nil {
		return nil, err
	}
	u := &User{ID: r.ID, Email: r.Email, PasswordHash: r.PasswordHash, Disabled: r.Disabled, Roles: rs,
		Provider: r.Provider, Subject: r.Subject, BreakGlass: r.BreakGlass, MustSetPassword: r.Password != passwordOwn}
	if u.CreatedAt, err = parseTime(r.CreatedAt); err != nil {
		return nil, err
	}
	if u.UpdatedAt, err = parseTime(r.UpdatedAt); err != nil {
		return nil, err
	}
	return u, nil
}
