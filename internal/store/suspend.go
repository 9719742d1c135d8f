package store

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"

	"github.com/jmoiron/sqlx"

	"github.com/toolgate/toolgate/internal/audit"
	"github.com/toolgate/toolgate/internal/policy"
)

// suspension turns one tool's exposure off for a reason.
type suspension struct{ tool, reason string }

// suspendTool turns exposure off with a reason the tool page shows, bumps
// the policy version (an open editor must reload) and audits it.
func (db *DB) suspendTool(ctx context.Context, tx *sqlx.Tx, actor, name, reason string) error {
	if err := db.suspendTools(ctx, tx, actor, []suspension{{name, reason}}); err != nil {
		return err
	}
	return db.appendAudit(ctx, tx, suspendAudit(actor, name, reason))
}

// suspendAudit is the audit entry of one suspension.
func suspendAudit(actor, name, reason string) audit.Entry {
	return audit.Entry{Actor: actor, Action: "tool.suspend", Subject: SubjectTool(name),
		Before: auditJSON(map[string]any{"exposed": true}), After: auditJSON(map[string]any{"exposed": false, "reason": reason})}
}

// suspendTools writes the suspensions in list, reading and updating the
// policies in a few statements however many there are; the caller audits
// each (suspendAudit).
func (db *DB) suspendTools(ctx context.Context, tx *sqlx.Tx, actor string, list []suspension) error {
	if len(list) == 0 {
		return nil
	}
	names := make([]string, len(list))
	for i, s := range list {
		names[i] = s.tool
	}
	type row struct {
		id     int64
		policy string
	}
	stored := make(map[string]row, len(list))
	err := db.queryBatches(ctx, tx, batchSQL{head: `SELECT t.name, t.id, p.policy_json FROM tools t
		JOIN tool_policies p ON p.tool_id = t.id WHERE t.name IN (`, row: `?`, tail: `)`}, inList(names),
		func(r *sqlx.Rows) error {
			var name string
			var v row
			if err := r.Scan(&name, &v.id, &v.policy); err != nil {
				return err
			}
			stored[name] = v
			return nil
		})
	if err != nil {
		return fmt.Errorf("suspend tools: %w", err)
	}
	rows := make([][]any, len(list))
	for i, s := range list {
		v, ok := stored[s.tool]
		if !ok {
			return fmt.Errorf("suspend tool %s: %w", s.tool, sql.ErrNoRows)
		}
		var p policy.Policy
		if err := json.Unmarshal([]byte(v.policy), &p); err != nil {
			return fmt.Errorf("suspend tool %s: decode policy: %w", s.tool, err)
		}
		p.Exposed = false
		rows[i] = []any{v.id, auditJSON(p), s.reason}
	}
	err = db.execBatches(ctx, tx, batchSQL{head: `UPDATE tool_policies SET policy_json = v.column2, exposed = 0,
		suspended_reason = v.column3, version = version + 1, updated_at = ?, updated_by = ? FROM (VALUES `,
		row: `(CAST(? AS BIGINT), ?, ?)`, tail: `) AS v WHERE tool_policies.tool_id = v.column1`,
		fixed: []any{formatTime(db.Now()), actor}}, rows)
	if err != nil {
		return fmt.Errorf("suspend tools: %w", err)
	}
	return nil
}
