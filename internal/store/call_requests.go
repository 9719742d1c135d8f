package store

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/jmoiron/sqlx"

	"github.com/toolgate/toolgate/internal/apperr"
	"github.com/toolgate/toolgate/internal/approval"
	"github.com/toolgate/toolgate/internal/audit"
	"github.com/toolgate/toolgate/internal/callgate"
	"github.com/toolgate/toolgate/internal/callrecord"
)

// CallRequest is one stored call request (R16): a call a runtime asked a
// person about, its decision and, once approved, its grant.
type CallRequest struct {
	ID               string
	Tool             string
	DefinitionDigest string
	ArgumentsDigest  string
	// Arguments are the masked arguments as JSON (an object).
	Arguments     json.RawMessage
	Mode          string
	Reason        string
	RiskClass     string
	Principal     callgate.Principal
	BundleVersion int64
	TokenID       int64
	Instance      string
	State         string
	CreatedAt     time.Time
	// ExpiresAt ends a pending request; a denied one is answered until then.
	ExpiresAt time.Time
	DecidedAt time.Time // zero while pending
	DecidedBy string
	Comment   string
	// GrantNonce, GrantNotAfter and Grant (the compact JWS) are set once
	// approved.
	GrantNonce    string
	GrantNotAfter time.Time
	Grant         string
	ConsumedAt    time.Time
	ConsumedBy    string
}

// StateAt is the request's state at now: a pending request past its
// expiry, or an approved one past its grant's not_after, is expired even
// before the background loop closes it (ExpireCallRequests).
func (r *CallRequest) StateAt(now time.Time) string {
	switch {
	case r.State == callgate.Pending && !now.Before(r.ExpiresAt):
		return callgate.Expired
	case r.State == callgate.Approved && !now.Before(r.GrantNotAfter):
		return callgate.Expired
	}
	return r.State
}

// PrincipalName is how the principal is named in the audit log and on
// pages: kind:subject (kind alone without a subject).
func (r *CallRequest) PrincipalName() string { return principalName(r.Principal) }

func principalName(p callgate.Principal) string {
	if p.Subject == "" {
		return p.Kind
	}
	return p.Kind + ":" + p.Subject
}

// NewCallRequest is what FileCallRequest stores: a request the runtime API
// checked (schema, sizes, mode, the tool in its bundle version).
type NewCallRequest struct {
	callgate.Request
	TokenID   int64
	RiskClass string
	// Lifetime is how long the request waits for a decision.
	Lifetime time.Duration
	Limits   approval.Limits
	// Grant signs the grant when the request is Confirmed (confirm mode,
	// decided by the principal in their client).
	Grant GrantKey
}

// callRequestColumns are the columns callRequestRow reads.
const callRequestColumns = `id, tool, definition_digest, arguments_digest, arguments, mode, reason, risk_class,
	principal_kind, principal_subject, principal_client, principal_groups, bundle_version, token_id, instance, state,
	created_at, expires_at, decided_at, decided_by, comment, grant_nonce, grant_not_after, grant_jws, consumed_at, consumed_by`

// FileCallRequest stores a call request, or returns the open one with the
// same identity (principal, tool, definition digest, arguments digest,
// bundle version): pending, approved with its grant unspent, or denied
// until its expiry. created says which. A new request over the pending
// limits is refused (apperr.TooMany) and nothing is stored. A Confirmed
// request is decided by its principal at once and returned approved.
func (db *DB) FileCallRequest(ctx context.Context, in NewCallRequest) (cr *CallRequest, created bool, err error) {
	err = db.inTx(ctx, "file call request", func(tx *sqlx.Tx) error {
		now := db.Now()
		open, err := openCallRequest(ctx, tx, in.Request, now)
		if err != nil {
			return err
		}
		if open != nil && !(in.Confirmed && open.State == callgate.Pending) {
			cr = open
			return nil
		}
		if open == nil {
			if !in.Confirmed {
				if err := checkCallLimits(ctx, tx, in, now); err != nil {
					return err
				}
			}
			if open, err = db.insertCallRequest(ctx, tx, in, now); err != nil {
				return err
			}
			created = true
		}
		if in.Confirmed {
			if err := db.grantCall(ctx, tx, open, principalName(open.Principal), "", in.Grant, "confirm"); err != nil {
				return err
			}
		}
		cr, err = callRequestByID(ctx, tx, open.ID)
		return err
	})
	if err == nil && in.Confirmed {
		db.calls.decided()
	}
	return cr, created, err
}

// openCallRequest finds the open request with r's identity, or nil.
func openCallRequest(ctx context.Context, tx *sqlx.Tx, r callgate.Request, now time.Time) (*CallRequest, error) {
	at := formatTime(now)
	var row callRequestRow
	err := tx.GetContext(ctx, &row, `SELECT `+callRequestColumns+` FROM call_requests
		WHERE principal_kind = ? AND principal_subject = ? AND principal_client = ? AND tool = ?
			AND arguments_digest = ? AND definition_digest = ? AND bundle_version = ?
			AND ((state IN ('pending', 'denied') AND expires_at > ?) OR (state = 'approved' AND grant_not_after > ?))
		ORDER BY created_at DESC LIMIT 1`, r.Principal.Kind, r.Principal.Subject, r.Principal.ClientID, r.Tool,
		r.ArgumentsDigest, r.DefinitionDigest, r.BundleVersion, at, at)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	return row.request()
}

// checkCallLimits refuses a new request when the principal or the tool
// already has as many pending requests as the limits allow.
func checkCallLimits(ctx context.Context, tx *sqlx.Tx, in NewCallRequest, now time.Time) error {
	var byPrincipal, byTool int
	at := formatTime(now)
	if err := tx.GetContext(ctx, &byPrincipal, `SELECT count(*) FROM call_requests WHERE state = 'pending'
		AND expires_at > ? AND principal_kind = ? AND principal_subject = ?`, at, in.Principal.Kind, in.Principal.Subject); err != nil {
		return err
	}
	if err := tx.GetContext(ctx, &byTool, `SELECT count(*) FROM call_requests WHERE state = 'pending'
		AND expires_at > ? AND tool = ?`, at, in.Tool); err != nil {
		return err
	}
	if r := in.Limits.Over(byPrincipal, byTool, in.Tool); r != nil {
		return apperr.Errorf(apperr.TooMany, "%s", r.Message)
	}
	return nil
}

func (db *DB) insertCallRequest(ctx context.Context, tx *sqlx.Tx, in NewCallRequest, now time.Time) (*CallRequest, error) {
	args, err := json.Marshal(in.Arguments)
	if err != nil {
		return nil, fmt.Errorf("call request arguments: %w", err)
	}
	groups, err := json.Marshal(append([]string{}, in.Principal.Groups...))
	if err != nil {
		return nil, err
	}
	id := callrecord.NewID()
	if _, err := tx.ExecContext(ctx, `INSERT INTO call_requests (id, tool, definition_digest, arguments_digest,
			arguments, mode, reason, risk_class, principal_kind, principal_subject, principal_client, principal_groups,
			bundle_version, token_id, instance, state, created_at, expires_at)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, 'pending', ?, ?)`, id, in.Tool, in.DefinitionDigest,
		in.ArgumentsDigest, string(args), in.Mode, in.Reason, in.RiskClass, in.Principal.Kind, in.Principal.Subject,
		in.Principal.ClientID, string(groups), in.BundleVersion, in.TokenID, in.Instance, formatTime(now),
		formatTime(now.Add(in.Lifetime))); err != nil {
		return nil, err
	}
	after := map[string]any{"request": id, "mode": in.Mode, "arguments_digest": in.ArgumentsDigest,
		"bundle_version": in.BundleVersion, "instance": in.Instance}
	if in.Reason != "" {
		after["reason"] = in.Reason
	}
	if err := db.appendAudit(ctx, tx, audit.Entry{Actor: principalName(in.Principal), Action: "call_request.file",
		Subject: SubjectTool(in.Tool), After: auditJSON(after)}); err != nil {
		return nil, err
	}
	return callRequestByID(ctx, tx, id)
}

// CallRequest returns one call request by id (apperr.NotFound).
func (db *DB) CallRequest(ctx context.Context, id string) (*CallRequest, error) {
	var cr *CallRequest
	err := db.readTx(ctx, "call request", func(tx *sqlx.Tx) error {
		var err error
		cr, err = callRequestByID(ctx, tx, id)
		return err
	})
	return cr, err
}

func callRequestByID(ctx context.Context, tx *sqlx.Tx, id string) (*CallRequest, error) {
	var row callRequestRow
	if err := tx.GetContext(ctx, &row, `SELECT `+callRequestColumns+` FROM call_requests WHERE id = ?`, id); err != nil {
		return nil, notFound(err, "The call request")
	}
	return row.request()
}

// PendingCallRequests returns the requests of mode ("" for both) waiting
// for a decision now, oldest first, at most limit.
func (db *DB) PendingCallRequests(ctx context.Context, mode string, limit int) ([]CallRequest, error) {
	var out []CallRequest
	err := db.readTx(ctx, "pending call requests", func(tx *sqlx.Tx) error {
		q, args := `SELECT `+callRequestColumns+` FROM call_requests WHERE state = 'pending' AND expires_at > ?`,
			[]any{formatTime(db.Now())}
		if mode != "" {
			q, args = q+` AND mode = ?`, append(args, mode)
		}
		var rows []callRequestRow
		if err := tx.SelectContext(ctx, &rows, q+` ORDER BY created_at, id LIMIT ?`, append(args, sqlLimit(limit))...); err != nil {
			return err
		}
		for _, r := range rows {
			cr, err := r.request()
			if err != nil {
				return err
			}
			out = append(out, *cr)
		}
		return nil
	})
	return out, err
}
