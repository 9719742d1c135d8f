package store

import (
	"context"
	"encoding/json"
	"strings"

	"github.com/jmoiron/sqlx"

	"github.com/toolgate/toolgate/internal/apperr"
	"github.com/toolgate/toolgate/internal/approval"
	"github.com/toolgate/toolgate/internal/audit"
	"github.com/toolgate/toolgate/internal/auth"
	"github.com/toolgate/toolgate/internal/policy"
)

// ApproveChangeRequest approves request id as the user approverID and
// applies its "after" in the same transaction — but only while the tool's
// current state still equals the request's "before" (R10). If the tool
// changed since, the request becomes void with the reason, and the
// returned request says so (Status StatusVoid): the approver approved a
// diff that no longer exists.
//
// The approver must be an enabled user holding the approver role, not the
// requester, and independent of the requester (users_independence.go)
// (apperr.Forbidden): the store checks this itself, so no handler can
// forget it.
func (db *DB) ApproveChangeRequest(ctx context.Context, approverID, id int64, comment string) (*ChangeRequest, error) {
	err := db.inTx(ctx, "approve change request", func(tx *sqlx.Tx) error {
		approver, cr, err := decidable(ctx, tx, approverID, id)
		if err != nil {
			return err
		}
		if err := db.independent(ctx, tx, approver, cr.RequestedBy, cr.RequesterEmail); err != nil {
			return err
		}
		cur, err := toolPolicyBy(ctx, tx, "t.id = ?", cr.ToolID)
		if err != nil {
			return err
		}
		if why, err := staleness(cr, cur); err != nil {
			return err
		} else if why != "" {
			return db.voidRequest(ctx, tx, approver, cr, why)
		}
		if why, err := definitionStaleness(ctx, tx, cr, cur); err != nil {
			return err
		} else if why != "" {
			return db.voidRequest(ctx, tx, approver, cr, why)
		}
		if err := db.applyRequest(ctx, tx, approver.Email, cr, cur); err != nil {
			return err
		}
		return db.decide(ctx, tx, approver.Email, cr, StatusApproved, &approver.ID, strings.TrimSpace(comment), "")
	})
	if err != nil {
		return nil, err
	}
	return db.ChangeRequest(ctx, id)
}

// RejectChangeRequest rejects request id with a comment (required: the
// requester should learn why). Same role rules as approving.
func (db *DB) RejectChangeRequest(ctx context.Context, approverID, id int64, comment string) (*ChangeRequest, error) {
	comment = strings.TrimSpace(comment)
	if comment == "" {
		return nil, apperr.Invalidf("Say why you reject the request: the requester reads it.")
	}
	err := db.inTx(ctx, "reject change request", func(tx *sqlx.Tx) error {
		approver, cr, err := decidable(ctx, tx, approverID, id)
		if err != nil {
			return err
		}
		return db.decide(ctx, tx, approver.Email, cr, StatusRejected, &approver.ID, comment, "")
	})
	if err != nil {
		return nil, err
	}
	return db.ChangeRequest(ctx, id)
}

// WithdrawChangeRequest withdraws a pending request; only its requester
// may (apperr.Forbidden otherwise).
func (db *DB) WithdrawChangeRequest(ctx context.Context, userID, id int64) (*ChangeRequest, error) {
	err := db.inTx(ctx, "withdraw change request", func(tx *sqlx.Tx) error {
		cr, err := pendingRequest(ctx, tx, id)
		if err != nil {
			return err
		}
		if cr.RequestedBy != userID {
			return apperr.Forbiddenf("Only the person who asked for a change can withdraw it.")
		}
		return db.decide(ctx, tx, cr.RequesterEmail, cr, StatusWithdrawn, nil, "", "")
	})
	if err != nil {
		return nil, err
	}
	return db.ChangeRequest(ctx, id)
}

func pendingRequest(ctx context.Context, tx *sqlx.Tx, id int64) (*ChangeRequest, error) {
	cr, err := changeRequestByID(ctx, tx, id)
	if err != nil {
		return nil, err
	}
	if cr.Status != StatusPending {
		return nil, apperr.Conflictf("This request is no longer pending (it is %s).", cr.Status)
	}
	return cr, nil
}

// decidable loads the approver and the pending request and enforces R10's
// people rules: an enabled approver who is not the requester
// (approval.MayDecide).
func decidable(ctx context.Context, tx *sqlx.Tx, approverID, id int64) (*User, *ChangeRequest, error) {
	approver, err := userByID(ctx, tx, approverID)
	if err != nil {
		return nil, nil, err
	}
	d := approval.Decider{Account: approval.Account{ID: approver.ID, Email: approver.Email},
		Approver: approver.Has(auth.RoleApprover), Disabled: approver.Disabled}
	// Who they are first (no requester yet: 0 is nobody's id), so that a
	// non-approver learns nothing about the request.
	if r := approval.MayDecide(d, 0); r != nil {
		return nil, nil, apperr.Forbiddenf("%s", r.Message)
	}
	cr, err := pendingRequest(ctx, tx, id)
	if err != nil {
		return nil, nil, err
	}
	if r := approval.MayDecide(d, cr.RequestedBy); r != nil {
		return nil, nil, apperr.Forbiddenf("%s", r.Message)
	}
	return approver, cr, nil
}

// staleness returns why the request no longer matches the tool, or "".
func staleness(cr *ChangeRequest, cur *PolicyRecord) (string, error) {
	if cr.Kind == KindLowerRisk {
		before, _, err := cr.Classes()
		if err != nil {
			return "", err
		}
		if cur.Class != before {
			return "The tool's risk class changed from " + before.String() + " to " + cur.Class.String() +
				" after the request was made.", nil
		}
		return "", nil
	}
	if cr.ClassAtRequest != 0 && cr.ClassAtRequest != cur.Class {
		return "The tool's risk class changed from " + cr.ClassAtRequest.String() + " to " + cur.Class.String() +
			" after the request was made, so the approver would not be approving what was asked.", nil
	}
	before, _, err := cr.Policies()
	if err != nil {
		return "", err
	}
	if changes := policy.Diff(before, cur.Policy); len(changes) > 0 {
		fields := make([]string, len(changes))
		for i, c := range changes {
			fields[i] = c.Field
		}
		return "The tool's policy changed after the request was made (" + strings.Join(fields, ", ") +
			"), so the approved diff would not be the one applied.", nil
	}
	return "", nil
}

// applyRequest writes the request's "after" to the tool.
func (db *DB) applyRequest(ctx context.Context, tx *sqlx.Tx, actor string, cr *ChangeRequest, cur *PolicyRecord) error {
	if cr.Kind == KindLowerRisk {
		_, after, err := cr.Classes()
		if err != nil {
			return err
		}
		if _, err := tx.ExecContext(ctx, `UPDATE tools SET class = ?, risk_override_reason = ?, risk_override_by = ?,
			updated_at = ? WHERE id = ?`, after.String(), cr.Reason, cr.RequesterEmail+", approved by "+actor,
			formatTime(db.Now()), cr.ToolID); err != nil {
			return err
		}
		return db.bumpPolicyVersion(ctx, tx, actor, cr.ToolID)
	}
	_, after, err := cr.Policies()
	if err != nil {
		return err
	}
	return db.writePolicy(ctx, tx, actor, cur, after)
}

// bumpPolicyVersion moves a tool's policy version without changing the
// policy, after its risk class changed: an editor open on the old class
// judged its changes against it and must reload (SavePolicy answers with a
// *PolicyConflictError).
func (db *DB) bumpPolicyVersion(ctx context.Context, tx *sqlx.Tx, actor string, toolID int64) error {
	_, err := tx.ExecContext(ctx, `UPDATE tool_policies SET version = version + 1, updated_at = ?, updated_by = ?
		WHERE tool_id = ?`, formatTime(db.Now()), actor, toolID)
	return err
}

func (db *DB) voidRequest(ctx context.Context, tx *sqlx.Tx, approver *User, cr *ChangeRequest, why string) error {
	return db.decide(ctx, tx, approver.Email, cr, StatusVoid, &approver.ID, "", why)
}

// decide records the outcome of a pending request and audits it as
// "change_request.<status>" on the tool, with the request's before/after.
func (db *DB) decide(ctx context.Context, tx *sqlx.Tx, actor string, cr *ChangeRequest, status string, by *int64, comment, voidReason string) error {
	res, err := tx.ExecContext(ctx, `UPDATE change_requests SET status = ?, decided_by = ?, decided_at = ?,
		decision_comment = ?, void_reason = ? WHERE id = ? AND status = 'pending'`,
		status, by, formatTime(db.Now()), comment, voidReason, cr.ID)
	if err != nil {
		return err
	}
	n, err := res.RowsAffected()
	if err != nil {
		return err
	}
	if n != 1 {
		return apperr.Conflictf("This request is no longer pending.")
	}
	after := map[string]any{"request": cr.ID, "kind": cr.Kind, "status": status, "after": json.RawMessage(cr.After)}
	if comment != "" {
		after["comment"] = comment
	}
	if voidReason != "" {
		after["void_reason"] = voidReason
	}
	return db.appendAudit(ctx, tx, audit.Entry{Actor: actor, Action: "change_request." + actionOf[status],
		Subject: SubjectTool(cr.ToolName), Before: cr.Before, After: auditJSON(after)})
}

// actionOf names the audit action of each outcome.
var actionOf = map[string]string{
	StatusApproved:  "approve",
	StatusRejected:  "reject",
	StatusWithdrawn: "withdraw",
	StatusVoid:      "void",
}
