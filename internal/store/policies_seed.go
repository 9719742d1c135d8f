package store

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/toolgate/toolgate/internal/openapi"
	"github.com/toolgate/toolgate/internal/policy"
	"github.com/toolgate/toolgate/internal/risk"
)

// SeedTool describes a tool for tests that need one without importing an
// API description.
type SeedTool struct {
	Name   string
	Method string
	Path   string
	Class  risk.Class
	// Policy, if set, is stored as is; otherwise the tool gets
	// policy.NewToolPolicy from the current project defaults, like an import.
	Policy *policy.Policy
}

// MustSeedTool inserts one tool (in a source named "seed", created on first
// use) with its policy, directly in SQL and without audit entries. It is for
// tests of the policy editor, approvals and e2e scenarios only; real tools
// come from importing a source.
func MustSeedTool(tb testing.TB, db *DB, s SeedTool) *PolicyRecord {
	tb.Helper()
	ctx := context.Background()
	now := formatTime(db.Now())
	exec := func(q string, args ...any) {
		tb.Helper()
		if _, err := db.db.ExecContext(ctx, q, args...); err != nil {
			tb.Fatalf("store.MustSeedTool %s: %v", s.Name, err)
		}
	}
	exec(`INSERT INTO sources (name, title, spec_version, origin, document_sha256, imported_at, imported_by)
		VALUES ('seed', 'Seed API', '3.1.0', 'https://api.example.com', '', ?, 'test') ON CONFLICT (name) DO NOTHING`, now)
	reasons := []risk.Reason{{Code: "method:" + strings.ToUpper(s.Method), Class: s.Class,
		Text: strings.ToUpper(s.Method) + " requests are classified " + s.Class.String() + "."}}
	exec(`INSERT INTO tools (source_id, name, op_key, method, path, path_key, operation_id, summary, operation_json,
		detected_class, reasons_json, class, rules_version, created_at, updated_at)
		SELECT id, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ? FROM sources WHERE name = 'seed'`,
		s.Name, s.Method+" "+s.Path, s.Method, s.Path, s.Path, s.Name, "Seeded "+s.Name,
		auditJSON(seedOperation(s.Name, s.Method, s.Path, "Seeded "+s.Name)), s.Class.String(),
		auditJSON(reasons), s.Class.String(), risk.RulesVersion, now, now)
	p := s.Policy
	if p == nil {
		d, err := db.ProjectDefaults(ctx)
		if err != nil {
			tb.Fatalf("store.MustSeedTool: %v", err)
		}
		np := policy.NewToolPolicy(s.Method, s.Class, d.Defaults)
		p = &np
	}
	exec(`INSERT INTO tool_policies (tool_id, policy_json, exposed, updated_at, updated_by)
		SELECT id, ?, ?, ?, 'test' FROM tools WHERE name = ?`, auditJSON(*p), p.Exposed, now, s.Name)
	rec, err := db.ToolPolicyByName(ctx, s.Name)
	if err != nil {
		tb.Fatalf("store.MustSeedTool: %v", err)
	}
	return rec
}

// seedOperation is the operation of a seeded tool: the method and path
// given, one required string path parameter per {name} of the template, so
// the runtime's executor accepts the tool as it would an imported one.
func seedOperation(name, method, path, summary string) openapi.Operation {
	op := openapi.Operation{Tool: name, Method: method, Path: path, PathKey: path, OperationID: name, Summary: summary}
	props := map[string]any{}
	var required []string
	for rest := path; ; {
		open := strings.IndexByte(rest, '{')
		end := strings.IndexByte(rest, '}')
		if open < 0 || end < open {
			break
		}
		arg := rest[open+1 : end]
		op.Parameters = append(op.Parameters, openapi.Parameter{Name: arg, In: "path", Arg: arg, Required: true,
			Schema: json.RawMessage(`{"type":"string"}`)})
		props[arg] = map[string]string{"type": "string"}
		required = append(required, arg)
		rest = rest[end+1:]
	}
	schema := map[string]any{"type": "object", "properties": props}
	if len(required) > 0 {
		schema["required"] = required
	}
	op.InputSchema, _ = json.Marshal(schema)
	return op
}
