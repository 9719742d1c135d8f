package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"

	"github.com/jmoiron/sqlx"

	"github.com/toolgate/toolgate/internal/apperr"
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
// Independence at approval: an approval is refused when, within the
// DB.ApproverIndependence window (default 7 days), the requester created,
// gave the approver role to, re-enabled or reset the password of the
// approving account, or the approver did any of these to the requester's
// account, or such an act was done on the host at the other's request
// (NewUser.RequestedBy). Both directions count: one person holding an
// approver account could otherwise create an admin account, ask from it,
// and approve as themselves. The acts are recorded in account_acts (one
// indexed query) as well as in the audit log.

// OperatorActor is the actor recorded for account changes made on the host
// with the toolgate CLI: an operator act, not a console account. The
// address is reserved; no console user can have it.
const OperatorActor = "operator@host"

// DefaultApproverIndependence is how long an account cannot approve the
// requests of the person who created, promoted, re-enabled or reset it.
const DefaultApproverIndependence = 7 * 24 * time.Hour

// The kinds of account act recorded for the independence check.
const (
	actCreate        = "create"
	actGrantApprover = "grant_approver"
	actEnable        = "enable"
	actPasswordReset = "password_reset"
)

// actVerb says what an act did, for refusal messages.
var actVerb = map[string]string{
	actCreate:        "created",
	actGrantApprover: "gave the approver role to",
	actEnable:        "re-enabled",
	actPasswordReset: "reset the password of",
}

// actPassive is actVerb in the passive voice.
var actPassive = map[string]string{
	actCreate:        "created",
	actGrantApprover: "given the approver role",
	actEnable:        "re-enabled",
	actPasswordReset: "given a new password",
}

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
// when account_acts links the two within the window (see above).
func (db *DB) independent(ctx context.Context, tx *sqlx.Tx, approver *User, requester int64, requesterEmail string) error {
	window := db.ApproverIndependence
	if window <= 0 {
		window = DefaultApproverIndependence
	}
	var row struct {
		Subject int64  `db:"subject_id"`
		Act     string `db:"act"`
		ActorID *int64 `db:"actor_id"`
		Actor   string `db:"actor"`
		At      string `db:"at"`
	}
	// The message names one act: the creation when there is one (it says
	// most), else the latest.
	err := tx.GetContext(ctx, &row, `SELECT subject_id, act, actor_id, actor, at FROM account_acts
		WHERE at > ? AND (
			(subject_id = ? AND (actor_id = ? OR requested_by = ?)) OR
			(subject_id = ? AND (actor_id = ? OR requested_by = ?)))
		ORDER BY act = 'create' DESC, at DESC, id LIMIT 1`,
		formatTime(db.Now().Add(-window)), approver.ID, requester, requester, requester, approver.ID, approver.ID)
	if errors.Is(err, sql.ErrNoRows) {
		return nil
	}
	if err != nil {
		return err
	}
	at, err := parseTime(row.At)
	if err != nil {
		return err
	}
	var what string
	byOther := row.ActorID != nil && (*row.ActorID == requester || *row.ActorID == approver.ID)
	switch {
	case row.Subject == approver.ID && byOther:
		what = fmt.Sprintf("its requester %s %s your account", requesterEmail, actVerb[row.Act])
	case row.Subject == approver.ID:
		what = fmt.Sprintf("%s %s your account at the request of its requester %s", row.Actor, actVerb[row.Act], requesterEmail)
	case byOther:
		what = fmt.Sprintf("you %s the account of its requester %s", actVerb[row.Act], requesterEmail)
	default:
		what = fmt.Sprintf("the account of its requester %s was %s at your request", requesterEmail, actPassive[row.Act])
	}
	const layout = "2006-01-02 15:04 UTC"
	return apperr.Forbiddenf("You cannot approve this request: %s on %s, "+
		"less than %s ago. An approver must be independent of the requester (R10): another approver must "+
		"decide it, or you can from %s.", what, at.UTC().Format(layout), formatWindow(window),
		at.Add(window).UTC().Format(layout))
}

func formatWindow(d time.Duration) string {
	if d%(24*time.Hour) == 0 {
		if n := d / (24 * time.Hour); n != 1 {
			return fmt.Sprintf("%d days", n)
		}
		return "1 day"
	}
	return d.String()
}
