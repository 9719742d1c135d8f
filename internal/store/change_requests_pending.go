package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"

	"github.com/jmoiron/sqlx"

	"github.com/toolgate/toolgate/internal/apperr"
)

// DuplicateRequestError is the Conflict CreateChangeRequest returns when
// the same change to the same tool is already waiting for a decision: two
// pending copies would be decided twice, and the second would always end
// void. ID is the pending request.
type DuplicateRequestError struct {
	ID  int64
	err *apperr.Error
}

func (e *DuplicateRequestError) Error() string { return e.err.Error() }

// Unwrap makes the error an apperr.Conflict for apperr.CodeOf.
func (e *DuplicateRequestError) Unwrap() error { return e.err }

// duplicatePending refuses a request when one of the same kind with the
// same "after" is pending for the tool.
func duplicatePending(ctx context.Context, tx *sqlx.Tx, toolID int64, kind ChangeKind, after string) error {
	var row struct {
		ID        int64  `db:"id"`
		Requester string `db:"email"`
	}
	err := tx.GetContext(ctx, &row, `SELECT c.id, u.email FROM change_requests c JOIN users u ON u.id = c.requested_by
		WHERE c.tool_id = ? AND c.kind = ? AND c.after_json = ? AND c.status = 'pending' ORDER BY c.id LIMIT 1`,
		toolID, kind, after)
	if errors.Is(err, sql.ErrNoRows) {
		return nil
	}
	if err != nil {
		return err
	}
	return &DuplicateRequestError{ID: row.ID, err: apperr.Conflictf(
		"The same change is already waiting for a decision: request #%d, asked by %s.", row.ID, row.Requester)}
}

// StaleReasons returns, for each pending request of list whose "before" no
// longer matches its tool (the policy or the risk class changed, or a
// re-import removed the tool), why; requests that still match are absent.
// Approving such a request would only void it, so Approvals says so first.
func (db *DB) StaleReasons(ctx context.Context, list []ChangeRequest) (map[int64]string, error) {
	out := map[int64]string{}
	err := db.readTx(ctx, "stale change requests", func(tx *sqlx.Tx) error {
		tools := map[int64]*PolicyRecord{}
		for i := range list {
			cr := &list[i]
			if cr.Status != StatusPending {
				continue
			}
			cur, ok := tools[cr.ToolID]
			if !ok {
				var err error
				cur, err = toolPolicyBy(ctx, tx, "t.id = ?", cr.ToolID)
				if apperr.CodeOf(err) == apperr.NotFound {
					out[cr.ID] = "A re-import removed the tool after the request was made."
					continue
				}
				if err != nil {
					return err
				}
				tools[cr.ToolID] = cur
			}
			why, err := staleness(cr, cur)
			if err != nil {
				return fmt.Errorf("change request %d: %w", cr.ID, err)
			}
			if why != "" {
				out[cr.ID] = why
			}
		}
		return nil
	})
	return out, err
}

// CheckApprover returns the refusal ApproveChangeRequest would give
// approverID on request id for who they are (not an approver, the
// requester, not independent of the requester), or nil. The approval's
// confirmation step asks first, so nobody confirms what will be refused.
func (db *DB) CheckApprover(ctx context.Context, approverID, id int64) error {
	return db.readTx(ctx, "check approver", func(tx *sqlx.Tx) error {
		approver, cr, err := decidable(ctx, tx, approverID, id)
		if err != nil {
			return err
		}
		return db.independent(ctx, tx, approver, cr.RequestedBy, cr.RequesterEmail)
	})
}

// NotIndependent returns, for each pending request of list that approverID
// could otherwise decide, why they are not independent of its requester
// (users_independence.go); requests they may approve are absent. Approvals
// shows it in place of the Approve button.
func (db *DB) NotIndependent(ctx context.Context, approverID int64, list []ChangeRequest) (map[int64]string, error) {
	out := map[int64]string{}
	err := db.readTx(ctx, "approver independence", func(tx *sqlx.Tx) error {
		approver, err := userByID(ctx, tx, approverID)
		if err != nil {
			return err
		}
		acts, err := db.controlActs(ctx, tx)
		if err != nil {
			return err
		}
		for i := range list {
			cr := &list[i]
			if cr.Status != StatusPending || cr.RequestedBy == approverID {
				continue
			}
			if err := db.independence(acts, approver, cr.RequestedBy, cr.RequesterEmail); err != nil {
				out[cr.ID] = apperr.MessageOf(err)
			}
		}
		return nil
	})
	return out, err
}
