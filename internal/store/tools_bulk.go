package store

import (
	"context"
	"strings"

	"github.com/jmoiron/sqlx"

	"github.com/toolgate/toolgate/internal/apperr"
	"github.com/toolgate/toolgate/internal/audit"
	"github.com/toolgate/toolgate/internal/policy"
	"github.com/toolgate/toolgate/internal/risk"
)

// BulkAction is an action of the tools page on several tools at once.
type BulkAction string

// The bulk actions. None of them ever does what R2 or R10 make an explicit
// per-tool act: those tools are skipped and reported.
const (
	BulkExpose   BulkAction = "expose"
	BulkUnexpose BulkAction = "unexpose"
	BulkDefaults BulkAction = "apply_defaults"
)

// Title names the action for buttons and reports.
func (a BulkAction) Title() string {
	switch a {
	case BulkExpose:
		return "Expose selected"
	case BulkUnexpose:
		return "Unexpose selected"
	case BulkDefaults:
		return "Apply project defaults"
	}
	return string(a)
}

// auditAction is the audit log's name for the action on one tool.
func (a BulkAction) auditAction() string { return "policy.bulk_" + string(a) }

// BulkOutcome is what a bulk action does, or would do, to one tool.
type BulkOutcome struct {
	Tool   string
	Method string
	Class  risk.Class
	// Why says why a tool is skipped or unchanged.
	Why string
}

// BulkReport sorts the selected tools by outcome.
type BulkReport struct {
	Action    BulkAction
	Applied   bool // false for a dry run
	Changed   []BulkOutcome
	Unchanged []BulkOutcome
	Skipped   []BulkOutcome
}

// BulkTools runs action on the named tools, audited per tool. With apply
// false nothing is written: the report says what would happen, for the
// confirmation page.
func (db *DB) BulkTools(ctx context.Context, actor string, action BulkAction, names []string, apply bool) (*BulkReport, error) {
	switch action {
	case BulkExpose, BulkUnexpose, BulkDefaults:
	default:
		return nil, apperr.Invalidf("Choose a bulk action.")
	}
	if len(names) == 0 {
		return nil, apperr.Invalidf("Select at least one tool.")
	}
	rep := &BulkReport{Action: action, Applied: apply}
	// A dry run (the confirmation page) only reads: it must not take the
	// write lock, and the read pool refuses a write should one slip in.
	run := db.inTx
	if !apply {
		run = db.readTx
	}
	err := run(ctx, "bulk "+string(action), func(tx *sqlx.Tx) error {
		defaults, err := projectDefaults(ctx, tx)
		if err != nil {
			return err
		}
		for _, name := range dedupe(names) {
			if err := db.bulkOne(ctx, tx, actor, rep, name, defaults.Defaults); err != nil {
				return err
			}
		}
		return nil
	})
	return rep, err
}

func (db *DB) bulkOne(ctx context.Context, tx *sqlx.Tx, actor string, rep *BulkReport, name string, d policy.ProjectDefaults) error {
	rec, err := toolPolicyBy(ctx, tx, "t.name = ?", name)
	if apperr.CodeOf(err) == apperr.NotFound {
		rep.Skipped = append(rep.Skipped, BulkOutcome{Tool: name, Why: "No such tool (or it was removed from its document)."})
		return nil
	}
	if err != nil {
		return err
	}
	o := BulkOutcome{Tool: rec.ToolName, Method: rec.Method, Class: rec.Class}
	after, skip := bulkDecide(rep.Action, rec, d)
	if skip == "" && !rec.Policy.Exposed {
		why, err := exposureRefusal(ctx, tx, rec, after)
		if err != nil {
			return err
		}
		if why != "" {
			skip = "Runtimes would refuse this tool: " + why + "."
		}
	}
	switch {
	case skip != "":
		o.Why = skip
		rep.Skipped = append(rep.Skipped, o)
		return nil
	case policy.Equal(rec.Policy, after):
		o.Why = "Already so."
		rep.Unchanged = append(rep.Unchanged, o)
		return nil
	}
	rep.Changed = append(rep.Changed, o)
	if !rep.Applied {
		return nil
	}
	if err := db.writePolicy(ctx, tx, actor, rec, after); err != nil {
		return err
	}
	return db.appendAudit(ctx, tx, audit.Entry{Actor: actor, Action: rep.Action.auditAction(), Subject: rec.Subject(),
		Before: auditJSON(rec.Policy), After: auditJSON(after)})
}

// bulkDecide returns the policy the action gives the tool, or why the tool
// is skipped: DESTRUCTIVE and PRIVILEGED tools are never exposed in bulk,
// suspended tools need a look of their own, and any change for which
// policy.Explicit or policy.ApprovalNeeded is not empty is left alone.
func bulkDecide(a BulkAction, rec *PolicyRecord, d policy.ProjectDefaults) (policy.Policy, string) {
	after := rec.Policy
	switch a {
	case BulkExpose:
		if rec.Policy.Exposed {
			return after, ""
		}
		if rec.Class >= risk.Destructive {
			return after, "A " + rec.Class.String() + " tool is exposed only by its own explicit, approved request (R10)."
		}
		if rec.SuspendedReason != "" {
			return after, "Suspended: " + rec.SuspendedReason + " Review it on the tool's page."
		}
		after.Exposed = true
	case BulkUnexpose:
		after.Exposed = false
	case BulkDefaults:
		after = policy.ApplyDefaults(rec.Method, rec.Class, rec.Policy, d)
		if f := policy.Explicit(rec.Method, rec.Policy, after); len(f) > 0 {
			return rec.Policy, "Changing " + strings.Join(f, ", ") + " of a " + rec.Method + " tool is an explicit per-tool act (R2)."
		}
	}
	if acts := policy.ApprovalNeeded(rec.Method, rec.Class, rec.Policy, after); len(acts) > 0 {
		titles := make([]string, len(acts))
		for i, x := range acts {
			titles[i] = strings.ToLower(x.Title())
		}
		return rec.Policy, "Needs an explicit request and an approver: " + strings.Join(titles, ", ") + " (R10)."
	}
	if err := after.Validate(); err != nil {
		return rec.Policy, "The resulting policy would be invalid: " + err.Error()
	}
	return after, ""
}

func dedupe(names []string) []string {
	seen := map[string]bool{}
	var out []string
	for _, n := range names {
		if n = strings.TrimSpace(n); n != "" && !seen[n] {
			seen[n] = true
			out = append(out, n)
		}
	}
	return out
}
