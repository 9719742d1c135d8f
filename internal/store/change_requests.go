package store

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/jmoiron/sqlx"

	"github.com/toolgate/toolgate/internal/apperr"
	"github.com/toolgate/toolgate/internal/audit"
	"github.com/toolgate/toolgate/internal/policy"
	"github.com/toolgate/toolgate/internal/risk"
)

// ChangeKind is what a change request asks for (R10). The values are the
// ones the change_requests table accepts.
type ChangeKind string

// The kinds of change request.
const (
	KindExposeRisky         ChangeKind = "expose_risky"
	KindEnableMutationRetry ChangeKind = "enable_mutation_retry"
	KindLowerRisk           ChangeKind = "lower_risk"
)

// Title is the kind as the approvals page names it. The kinds are the
// policy package's R10 actions under the same names.
func (k ChangeKind) Title() string { return policy.Action(k).Title() }

// Change request statuses.
const (
	StatusPending   = "pending"
	StatusApproved  = "approved"
	StatusRejected  = "rejected"
	StatusWithdrawn = "withdrawn"
	StatusVoid      = "void"
)

// ClassState is the before/after of a lower_risk request.
type ClassState struct {
	Class risk.Class `json:"class"`
}

// ChangeRequest is one proposed change to one tool. Before and After are
// the exact stored states: policy.Policy JSON for the policy kinds,
// ClassState JSON for lower_risk.
type ChangeRequest struct {
	ID       int64
	ToolID   int64
	ToolName string
	Method   string
	Class    risk.Class // the tool's class now
	// ClassAtRequest is the tool's class when the request was made (0 for
	// requests older than that record).
	ClassAtRequest risk.Class
	Reasons        []risk.Reason
	Kind           ChangeKind
	Reason         string
	Before         string
	After          string
	Status         string
	RequestedBy    int64
	RequesterEmail string
	RequestedAt    time.Time
	DecidedBy      int64 // 0 when undecided or withdrawn
	DeciderEmail   string
	DecidedAt      time.Time // zero while pending
	Comment        string
	VoidReason     string
	// DefinitionDigest is the tool's definition digest (R13) as it would
	// be published once the request applies, when the request was made:
	// what the approver approves. "" for requests older than that record.
	DefinitionDigest string
}

// Policies decodes Before and After of a policy kind.
func (r *ChangeRequest) Policies() (before, after policy.Policy, err error) {
	if err = json.Unmarshal([]byte(r.Before), &before); err == nil {
		err = json.Unmarshal([]byte(r.After), &after)
	}
	return before, after, err
}

// Classes decodes Before and After of a lower_risk request.
func (r *ChangeRequest) Classes() (before, after risk.Class, err error) {
	var b, a ClassState
	if err = json.Unmarshal([]byte(r.Before), &b); err == nil {
		err = json.Unmarshal([]byte(r.After), &a)
	}
	return b.Class, a.Class, err
}

// Diff lists the changed fields for display: policy.Diff for the policy
// kinds, the class for lower_risk.
func (r *ChangeRequest) Diff() ([]policy.FieldChange, error) {
	if r.Kind == KindLowerRisk {
		b, a, err := r.Classes()
		if err != nil {
			return nil, err
		}
		return []policy.FieldChange{{Field: "risk class", Before: b.String(), After: a.String()}}, nil
	}
	b, a, err := r.Policies()
	if err != nil {
		return nil, err
	}
	return policy.Diff(b, a), nil
}

// NewChangeRequest is what an admin asks for. Policy is the complete
// proposed policy for the policy kinds; NewClass the proposed class for
// lower_risk.
type NewChangeRequest struct {
	ToolID   int64
	Kind     ChangeKind
	Reason   string
	Policy   policy.Policy
	NewClass risk.Class
}

// CreateChangeRequest records a pending request by requester, with the
// tool's current state as "before" and the proposal as "after", audited as
// "change_request.create" on the tool. It refuses a proposal that is not
// what its kind says (an expose request must expose a DESTRUCTIVE or
// PRIVILEGED tool and change nothing else that needs approval, and so on):
// an approver approves exactly what the kind names.
func (db *DB) CreateChangeRequest(ctx context.Context, requester *User, n NewChangeRequest) (*ChangeRequest, error) {
	n.Reason = strings.TrimSpace(n.Reason)
	if n.Reason == "" {
		return nil, apperr.Invalidf("Write the reason for this change: the approver reads it.")
	}
	var id int64
	err := db.inTx(ctx, "create change request", func(tx *sqlx.Tx) error {
		cur, err := toolPolicyBy(ctx, tx, "t.id = ?", n.ToolID)
		if err != nil {
			return err
		}
		before, after, err := proposal(cur, n)
		if err != nil {
			return err
		}
		if err := duplicatePending(ctx, tx, cur.ToolID, n.Kind, after); err != nil {
			return err
		}
		digest, err := requestDefinition(ctx, tx, cur, n)
		if err != nil {
			return err
		}
		if err := tx.GetContext(ctx, &id, `INSERT INTO change_requests (tool_id, kind, reason, before_json, after_json,
			requested_by, requested_at, class_at_request, definition_digest) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?) RETURNING id`,
			cur.ToolID, n.Kind, n.Reason, before, after, requester.ID, formatTime(db.Now()), cur.Class.String(), digest); err != nil {
			return err
		}
		return db.appendAudit(ctx, tx, audit.Entry{Actor: requester.Email, Action: "change_request.create",
			Subject: cur.Subject(), Before: before,
			After: auditJSON(map[string]any{"request": id, "kind": n.Kind, "reason": n.Reason, "after": json.RawMessage(after),
				"definition_digest": digest})})
	})
	if err != nil {
		return nil, err
	}
	return db.ChangeRequest(ctx, id)
}

// proposal checks n against the tool's current state and returns the exact
// before/after JSON to store.
func proposal(cur *PolicyRecord, n NewChangeRequest) (before, after string, err error) {
	switch n.Kind {
	case KindLowerRisk:
		if !policy.LowerRisk(cur.Class, n.NewClass) {
			return "", "", apperr.Invalidf("Choose a class lower than %s.", cur.Class)
		}
		return auditJSON(ClassState{cur.Class}), auditJSON(ClassState{n.NewClass}), nil
	case KindExposeRisky, KindEnableMutationRetry:
	default:
		return "", "", apperr.Invalidf("Unknown kind of change request.")
	}
	if err := n.Policy.Validate(); err != nil {
		return "", "", validationProblem(err)
	}
	want := policy.ExposeRisky
	if n.Kind == KindEnableMutationRetry {
		want = policy.EnableMutationRetry
	}
	got := policy.ApprovalNeeded(cur.Method, cur.Class, cur.Policy, n.Policy)
	if len(got) != 1 || got[0] != want {
		return "", "", apperr.Invalidf("This request must contain exactly one change that needs approval: %s.", strings.ToLower(want.Title()))
	}
	return auditJSON(cur.Policy), auditJSON(n.Policy), nil
}

type changeRequestRow struct {
	ID             int64   `db:"id"`
	ToolID         int64   `db:"tool_id"`
	ToolName       string  `db:"tool_name"`
	Method         string  `db:"method"`
	Class          string  `db:"class"`
	ReasonsJSON    string  `db:"reasons_json"`
	Kind           string  `db:"kind"`
	Reason         string  `db:"reason"`
	Before         string  `db:"before_json"`
	After          string  `db:"after_json"`
	Status         string  `db:"status"`
	RequestedBy    int64   `db:"requested_by"`
	RequesterEmail string  `db:"requester_email"`
	RequestedAt    string  `db:"requested_at"`
	DecidedBy      *int64  `db:"decided_by"`
	DeciderEmail   *string `db:"decider_email"`
	DecidedAt      *string `db:"decided_at"`
	Comment        string  `db:"decision_comment"`
	VoidReason     string  `db:"void_reason"`
	ClassAtRequest string  `db:"class_at_request"`
	Digest         string  `db:"definition_digest"`
}

const changeRequestSelect = `SELECT c.id, c.tool_id, t.name AS tool_name, t.method, t.class, t.reasons_json,
	c.kind, c.reason, c.before_json, c.after_json, c.status, c.requested_by, r.email AS requester_email,
	c.requested_at, c.decided_by, d.email AS decider_email, c.decided_at, c.decision_comment, c.void_reason, c.class_at_request,
	c.definition_digest FROM change_requests c JOIN tools t ON t.id = c.tool_id JOIN users r ON r.id = c.requested_by
	LEFT JOIN users d ON d.id = c.decided_by`

func (row changeRequestRow) request() (ChangeRequest, error) {
	cr := ChangeRequest{ID: row.ID, ToolID: row.ToolID, ToolName: row.ToolName, Method: row.Method,
		Kind: ChangeKind(row.Kind), Reason: row.Reason, Before: row.Before, After: row.After, Status: row.Status,
		RequestedBy: row.RequestedBy, RequesterEmail: row.RequesterEmail, Comment: row.Comment, VoidReason: row.VoidReason,
		DefinitionDigest: row.Digest}
	var err error
	if cr.Class, err = risk.ParseClass(row.Class); err != nil {
		return cr, err
	}
	if row.ClassAtRequest != "" {
		if cr.ClassAtRequest, err = risk.ParseClass(row.ClassAtRequest); err != nil {
			return cr, err
		}
	}
	if err := json.Unmarshal([]byte(row.ReasonsJSON), &cr.Reasons); err != nil {
		return cr, fmt.Errorf("change request %d reasons: %w", row.ID, err)
	}
	if cr.RequestedAt, err = parseTime(row.RequestedAt); err != nil {
		return cr, err
	}
	if row.DecidedBy != nil {
		cr.DecidedBy = *row.DecidedBy
	}
	if row.DeciderEmail != nil {
		cr.DeciderEmail = *row.DeciderEmail
	}
	if row.DecidedAt != nil {
		if cr.DecidedAt, err = parseTime(*row.DecidedAt); err != nil {
			return cr, err
		}
	}
	return cr, nil
}

func selectChangeRequests(ctx context.Context, tx *sqlx.Tx, where string, args ...any) ([]ChangeRequest, error) {
	var rows []changeRequestRow
	if err := tx.SelectContext(ctx, &rows, changeRequestSelect+" "+where, args...); err != nil {
		return nil, err
	}
	out := make([]ChangeRequest, 0, len(rows))
	for _, r := range rows {
		cr, err := r.request()
		if err != nil {
			return nil, err
		}
		out = append(out, cr)
	}
	return out, nil
}

func changeRequestByID(ctx context.Context, tx *sqlx.Tx, id int64) (*ChangeRequest, error) {
	list, err := selectChangeRequests(ctx, tx, "WHERE c.id = ?", id)
	if err != nil {
		return nil, err
	}
	if len(list) == 0 {
		return nil, apperr.NotFoundf("The change request was not found.")
	}
	return &list[0], nil
}

// ChangeRequest returns the request with id.
func (db *DB) ChangeRequest(ctx context.Context, id int64) (*ChangeRequest, error) {
	var out *ChangeRequest
	err := db.readTx(ctx, "change request", func(tx *sqlx.Tx) error {
		var err error
		out, err = changeRequestByID(ctx, tx, id)
		return err
	})
	return out, err
}

// ChangeRequestFilter selects change requests for a list. Zero fields do
// not filter.
type ChangeRequestFilter struct {
	ToolID  int64
	Pending bool // only pending requests
	Decided bool // only decided (approved, rejected, withdrawn, void) requests
	Limit   int  // 0 means 200
}

// ChangeRequests lists requests matching f, oldest first when pending
// (the queue order), newest first otherwise.
func (db *DB) ChangeRequests(ctx context.Context, f ChangeRequestFilter) ([]ChangeRequest, error) {
	var where []string
	var args []any
	order := "c.requested_at DESC, c.id DESC"
	if f.ToolID != 0 {
		where, args = append(where, "c.tool_id = ?"), append(args, f.ToolID)
	}
	switch {
	case f.Pending:
		where, order = append(where, "c.status = 'pending'"), "c.requested_at, c.id"
	case f.Decided:
		where, order = append(where, "c.status <> 'pending'"), "c.decided_at DESC, c.id DESC"
	}
	if f.Limit <= 0 {
		f.Limit = 200
	}
	q := ""
	if len(where) > 0 {
		q = "WHERE " + strings.Join(where, " AND ")
	}
	var out []ChangeRequest
	err := db.readTx(ctx, "list change requests", func(tx *sqlx.Tx) error {
		var err error
		out, err = selectChangeRequests(ctx, tx, q+" ORDER BY "+order+" LIMIT ?", append(args, f.Limit)...)
		return err
	})
	return out, err
}

// CountPendingFor returns how many pending requests user userID could
// decide: every pending request except their own (the navigation badge).
func (db *DB) CountPendingFor(ctx context.Context, userID int64) (int, error) {
	var n int
	err := db.readTx(ctx, "count pending change requests", func(tx *sqlx.Tx) error {
		var err error
		n, err = db.countPendingFor(ctx, tx, userID)
		return err
	})
	return n, err
}

// countPendingFor counts the pending requests userID could decide: not
// their own, and not from a requester they are not independent of (the
// same approval.Independence as deciding), so the badge never counts a
// request the approver would be refused.
func (db *DB) countPendingFor(ctx context.Context, tx *sqlx.Tx, userID int64) (int, error) {
	var pending []struct {
		RequestedBy int64  `db:"requested_by"`
		Email       string `db:"email"`
	}
	if err := tx.SelectContext(ctx, &pending, `SELECT cr.requested_by, u.email FROM change_requests cr
		JOIN users u ON u.id = cr.requested_by WHERE cr.status = 'pending' AND cr.requested_by <> ?`, userID); err != nil {
		return 0, err
	}
	if len(pending) == 0 {
		return 0, nil
	}
	me, err := userByID(ctx, tx, userID)
	if err != nil {
		return 0, err
	}
	acts, err := db.controlActs(ctx, tx)
	if err != nil {
		return 0, err
	}
	n := 0
	for _, p := range pending {
		if db.independence(acts, me, p.RequestedBy, p.Email) == nil {
			n++
		}
	}
	return n, nil
}
