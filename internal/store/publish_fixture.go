package store

import (
	"context"
	"encoding/json"
	"fmt"
	"testing"

	"github.com/toolgate/toolgate/internal/policy"
	"github.com/toolgate/toolgate/internal/risk"
)

// FixtureTool describes one tool for MustAddTool: enough of a source, an
// operation and a policy for publishing tests in any package (web, cli,
// e2e), written with plain SQL against the agreed schema so those tests do
// not depend on how the import feature fills it.
type FixtureTool struct {
	Source string // created on first use, with Origin
	Origin string // e.g. "https://api.example.com"; "" leaves it unknown
	Name   string
	Method string
	Path   string
	Class  risk.Class
	// Exposed sets the stored policy's exposure; Policy, when non-nil,
	// replaces the default policy entirely.
	Exposed bool
	Policy  *policy.Policy
	// ApprovedBy/RequestedBy, when both set (user ids), add an approved
	// expose_risky change request for the tool.
	RequestedBy, ApprovedBy int64
}

// MustAddTool inserts a tool (and its source when new) and returns its id.
func MustAddTool(tb testing.TB, db *DB, ft FixtureTool) int64 {
	tb.Helper()
	id, err := addFixtureTool(context.Background(), db, ft)
	if err != nil {
		tb.Fatalf("store.MustAddTool(%s): %v", ft.Name, err)
	}
	return id
}

func addFixtureTool(ctx context.Context, db *DB, ft FixtureTool) (int64, error) {
	now := formatTime(db.Now())
	x := db.db
	if _, err := x.ExecContext(ctx, `INSERT INTO sources (name, title, spec_version, origin, document_sha256, imported_at, imported_by)
		VALUES (?, ?, '3.0.3', ?, 'fixture', ?, 'fixture') ON CONFLICT (name) DO NOTHING`, ft.Source, ft.Source, ft.Origin, now); err != nil {
		return 0, err
	}
	var sourceID int64
	if err := x.GetContext(ctx, &sourceID, `SELECT id FROM sources WHERE name = ?`, ft.Source); err != nil {
		return 0, err
	}
	op := seedOperation(ft.Name, ft.Method, ft.Path, ft.Method+" "+ft.Path)
	opJSON, _ := json.Marshal(op)
	reasons, _ := json.Marshal([]risk.Reason{{Code: "method:" + ft.Method, Class: ft.Class, Text: "fixture"}})
	var toolID int64
	if err := x.GetContext(ctx, &toolID, `INSERT INTO tools (source_id, name, op_key, method, path, path_key, operation_id,
			operation_json, detected_class, reasons_json, class, rules_version, created_at, updated_at)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) RETURNING id`,
		sourceID, ft.Name, ft.Method+" "+ft.Path, ft.Method, ft.Path, ft.Path, ft.Name, string(opJSON),
		ft.Class.String(), string(reasons), ft.Class.String(), risk.RulesVersion, now, now); err != nil {
		return 0, err
	}
	p := policy.NewToolPolicy(ft.Method, ft.Class, policy.BuiltinDefaults())
	if ft.Policy != nil {
		p = *ft.Policy
	}
	p.Exposed = ft.Exposed
	pj, _ := json.Marshal(p)
	if _, err := x.ExecContext(ctx, `INSERT INTO tool_policies (tool_id, policy_json, exposed, updated_at, updated_by)
		VALUES (?, ?, ?, ?, 'fixture')`, toolID, string(pj), ft.Exposed, now); err != nil {
		return 0, err
	}
	if ft.RequestedBy != 0 && ft.ApprovedBy != 0 {
		if _, err := x.ExecContext(ctx, `INSERT INTO change_requests (tool_id, kind, reason, before_json, after_json,
				status, requested_by, requested_at, decided_by, decided_at)
			VALUES (?, 'expose_risky', 'fixture approval', '{}', ?, 'approved', ?, ?, ?, ?)`,
			toolID, string(pj), ft.RequestedBy, now, ft.ApprovedBy, now); err != nil {
			return 0, fmt.Errorf("approve: %w", err)
		}
	}
	return toolID, nil
}
