package store

import (
	"context"
	"time"

	"github.com/jmoiron/sqlx"
)

// RecentApproval is an approved change request with who asked and who
// approved, and whether each account is local (not managed by an identity
// provider): the dashboard warns about approvals one person could have
// given (approval.CouldBeOnePerson).
type RecentApproval struct {
	RequestID      int64
	ToolName       string
	Requester      string
	Approver       string
	RequesterLocal bool
	ApproverLocal  bool
	DecidedAt      time.Time
}

// RecentApprovals returns the approvals decided at or after since, newest
// first, at most limit.
func (db *DB) RecentApprovals(ctx context.Context, since time.Time, limit int) ([]RecentApproval, error) {
	var rows []struct {
		ID                int64  `db:"id"`
		Tool              string `db:"tool_name"`
		Requester         string `db:"requester"`
		RequesterProvider string `db:"requester_provider"`
		Approver          string `db:"approver"`
		ApproverProvider  string `db:"approver_provider"`
		DecidedAt         string `db:"decided_at"`
	}
	err := db.readTx(ctx, "recent approvals", func(tx *sqlx.Tx) error {
		return tx.SelectContext(ctx, &rows, `SELECT c.id, t.name AS tool_name, r.email AS requester,
				r.provider AS requester_provider, d.email AS approver, d.provider AS approver_provider, c.decided_at
			FROM change_requests c JOIN tools t ON t.id = c.tool_id JOIN users r ON r.id = c.requested_by
			JOIN users d ON d.id = c.decided_by
			WHERE c.status = 'approved' AND c.decided_at >= ? ORDER BY c.decided_at DESC, c.id DESC LIMIT ?`,
			formatTime(since), limit)
	})
	if err != nil {
		return nil, err
	}
	out := make([]RecentApproval, len(rows))
	for i, r := range rows {
		at, err := parseTime(r.DecidedAt)
		if err != nil {
			return nil, err
		}
		out[i] = RecentApproval{RequestID: r.ID, ToolName: r.Tool, Requester: r.Requester, Approver: r.Approver,
			RequesterLocal: r.RequesterProvider == "", ApproverLocal: r.ApproverProvider == "", DecidedAt: at}
	}
	return out, nil
}
