package store

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"strings"
	"time"

	"github.com/jmoiron/sqlx"

	"github.com/toolgate/toolgate/internal/apperr"
	"github.com/toolgate/toolgate/internal/approval"
	"github.com/toolgate/toolgate/internal/audit"
	"github.com/toolgate/toolgate/internal/auth"
	"github.com/toolgate/toolgate/internal/bundle"
	"github.com/toolgate/toolgate/internal/callgate"
	"github.com/toolgate/toolgate/internal/policy"
)

// GrantKey is what a grant is signed with: the console's active bundle
// signing key, and how long the grant is valid (R16).
type GrantKey struct {
	Key      bundle.SigningKey
	Lifetime time.Duration
}

// CallDecision is a console user's decision on a call request.
type CallDecision struct {
	UserID  int64
	ID      string
	Approve bool
	Comment string
	// Grant signs the grant of an approval.
	Grant GrantKey
}

// DecideCallRequest approves or denies a pending call request as the user
// d.UserID. The people rules are approval.MayDecideCall's (an approver
// who is not the principal for approve mode, and independent of the
// principal's console account when there is one; the principal alone for
// confirm mode), checked here so no handler can forget them
// (apperr.Forbidden); a request no longer pending is apperr.Conflict.
func (db *DB) DecideCallRequest(ctx context.Context, d CallDecision) (*CallRequest, error) {
	var out *CallRequest
	err := db.inTx(ctx, "decide call request", func(tx *sqlx.Tx) error {
		user, cr, err := db.callDecidable(ctx, tx, d.UserID, d.ID)
		if err != nil {
			return err
		}
		to, action := callgate.Denied, "deny"
		if d.Approve {
			to, action = callgate.Approved, "approve"
		}
		if cr.Mode == policy.PerCallConfirm {
			action = map[bool]string{true: "confirm", false: "decline"}[d.Approve]
		}
		if r := approval.CallTransition(cr.StateAt(db.Now()), to); r != nil {
			return apperr.Conflictf("%s", r.Message)
		}
		comment := strings.TrimSpace(d.Comment)
		if r := approval.DenyComment(cr.Mode, d.Approve, comment); r != nil {
			return apperr.Invalidf("%s", r.Message)
		}
		if d.Approve {
			err = db.grantCall(ctx, tx, cr, user.Email, comment, d.Grant, action)
		} else {
			err = db.denyCall(ctx, tx, cr, user.Email, comment)
		}
		if err != nil {
			return err
		}
		out, err = callRequestByID(ctx, tx, cr.ID)
		return err
	})
	if err != nil {
		return nil, err
	}
	db.calls.decided()
	return out, nil
}

// CheckCallDecider returns the refusal DecideCallRequest would give user
// for request id on who they are (not on the state), or nil: pages ask it
// before showing the decision form.
func (db *DB) CheckCallDecider(ctx context.Context, userID int64, id string) error {
	return db.readTx(ctx, "check call decider", func(tx *sqlx.Tx) error {
		_, _, err := db.callDecidable(ctx, tx, userID, id)
		return err
	})
}

// callDecidable loads the user and the request and enforces the people
// rules: MayDecideCall, then R10's independence of the approver from the
// principal's console accounts.
func (db *DB) callDecidable(ctx context.Context, tx *sqlx.Tx, userID int64, id string) (*User, *CallRequest, error) {
	user, err := userByID(ctx, tx, userID)
	if err != nil {
		return nil, nil, err
	}
	cr, err := callRequestByID(ctx, tx, id)
	if err != nil {
		return nil, nil, err
	}
	p := cr.CallPrincipal()
	if r := approval.MayDecideCall(user.CallDecider(), cr.Mode, p); r != nil {
		if r.Code == approval.NotThePrincipal {
			// Someone else's confirmation is not theirs to see either.
			return nil, nil, apperr.NotFoundf("The call request was not found.")
		}
		return nil, nil, apperr.Forbiddenf("%s", r.Message)
	}
	if cr.Mode == policy.PerCallApprove {
		if err := db.independentOfPrincipal(ctx, tx, user, p); err != nil {
			return nil, nil, err
		}
	}
	return user, cr, nil
}

// independentOfPrincipal refuses an approver who is not independent
// (approval.Independence) of a console account of the principal's.
func (db *DB) independentOfPrincipal(ctx context.Context, tx *sqlx.Tx, approver *User, p approval.CallPrincipal) error {
	if p.Subject == "" || p.Kind == "anonymous" {
		return nil
	}
	var accounts []struct {
		ID    int64  `db:"id"`
		Email string `db:"email"`
	}
	q, args := `SELECT id, email FROM users WHERE lower(email) = lower(?)`, []any{p.Subject}
	if p.Kind == "oidc" {
		q, args = q+` OR (provider <> '' AND subject = ?)`, append(args, p.Subject)
	}
	if err := tx.SelectContext(ctx, &accounts, q, args...); err != nil {
		return err
	}
	if len(accounts) == 0 {
		return nil
	}
	acts, err := db.controlActs(ctx, tx)
	if err != nil {
		return err
	}
	for _, a := range accounts {
		if err := db.independence(acts, approver, a.ID, a.Email); err != nil {
			return err
		}
	}
	return nil
}

// CallDecider is u as approval's call rules see them.
func (u *User) CallDecider() approval.CallDecider {
	d := approval.CallDecider{Account: approval.Account{ID: u.ID, Email: u.Email}, Approver: u.Has(auth.RoleApprover),
		Disabled: u.Disabled}
	if u.Managed() {
		d.Subject = u.Subject
	}
	return d
}

// CallPrincipal is the request's principal as approval's call rules see it.
func (r *CallRequest) CallPrincipal() approval.CallPrincipal {
	return approval.CallPrincipal{Kind: r.Principal.Kind, Subject: r.Principal.Subject}
}

// grantCall approves cr: a random nonce, a grant valid for k.Lifetime
// signed with k.Key, and the audit entry "call_request.<action>".
func (db *DB) grantCall(ctx context.Context, tx *sqlx.Tx, cr *CallRequest, by, comment string, k GrantKey, action string) error {
	if k.Key.Private == nil || k.Lifetime <= 0 {
		return apperr.Unavailablef("The console has no active signing key to sign the grant with.")
	}
	now := db.Now().UTC().Truncate(time.Second)
	nonce := make([]byte, 16)
	_, _ = rand.Read(nonce) // never fails (crypto/rand)
	g := bundle.Grant{ArgumentsDigest: cr.ArgumentsDigest, BundleVersion: cr.BundleVersion, CallRequest: cr.ID,
		DecidedBy: by, DefinitionDigest: cr.DefinitionDigest, IssuedAt: now, Mode: cr.Mode,
		Nonce: hex.EncodeToString(nonce), NotAfter: now.Add(k.Lifetime), Tool: cr.Tool,
		Principal: bundle.GrantPrincipal{ClientID: cr.Principal.ClientID, Kind: cr.Principal.Kind, Subject: cr.Principal.Subject}}
	signed, err := bundle.SignGrant(g, k.Key)
	if err != nil {
		return err
	}
	if err := db.setDecision(ctx, tx, cr, callgate.Approved, by, comment, `, grant_nonce = ?, grant_not_after = ?, grant_jws = ?`,
		g.Nonce, formatTime(g.NotAfter), string(signed)); err != nil {
		return err
	}
	return db.auditCallDecision(ctx, tx, cr, by, action, comment, map[string]any{"grant_not_after": g.NotAfter, "key_id": k.Key.KeyID})
}

// denyCall denies cr with the decider's comment.
func (db *DB) denyCall(ctx context.Context, tx *sqlx.Tx, cr *CallRequest, by, comment string) error {
	if err := db.setDecision(ctx, tx, cr, callgate.Denied, by, comment, ""); err != nil {
		return err
	}
	action := "deny"
	if cr.Mode == policy.PerCallConfirm {
		action = "decline"
	}
	return db.auditCallDecision(ctx, tx, cr, by, action, comment, nil)
}

// setDecision moves a pending request to state, with extra SET columns.
func (db *DB) setDecision(ctx context.Context, tx *sqlx.Tx, cr *CallRequest, state, by, comment, extra string, extraArgs ...any) error {
	args := append([]any{state, formatTime(db.Now()), by, comment}, extraArgs...)
	res, err := tx.ExecContext(ctx, `UPDATE call_requests SET state = ?, decided_at = ?, decided_by = ?, comment = ?`+extra+`
		WHERE id = ? AND state = 'pending'`, append(args, cr.ID)...)
	if err != nil {
		return err
	}
	if n, err := res.RowsAffected(); err != nil {
		return err
	} else if n != 1 {
		return apperr.Conflictf("This call request is no longer waiting for a decision.")
	}
	return nil
}

func (db *DB) auditCallDecision(ctx context.Context, tx *sqlx.Tx, cr *CallRequest, by, action, comment string, more map[string]any) error {
	return db.appendAudit(ctx, tx, callDecisionEntry(cr, by, action, comment, more))
}

// callDecisionEntry is the audit entry "call_request.<action>" of cr by
// by: the request's identity, with more and the comment.
func callDecisionEntry(cr *CallRequest, by, action, comment string, more map[string]any) audit.Entry {
	after := map[string]any{"request": cr.ID, "mode": cr.Mode, "principal": cr.PrincipalName(),
		"arguments_digest": cr.ArgumentsDigest, "bundle_version": cr.BundleVersion}
	for k, v := range more {
		after[k] = v
	}
	if comment != "" {
		after["comment"] = comment
	}
	return audit.Entry{Actor: by, Action: "call_request." + action, Subject: SubjectTool(cr.Tool), After: auditJSON(after)}
}
