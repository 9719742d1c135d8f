package store

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/jmoiron/sqlx"

	"github.com/toolgate/toolgate/internal/apperr"
	"github.com/toolgate/toolgate/internal/bundle"
	"github.com/toolgate/toolgate/internal/gate"
	"github.com/toolgate/toolgate/internal/importer"
	"github.com/toolgate/toolgate/internal/openapi"
	"github.com/toolgate/toolgate/internal/policy"
	"github.com/toolgate/toolgate/internal/risk"
)

// WithheldTool is a tool a publish or a rollback leaves out, with the
// gate's reason (gate.Decide): part of its state has no approval valid now
// (R10, R14), or the executor would refuse it. Publishing only ever
// includes approved state, whatever the stored policy or an old bundle says.
type WithheldTool struct {
	Tool   string `json:"tool"`
	Reason string `json:"reason"`
}

// publishState is the project's publishable state, read in one tx.
type publishState struct {
	sources  []bundle.Source
	tools    []bundle.ToolInput
	withheld []WithheldTool
}

// exposedToolRow is one exposed tool joined with its source and policy.
type exposedToolRow struct {
	ID              int64  `db:"id"`
	Name            string `db:"name"`
	Method          string `db:"method"`
	Path            string `db:"path"`
	OperationJSON   string `db:"operation_json"`
	ReasonsJSON     string `db:"reasons_json"`
	DetectedClass   string `db:"detected_class"`
	Class           string `db:"class"`
	OverrideReason  string `db:"risk_override_reason"`
	OverrideBy      string `db:"risk_override_by"`
	PolicyJSON      string `db:"policy_json"`
	SourceName      string `db:"source_name"`
	Origin          string `db:"origin"`
	BasePath        string `db:"base_path"`
	SecuritySchemes string `db:"security_schemes_json"`
}

// approvalRow is one approved change request.
type approvalRow struct {
	ID        int64  `db:"id"`
	ToolName  string `db:"tool_name"`
	Kind      string `db:"kind"`
	Reason    string `db:"reason"`
	After     string `db:"after_json"`
	Digest    string `db:"definition_digest"`
	DecidedBy string `db:"decided_by"`
	DecidedAt string `db:"decided_at"`
}

// exposedToolsQuery and approvedRequestsQuery are everything a bundle is
// built from (with the latest version).
const (
	exposedToolsQuery = `SELECT t.id, t.name, t.method, t.path, t.operation_json, t.reasons_json,
			t.detected_class, t.class, t.risk_override_reason, t.risk_override_by, p.policy_json,
			s.name AS source_name, s.origin, s.base_path, s.security_schemes_json
		FROM tools t JOIN tool_policies p ON p.tool_id = t.id JOIN sources s ON s.id = t.source_id
		WHERE t.removed_at IS NULL AND p.exposed = 1 AND p.suspended_reason = ''
		ORDER BY t.name`
	approvedRequestsQuery = `SELECT cr.id, t.name AS tool_name, cr.kind, cr.reason, cr.after_json, cr.definition_digest,
			u.email AS decided_by, cr.decided_at
		FROM change_requests cr JOIN users u ON u.id = cr.decided_by JOIN tools t ON t.id = cr.tool_id
		WHERE cr.status = 'approved' AND cr.decided_at IS NOT NULL
		ORDER BY cr.decided_at, cr.id`
)

// gatherPublishState reads every exposed tool of every source: not
// removed, exposure not suspended. Policies are passed as stored
// (bundle.Build applies policy.Effective).
func gatherPublishState(ctx context.Context, tx *sqlx.Tx) (*publishState, error) {
	var rows []exposedToolRow
	err := tx.SelectContext(ctx, &rows, exposedToolsQuery)
	if err != nil {
		return nil, fmt.Errorf("read exposed tools: %w", err)
	}
	approvals, err := approvedRequests(ctx, tx)
	if err != nil {
		return nil, err
	}
	st := &publishState{}
	seen := map[string]bool{}
	blobs := newBlobReader(tx)
	ops := make([]string, len(rows))
	for i, r := range rows {
		ops[i] = r.OperationJSON
	}
	if err := blobs.prefetch(ctx, ops); err != nil {
		return nil, err
	}
	for _, r := range rows {
		if r.OperationJSON, err = blobs.unpack(ctx, r.OperationJSON); err != nil {
			return nil, fmt.Errorf("tool %s operation: %w", r.Name, err)
		}
		gt, err := r.gateTool()
		if err != nil {
			return nil, err
		}
		d, err := gate.Decide(gt, approvals[r.Name])
		if err != nil {
			return nil, err
		}
		if !d.Publishable() {
			st.withheld = append(st.withheld, WithheldTool{Tool: r.Name, Reason: d.Reason})
			continue
		}
		gt.Input.Approvals = d.Approvals
		st.tools = append(st.tools, gt.Input)
		if !seen[r.SourceName] {
			seen[r.SourceName] = true
			st.sources = append(st.sources, gt.Source)
		}
	}
	if missing := sourcesWithoutOrigin(st.tools, st.sources); len(missing) > 0 {
		return nil, apperr.Invalidf("Cannot publish: source %s has no origin (scheme://host[:port]). Set the origin on the source's page first.",
			strings.Join(missing, ", "))
	}
	return st, nil
}

// approvedRequests returns the change requests approved and not void now,
// as the gate reads them, by tool name, oldest decision first.
func approvedRequests(ctx context.Context, tx *sqlx.Tx) (map[string][]gate.Approval, error) {
	var rows []approvalRow
	err := tx.SelectContext(ctx, &rows, approvedRequestsQuery)
	if err != nil {
		return nil, fmt.Errorf("read approved change requests: %w", err)
	}
	out := map[string][]gate.Approval{}
	for _, r := range rows {
		a, err := r.approval()
		if err != nil {
			return nil, err
		}
		out[r.ToolName] = append(out[r.ToolName], a)
	}
	return out, nil
}

// approval decodes the approved state: the policy of the policy kinds,
// the class of a lowering.
func (r approvalRow) approval() (gate.Approval, error) {
	at, err := parseTime(r.DecidedAt)
	if err != nil {
		return gate.Approval{}, err
	}
	a := gate.Approval{Kind: policy.Action(r.Kind), Digest: r.Digest, Record: bundle.Approval{ChangeRequest: r.ID,
		ApprovedBy: r.DecidedBy, ApprovedAt: at, Summary: approvalTitle(r.Kind) + ": " + r.Reason}}
	if a.Kind == policy.LowerRiskClass {
		var c ClassState
		err = json.Unmarshal([]byte(r.After), &c)
		a.Class = c.Class
	} else {
		err = json.Unmarshal([]byte(r.After), &a.Policy)
	}
	if err != nil {
		return gate.Approval{}, fmt.Errorf("change request %d: approved state: %w", r.ID, err)
	}
	return a, nil
}

// gateTool is the row as the gate judges it: the bundle input with the
// stored policy, the source, and the risk engine's verdict.
func (r exposedToolRow) gateTool() (gate.Tool, error) {
	t, err := r.toolInput()
	if err != nil {
		return gate.Tool{}, err
	}
	src, err := r.source()
	if err != nil {
		return gate.Tool{}, err
	}
	gt := gate.Tool{Input: t, Source: src}
	if err := gt.Detected.UnmarshalText([]byte(r.DetectedClass)); err != nil {
		return gate.Tool{}, fmt.Errorf("tool %s: detected class: %w", r.Name, err)
	}
	return gt, nil
}

func (r exposedToolRow) toolInput() (bundle.ToolInput, error) {
	var op openapi.Operation
	if err := json.Unmarshal([]byte(r.OperationJSON), &op); err != nil {
		return bundle.ToolInput{}, fmt.Errorf("tool %s: operation: %w", r.Name, err)
	}
	var pol policy.Policy
	if err := json.Unmarshal([]byte(r.PolicyJSON), &pol); err != nil {
		return bundle.ToolInput{}, fmt.Errorf("tool %s: policy: %w", r.Name, err)
	}
	pol.Exposed = true // the row's exposed column is what the console filters on
	a, err := r.assessment()
	if err != nil {
		return bundle.ToolInput{}, err
	}
	return importer.ToolInput(r.Name, r.SourceName, op, a, pol), nil
}

// assessment is the class in force with the engine's reasons; a class set
// by a person (raised, or lowered through an approved request) adds a
// reason saying so, so runtimes and reviewers see why it differs.
func (r exposedToolRow) assessment() (risk.Assessment, error) {
	var a risk.Assessment
	if err := a.Class.UnmarshalText([]byte(r.Class)); err != nil {
		return a, fmt.Errorf("tool %s: class: %w", r.Name, err)
	}
	if err := json.Unmarshal([]byte(r.ReasonsJSON), &a.Reasons); err != nil {
		return a, fmt.Errorf("tool %s: reasons: %w", r.Name, err)
	}
	if r.Class != r.DetectedClass {
		text := "Class set to " + r.Class + " by " + r.OverrideBy
		if r.OverrideReason != "" {
			text += ": " + r.OverrideReason
		}
		a.Reasons = append([]risk.Reason{{Code: "override", Class: a.Class, Text: text}}, a.Reasons...)
	}
	return a, nil
}

func (r exposedToolRow) source() (bundle.Source, error) {
	s := bundle.Source{Name: r.SourceName, Origin: r.Origin, BasePath: r.BasePath}
	// openapi.SecurityScheme and bundle.AuthScheme share their JSON form.
	if err := json.Unmarshal([]byte(r.SecuritySchemes), &s.Auth); err != nil {
		return s, fmt.Errorf("source %s: security schemes: %w", r.SourceName, err)
	}
	return s, nil
}

// approvalTitle names a change request kind as bundles record it.
func approvalTitle(kind string) string { return policy.Action(kind).Title() }
