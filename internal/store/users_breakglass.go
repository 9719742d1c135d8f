package store

import (
	"context"
	"time"

	"github.com/jmoiron/sqlx"

	"github.com/toolgate/toolgate/internal/apperr"
	"github.com/toolgate/toolgate/internal/audit"
)

// Break-glass accounts. With single sign-on and local sign-in turned off
// (--local-login=false), the only password sign-in left is to local
// accounts an operator on the host marked break-glass (toolgate user
// break-glass). Each such sign-in is audited as "login.break_glass" next to
// "login.success", and the dashboard shows the recent ones to everybody.

// SSOFailure is a refused single sign-on callback, for the audit log.
type SSOFailure struct {
	Provider string
	// Subject and Email are what the provider asserted, when the ID token
	// got that far ("" otherwise).
	Subject string
	Email   string
	Address string
	Reason  string
}

// RecordSSOFailure audits a refused single sign-on ("login.failure", method
// oidc). It never records a token or code, only the reason.
func (db *DB) RecordSSOFailure(ctx context.Context, f SSOFailure) error {
	actor := f.Email
	if actor == "" {
		actor = "(unknown)"
	}
	after := map[string]string{"address": f.Address, "method": "oidc", "provider": f.Provider, "reason": f.Reason}
	if f.Subject != "" {
		after["provider_subject"] = f.Subject
	}
	return db.inTx(ctx, "record sso failure", func(tx *sqlx.Tx) error {
		return db.appendAudit(ctx, tx, audit.Entry{Actor: actor, Action: "login.failure", Subject: "oidc:" + f.Provider,
			After: auditJSON(after)})
	})
}

// SetBreakGlass marks (or unmarks) the local account with email as a
// break-glass account, audited as "user.break_glass". Unmarking ends the
// account's sessions: with local sign-in off, a session begun in the
// emergency must not outlive it. Only code on the host calls it (the CLI,
// actor OperatorActor): no console route can.
func (db *DB) SetBreakGlass(ctx context.Context, actor, email string, on bool) (*User, error) {
	var u *User
	err := db.inTx(ctx, "set break-glass", func(tx *sqlx.Tx) error {
		var id int64
		if err := tx.GetContext(ctx, &id, `SELECT id FROM users WHERE email = ?`, email); err != nil {
			return notFound(err, "The user "+email)
		}
		before, err := userByID(ctx, tx, id)
		if err != nil {
			return err
		}
		if before.Managed() {
			return apperr.Invalidf("%s is managed by %s and has no password: only a local account can be a break-glass account.",
				email, before.Provider)
		}
		mark := 0 // INTEGER 0/1, bound as a number on every engine
		if on {
			mark = 1
		}
		if _, err := tx.ExecContext(ctx, `UPDATE users SET break_glass = ?, updated_at = ? WHERE id = ?`,
			mark, formatTime(db.Now()), id); err != nil {
			return err
		}
		if !on {
			if _, err := tx.ExecContext(ctx, `DELETE FROM sessions WHERE user_id = ?`, id); err != nil {
				return err
			}
		}
		if err := db.recordUserChange(ctx, tx, actor, "user.break_glass", before); err != nil {
			return err
		}
		u, err = userByID(ctx, tx, id)
		return err
	})
	return u, err
}

// BreakGlassSignIns returns the break-glass sign-ins since since, newest
// first, at most limit.
func (db *DB) BreakGlassSignIns(ctx context.Context, since time.Time, limit int) ([]audit.Entry, error) {
	var out []audit.Entry
	err := db.readTx(ctx, "break-glass sign-ins", func(tx *sqlx.Tx) error {
		var err error
		out, err = auditRows(ctx, tx, `SELECT * FROM audit_log WHERE action = 'login.break_glass' AND at >= ?
			ORDER BY id DESC LIMIT ?`, formatTime(since), limit)
		return err
	})
	return out, err
}

// ssoForbidsGrant refuses a console user giving the approver role while
// the console runs with single sign-on: the role comes from the provider's
// groups only (R10). The operator on the host (a.user nil) still may.
func (db *DB) ssoForbidsGrant(a *accountActor) error {
	if db.SSOProvider == "" || a.user == nil {
		return nil
	}
	return apperr.Forbiddenf("With single sign-on, the approver role comes from the groups at %s: no console admin can "+
		"give it (R10). Add the person to an approver group there. An operator on the host can still add a local "+
		"break-glass approver (toolgate user add, then toolgate user break-glass).", db.SSOProvider)
}

// refuseManaged refuses a console edit of what the provider manages.
func refuseManaged(u *User, what string) error {
	if !u.Managed() {
		return nil
	}
	return apperr.Invalidf("%s is managed by %s: its %s cannot be changed here. Change it at the identity provider; "+
		"it applies at the next sign-in.", u.Email, u.Provider, what)
}
