package store

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/jmoiron/sqlx"

	"github.com/toolgate/toolgate/internal/apperr"
	"github.com/toolgate/toolgate/internal/audit"
	"github.com/toolgate/toolgate/internal/policy"
	"github.com/toolgate/toolgate/internal/risk"
)

// PolicyRecord is one tool's stored policy together with the facts about the
// tool that decide which changes of it need an approver (method, class).
type PolicyRecord struct {
	ToolID          int64
	ToolName        string
	Method          string
	Path            string
	Summary         string
	Class           risk.Class
	DetectedClass   risk.Class
	Reasons         []risk.Reason
	Policy          policy.Policy
	Version         int64
	SuspendedReason string
	UpdatedAt       time.Time
	UpdatedBy       string
}

// Subject is the audit subject of the tool ("tool:<name>").
func (r *PolicyRecord) Subject() string { return SubjectTool(r.ToolName) }

// SubjectTool is the audit subject of the tool named name.
func SubjectTool(name string) string { return "tool:" + name }

// PolicyConflictError is returned by SavePolicy when the tool's policy
// version moved since the editor loaded it: someone else saved in between.
// Current holds what is stored now, so the editor can show it and offer to
// reapply the person's own changes on top (no lost update).
type PolicyConflictError struct {
	Current *PolicyRecord
}

func (e *PolicyConflictError) Error() string {
	return fmt.Sprintf("tool %s: policy version is now %d", e.Current.ToolName, e.Current.Version)
}

// Unwrap makes the error an apperr.Conflict for the error handler.
func (e *PolicyConflictError) Unwrap() error {
	return apperr.Conflictf("Someone else saved this tool's policy after you opened it. Review the current values and reapply your changes.")
}

type policyRow struct {
	ToolID          int64  `db:"tool_id"`
	Name            string `db:"name"`
	Method          string `db:"method"`
	Path            string `db:"path"`
	Summary         string `db:"summary"`
	Class           string `db:"class"`
	DetectedClass   string `db:"detected_class"`
	ReasonsJSON     string `db:"reasons_json"`
	PolicyJSON      string `db:"policy_json"`
	Version         int64  `db:"version"`
	SuspendedReason string `db:"suspended_reason"`
	UpdatedAt       string `db:"updated_at"`
	UpdatedBy       string `db:"updated_by"`
}

const policySelect = `SELECT t.id AS tool_id, t.name, t.method, t.path, t.summary, t.class, t.detected_class,
	t.reasons_json, p.policy_json, p.version, p.suspended_reason, p.updated_at, p.updated_by
	FROM tools t JOIN tool_policies p ON p.tool_id = t.id`

func (r policyRow) record() (*PolicyRecord, error) {
	out := &PolicyRecord{ToolID: r.ToolID, ToolName: r.Name, Method: r.Method, Path: r.Path, Summary: r.Summary,
		Version: r.Version, SuspendedReason: r.SuspendedReason, UpdatedBy: r.UpdatedBy}
	var err error
	if out.Class, err = risk.ParseClass(r.Class); err != nil {
		return nil, err
	}
	if out.DetectedClass, err = risk.ParseClass(r.DetectedClass); err != nil {
		return nil, err
	}
	if err := json.Unmarshal([]byte(r.ReasonsJSON), &out.Reasons); err != nil {
		return nil, fmt.Errorf("tool %s reasons: %w", r.Name, err)
	}
	if err := json.Unmarshal([]byte(r.PolicyJSON), &out.Policy); err != nil {
		return nil, fmt.Errorf("tool %s policy: %w", r.Name, err)
	}
	if out.UpdatedAt, err = parseTime(r.UpdatedAt); err != nil {
		return nil, err
	}
	return out, nil
}

// toolPolicyBy loads one tool's policy record by "t.id = ?" or "t.name = ?".
func toolPolicyBy(ctx context.Context, tx *sqlx.Tx, where string, arg any) (*PolicyRecord, error) {
	var row policyRow
	if err := tx.GetContext(ctx, &row, policySelect+` WHERE `+where+` AND t.removed_at IS NULL`, arg); err != nil {
		return nil, notFound(err, "The tool")
	}
	return row.record()
}

// ToolPolicy returns the stored policy of the tool with id toolID.
func (db *DB) ToolPolicy(ctx context.Context, toolID int64) (*PolicyRecord, error) {
	var out *PolicyRecord
	err := db.readTx(ctx, "tool policy", func(tx *sqlx.Tx) error {
		var err error
		out, err = toolPolicyBy(ctx, tx, "t.id = ?", toolID)
		return err
	})
	return out, err
}

// ToolPolicyByName returns the stored policy of the tool called name.
func (db *DB) ToolPolicyByName(ctx context.Context, name string) (*PolicyRecord, error) {
	var out *PolicyRecord
	err := db.readTx(ctx, "tool policy by name", func(tx *sqlx.Tx) error {
		var err error
		out, err = toolPolicyBy(ctx, tx, "t.name = ?", name)
		return err
	})
	return out, err
}

// ErrNeedsApproval is what SavePolicy refuses: a change R2 makes an
// explicit per-tool act, or R10 puts in front of an approver.
var ErrNeedsApproval = errors.New("policy change needs an explicit action and approval")

// SavePolicy stores newPolicy as the policy of tool toolID, audited as
// "policy.edit" with before and after. expectedVersion is the version the
// editor loaded; if the stored version moved, nothing is written and the
// error is a *PolicyConflictError carrying the current record.
//
// Only ordinary edits pass: a change for which policy.ApprovalNeeded or
// policy.Explicit is not empty is refused (apperr.Invalid wrapping
// ErrNeedsApproval) — those go through CreateChangeRequest.
func (db *DB) SavePolicy(ctx context.Context, actor string, toolID, expectedVersion int64, newPolicy policy.Policy) (*PolicyRecord, error) {
	if err := newPolicy.Validate(); err != nil {
		return nil, validationProblem(err)
	}
	var out *PolicyRecord
	err := db.inTx(ctx, "save policy", func(tx *sqlx.Tx) error {
		cur, err := toolPolicyBy(ctx, tx, "t.id = ?", toolID)
		if err != nil {
			return err
		}
		if cur.Version != expectedVersion {
			return &PolicyConflictError{Current: cur}
		}
		if err := ordinaryEdit(cur, newPolicy); err != nil {
			return err
		}
		if err := publishable(ctx, tx, cur, newPolicy); err != nil {
			return err
		}
		if policy.Equal(cur.Policy, newPolicy) {
			out = cur
			return nil
		}
		if err := db.writePolicy(ctx, tx, actor, cur, newPolicy); err != nil {
			return err
		}
		if err := db.appendAudit(ctx, tx, audit.Entry{Actor: actor, Action: "policy.edit", Subject: cur.Subject(),
			Before: auditJSON(cur.Policy), After: auditJSON(newPolicy)}); err != nil {
			return err
		}
		out, err = toolPolicyBy(ctx, tx, "t.id = ?", toolID)
		return err
	})
	return out, err
}

// ordinaryEdit refuses a change that needs an explicit, approved action.
func ordinaryEdit(cur *PolicyRecord, next policy.Policy) error {
	var needs []string
	for _, a := range policy.ApprovalNeeded(cur.Method, cur.Class, cur.Policy, next) {
		needs = append(needs, strings.ToLower(a.Title()))
	}
	if len(needs) == 0 {
		for _, f := range policy.Explicit(cur.Method, cur.Policy, next) {
			needs = append(needs, "changing "+f+" of a "+cur.Method+" tool")
		}
	}
	if len(needs) == 0 {
		return nil
	}
	return errors.Join(apperr.Invalidf("This change needs an explicit action and a security approver (%s). "+
		"Use the action buttons next to the editor; nothing was saved.", strings.Join(needs, "; ")), ErrNeedsApproval)
}

// writePolicy replaces the stored policy, bumping its version. Exposing a
// tool clears a suspension: someone has looked at it again.
func (db *DB) writePolicy(ctx context.Context, tx *sqlx.Tx, actor string, cur *PolicyRecord, p policy.Policy) error {
	if p.Exposed && !cur.Policy.Exposed {
		if err := checkSchemaGaps(ctx, tx, cur.ToolID); err != nil {
			return err
		}
	}
	suspended := cur.SuspendedReason
	if p.Exposed {
		suspended = ""
	}
	res, err := tx.ExecContext(ctx, `UPDATE tool_policies SET policy_json = ?, exposed = ?, suspended_reason = ?,
		version = version + 1, updated_at = ?, updated_by = ? WHERE tool_id = ? AND version = ?`,
		auditJSON(p), p.Exposed, suspended, formatTime(db.Now()), actor, cur.ToolID, cur.Version)
	if err != nil {
		return err
	}
	if n, err := res.RowsAffected(); err != nil || n != 1 {
		return fmt.Errorf("write policy of tool %d: %d rows updated (%v)", cur.ToolID, n, err)
	}
	return nil
}

// validationProblem turns a policy.ValidationError into an apperr.Invalid
// (keeping the original for callers that show per-field messages).
func validationProblem(err error) error {
	var ve *policy.ValidationError
	if errors.As(err, &ve) {
		return errors.Join(apperr.Invalidf("%s", ve.Error()), ve)
	}
	return err
}
