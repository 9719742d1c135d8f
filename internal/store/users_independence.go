package store

import (
	"context"
	"database/sql"
	"errors"
	"time"

	"github.com/jmoiron/sqlx"

	"github.com/toolgate/toolgate/internal/apperr"
	"github.com/toolgate/toolgate/internal/approval"
	"github.com/toolgate/toolgate/internal/auth"
)

// Approver independence (R10), in two parts.
//
// Approver powers: giving the approver role (when adding a user or
// changing roles), re-enabling an account that holds it, and resetting its
// password are approver powers. Only an enabled approver may use them (from
// the console, as an admin who is also an approver), or an operator on the
// host (`toolgate user add`, actor OperatorActor). The one exception is the
// bootstrap: while no account has ever held the approver role, an admin may
// give it, so the first admin of a fresh console can start. Taking the role
// away or disabling approvers never reopens the bootstrap (it checks for an
// approver ever, not an approver now), so one admin cannot clear the way to
// a sockpuppet; a console left without approvers is recovered on the host.
//
// Independence at approval: the acts that make one account control
// another (created, gave the approver role to, re-enabled, reset the
// password of — or asked an operator on the host to, NewUser.RequestedBy)
// are recorded in account_acts as well as in the audit log. Deciding a
// request loads those of the DB.ApproverIndependence window (default 7
// days) in its transaction, and approval.Independence refuses when either
// account controls the other, through any chain, or one console account
// controls both: one person could otherwise create an admin account, ask
// from it, and approve as themselves, or through accounts they made.

// OperatorActor is the actor recorded for account changes made on the host
// with the toolgate CLI: an operator act, not a console account. The
// address is reserved; no console user can have it.
const OperatorActor = "operator@host"

// DefaultApproverIndependence is how long an account cannot approve the
// requests of the person who created, promoted, re-enabled or reset it.
const DefaultApproverIndependence = 7 * 24 * time.Hour

// The kinds of account act recorded for the independence check.
const (
	actCreate        = string(approval.ActCreate)
	actGrantApprover = string(approval.ActGrantApprover)
	actEnable        = string(approval.ActEnable)
	actPasswordReset = string(approval.ActPasswordReset)
)

// accountActor is who changes an account: a console user, or code on the
// host (user is nil) — the CLI's OperatorActor, or a test.
type accountActor struct {
	name string
	user *User
}

// resolveActor finds the console user named by actor (their email). Any
// other actor is the host: web handlers always pass the signed-in user's
// email, and only code running on the host passes anything else.
func resolveActor(ctx context.Context, tx *sqlx.Tx, actor string) (*accountActor, error) {
	a := &accountActor{name: actor}
	if actor == OperatorActor {
		return a, nil
	}
	var id int64
	err := tx.GetContext(ctx, &id, `SELECT id FROM users WHERE lower(email) = lower(?)`, actor)
	if errors.Is(err, sql.ErrNoRows) {
		return a, nil
	}
	if err != nil {
		return nil, err
	}
	if a.user, err = userByID(ctx, tx, id); err != nil {
		return nil, err
	}
	return a, nil
}

func (a *accountActor) id() *int64 {
	if a.user == nil {
		return nil
	}
	return &a.user.ID
}

// mayUseApproverPowers refuses an approver power (see above) to a console
// user who is not an enabled approver, except during the bootstrap.
func mayUseApproverPowers(ctx context.Context, tx *sqlx.Tx, a *accountActor, what string) error {
	if a.user == nil || (a.user.Has(auth.RoleApprover) && !a.user.Disabled) {
		return nil
	}
	var ever bool
	err := tx.GetContext(ctx, &ever, `SELECT EXISTS (SELECT 1 FROM user_roles WHERE role = 'approver')
		OR EXISTS (SELECT 1 FROM account_acts WHERE act = 'grant_approver')`)
	if err != nil {
		return err
	}
	if !ever {
		return nil // the bootstrap: the first approver of a fresh console
	}
	return apperr.Forbiddenf("Only a security approver can %s: an admin who is not also an approver cannot "+
		"(R10, so that nobody can make their own approver). Ask an approver, or an operator on the host "+
		"(toolgate user add).", what)
}

// recordAct records an act on subject's account by a, at requestedBy's
// request when not 0.
func (db *DB) recordAct(ctx context.Context, tx *sqlx.Tx, subject int64, act string, a *accountActor, requestedBy int64) error {
	var req *int64
	if requestedBy != 0 {
		req = &requestedBy
	}
	_, err := tx.ExecContext(ctx, `INSERT INTO account_acts (subject_id, act, actor_id, actor, requested_by, at)
		VALUES (?, ?, ?, ?, ?, ?)`, subject, act, a.id(), a.name, req, formatTime(db.Now()))
	return err
}

// independent refuses an approval by approver of a request by requester
// when they are not independent (approval.Independence) over the acts of
// the window, loaded in tx.
func (db *DB) independent(ctx context.Context, tx *sqlx.Tx, approver *User, requester int64, requesterEmail string) error {
	acts, err := db.controlActs(ctx, tx)
	if err != nil {
		return err
	}
	return db.independence(acts, approver, requester, requesterEmail)
}

// independence is independent over acts already loaded.
func (db *DB) independence(acts []approval.Act, approver *User, requester int64, requesterEmail string) error {
	r := approval.Independence(approval.Facts{
		Approver:  approval.Account{ID: approver.ID, Email: approver.Email},
		Requester: approval.Account{ID: requester, Email: requesterEmail},
		Acts:      acts, Now: db.Now(), Window: db.independenceWindow()})
	if r != nil {
		return apperr.Forbiddenf("%s", r.Message)
	}
	return nil
}

// controlActs loads the account acts of the independence window that make
// a console account a controller: done by one, or at one's request.
func (db *DB) controlActs(ctx context.Context, tx *sqlx.Tx) ([]approval.Act, error) {
	var rows []struct {
		Subject      int64   `db:"subject_id"`
		SubjectEmail string  `db:"subject_email"`
		Act          string  `db:"act"`
		ActorID      *int64  `db:"actor_id"`
		Actor        string  `db:"actor"`
		RequestedBy  *int64  `db:"requested_by"`
		RequestEmail *string `db:"requested_by_email"`
		At           string  `db:"at"`
	}
	err := tx.SelectContext(ctx, &rows, `SELECT a.subject_id, s.email AS subject_email, a.act, a.actor_id, a.actor,
			a.requested_by, r.email AS requested_by_email, a.at
		FROM account_acts a JOIN users s ON s.id = a.subject_id LEFT JOIN users r ON r.id = a.requested_by
		WHERE a.at > ? AND (a.actor_id IS NOT NULL OR a.requested_by IS NOT NULL) ORDER BY a.id`,
		formatTime(db.Now().Add(-db.independenceWindow())))
	if err != nil {
		return nil, err
	}
	acts := make([]approval.Act, len(rows))
	for i, r := range rows {
		at, err := parseTime(r.At)
		if err != nil {
			return nil, err
		}
		acts[i] = approval.Act{Subject: approval.Account{ID: r.Subject, Email: r.SubjectEmail},
			Kind: approval.ActKind(r.Act), By: approval.Account{Email: r.Actor}, At: at}
		if r.ActorID != nil {
			acts[i].By.ID = *r.ActorID
		}
		if r.RequestedBy != nil && r.RequestEmail != nil {
			acts[i].RequestedBy = approval.Account{ID: *r.RequestedBy, Email: *r.RequestEmail}
		}
	}
	return acts, nil
}

// independenceWindow is DB.ApproverIndependence, or the default when unset.
func (db *DB) independenceWindow() time.Duration {
	if db.ApproverIndependence <= 0 {
		return DefaultApproverIndependence
	}
	return db.ApproverIndependence
}
