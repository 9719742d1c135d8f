package store

import (
	"context"
	"encoding/json"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/toolgate/toolgate/internal/auth"
	"github.com/toolgate/toolgate/internal/importer"
	"github.com/toolgate/toolgate/internal/openapi"
	"github.com/toolgate/toolgate/internal/policy"
)

// batchOp is one operation of batchDoc.
type batchOp struct {
	method, path, id, summary string
	tags                      []string
}

// batchDoc is an OpenAPI 3.0 document of ops; every POST carries the same
// request body schema, large enough to be stored apart (schema_blobs).
func batchDoc(t *testing.T, ops []batchOp) *openapi.Document {
	t.Helper()
	props := map[string]any{}
	for i := range 40 {
		props[fmt.Sprintf("field_number_%02d", i)] = map[string]any{"type": "string", "description": "A field of the shared body."}
	}
	body := map[string]any{"required": true, "content": map[string]any{"application/json": map[string]any{
		"schema": map[string]any{"type": "object", "properties": props}}}}
	paths := map[string]map[string]any{}
	for _, o := range ops {
		op := map[string]any{"operationId": o.id, "summary": o.summary, "tags": o.tags,
			"responses": map[string]any{"200": map[string]any{"description": "ok"}}}
		if strings.Contains(o.path, "{id}") {
			op["parameters"] = []any{map[string]any{"name": "id", "in": "path", "required": true, "schema": map[string]any{"type": "string"}}}
		}
		if o.method == "POST" {
			op["requestBody"] = body
		}
		if paths[o.path] == nil {
			paths[o.path] = map[string]any{}
		}
		paths[o.path][strings.ToLower(o.method)] = op
	}
	b, err := json.Marshal(map[string]any{"openapi": "3.0.3", "info": map[string]any{"title": "Items", "version": "1"},
		"servers": []any{map[string]any{"url": "https://items.example.com"}}, "paths": paths})
	if err != nil {
		t.Fatal(err)
	}
	doc, err := openapi.LoadBytes("items.json", b, openapi.Options{})
	if err != nil {
		t.Fatalf("test document: %v", err)
	}
	return doc
}

// batchOps is n operations named op00…: GET, POST, DELETE and PUT in turn,
// with one to three tags (one of them twice, once).
func batchOps(n, from int) []batchOp {
	methods := []string{"GET", "POST", "DELETE", "PUT"}
	out := make([]batchOp, n)
	for i := range n {
		k := from + i
		m := methods[k%len(methods)]
		path := fmt.Sprintf("/items%02d/{id}", k)
		if m == "POST" {
			path = fmt.Sprintf("/items%02d", k)
		}
		tags := []string{fmt.Sprintf("group%d", k%3)}
		if k%2 == 0 {
			tags = append(tags, "even")
		}
		if k == 4 {
			tags = append(tags, "even")
		}
		out[i] = batchOp{m, path, fmt.Sprintf("op%02d", k), fmt.Sprintf("Operation %d", k), tags}
	}
	return out
}

// TestImportBatchesMatchRowByRow imports, re-imports (added, changed,
// moved, removed, suspended, redefined with a pending request and with an
// approved exposure) and restores (removing exposed tools) the same
// documents into three databases
// on one clock: one writing a row per statement, as before batching, one
// with statements of a few rows (so every batch is split, at every
// boundary), and one with the real limits. Every table an import writes
// must end up the same in all three, down to ids and audit hashes; and the
// result is checked against what the plan says, computed here.
func TestImportBatchesMatchRowByRow(t *testing.T) {
	ctx := context.Background()
	params := []int{1, 40, 0}
	dbs := make([]*DB, len(params))
	for i, p := range params {
		dbs[i] = MustOpen(t)
		dbs[i].batchParams = p
		clock := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
		dbs[i].Now = func() time.Time { clock = clock.Add(time.Millisecond); return clock }
	}
	first := batchOps(30, 0)
	second := append(slices.Clone(first[3:]), batchOps(25, 30)...) // op00–op02 removed, op30–op54 added
	second[0].summary = "Operation 3, reworded"                    // op03 PUT: exposed, definition confirmed
	second[3].path = "/moved06/{id}"                               // op06 DELETE: moved, with a pending request
	second[4].summary = "Purge all items"                          // op07 PUT exposed: raised, suspended
	second[6].summary = "Operation 9, reworded"                    // op09 POST: exposed, confirmed
	second[7].summary = "Operation 10, reworded"                   // op10 DELETE: approved exposure, now void
	second[8].tags = []string{"other"}                             // op11: tags replaced
	for step, doc := range [][]batchOp{first, second, first} {
		var plans []*importer.Plan
		var requests map[string][]string
		for _, db := range dbs {
			if step == 1 {
				prepareReimport(t, db)
			}
			if step == 2 { // removing exposed tools suspends them
				for _, name := range []string{"op32", "op36", "op40", "op44", "op48", "op52"} {
					setExposed(t, db, name)
				}
			}
			requests = requestsByTool(t, db)
			plans = append(plans, mustImport(t, db, "items", batchDoc(t, doc)).Plan)
		}
		ref := dumpImportTables(t, dbs[0])
		for i, db := range dbs[1:] {
			if got := dumpImportTables(t, db); !reflect.DeepEqual(got, ref) {
				t.Fatalf("step %d: with %d bind parameters a statement, the tables differ from one row a statement:\n%s",
					step, params[i+1], firstDifference(ref, got))
			}
		}
		checkImportAgainstPlan(t, dbs[2], plans[2], requests)
	}
	if n, err := dbs[2].VerifyAudit(ctx); err != nil || n < 10 {
		t.Fatalf("audit chain: %d entries, %v", n, err)
	}
}

// prepareReimport sets up what the second import must act on: exposed
// tools, a pending request to expose op06 and an approved exposure of op10.
func prepareReimport(t *testing.T, db *DB) {
	t.Helper()
	ctx := context.Background()
	for _, name := range []string{"op03", "op07", "op08", "op09"} {
		setExposed(t, db, name)
	}
	admin := mustUser(t, db, "admin@example.com", auth.RoleAdmin)
	approver := mustUser(t, db, "approver@example.com", auth.RoleApprover)
	for _, name := range []string{"op06", "op10"} {
		tool := mustTool(t, db, name)
		p := tool.Policy
		p.Exposed = true
		cr, err := db.CreateChangeRequest(ctx, admin, NewChangeRequest{ToolID: tool.ID, Kind: KindExposeRisky, Reason: "needed", Policy: p})
		if err != nil {
			t.Fatal(err)
		}
		if name == "op10" {
			if _, err := db.ApproveChangeRequest(ctx, approver.ID, cr.ID, "ok"); err != nil {
				t.Fatal(err)
			}
		}
	}
}

// checkImportAgainstPlan checks the stored tools and the import's audit
// entries against plan: every added tool has the default policy of its
// method and class, every tool its tags, ids follow plan order, the
// suspended tools are unexposed with the plan's reason, and the audit
// entries the import appended are the ones the plan implies, in order.
func checkImportAgainstPlan(t *testing.T, db *DB, plan *importer.Plan, requests map[string][]string) {
	t.Helper()
	ctx := context.Background()
	d, err := db.ProjectDefaults(ctx)
	if err != nil {
		t.Fatal(err)
	}
	var prevID int64
	for _, c := range plan.Of(importer.Added) {
		tool := mustTool(t, db, c.Tool)
		if tool.ID <= prevID {
			t.Errorf("%s has id %d after %d: ids must follow plan order", c.Tool, tool.ID, prevID)
		}
		prevID = tool.ID
		want := policy.NewToolPolicy(c.Method, c.Class, d.Defaults)
		if !reflect.DeepEqual(tool.Policy, want) || tool.Exposed {
			t.Errorf("%s policy %+v, want %+v", c.Tool, tool.Policy, want)
		}
	}
	for _, c := range plan.Changes {
		if c.Kind == importer.Removed {
			continue
		}
		var tags []string
		if err := db.db.Select(&tags, `SELECT tag FROM tool_tags WHERE tool_id = (SELECT id FROM tools WHERE name = ?) ORDER BY tag`, c.Tool); err != nil {
			t.Fatal(err)
		}
		want := slices.Compact(slices.Sorted(slices.Values(c.Op.Tags)))
		if !slices.Equal(tags, want) {
			t.Errorf("%s tags %v, want %v", c.Tool, tags, want)
		}
	}
	for _, c := range plan.Suspended() {
		if tool := mustTool(t, db, c.Tool); tool.Exposed || tool.Policy.Exposed || tool.SuspendedReason != c.Suspend {
			t.Errorf("%s not suspended: exposed %v, reason %q", c.Tool, tool.Exposed, tool.SuspendedReason)
		}
	}
	actions := auditActions(t, db)
	want := planAuditActions(plan, requests)
	if got := actions[len(actions)-len(want):]; !slices.Equal(got, want) {
		t.Errorf("import audit entries\n%v\nwant\n%v", got, want)
	}
}

// planAuditActions is the audit entries an import of plan appends, in
// order, given the statuses of each tool's expose requests before it.
func planAuditActions(plan *importer.Plan, requests map[string][]string) []string {
	var out []string
	for _, c := range plan.Changes {
		subject := "tool:" + c.Tool
		if c.Kind == importer.Changed {
			out = append(out, "tool.reimport_change "+subject)
		}
		if c.Definition != nil {
			for _, status := range requests[c.Tool] {
				if status == StatusPending {
					out = append(out, "change_request.void "+subject)
				}
			}
			for _, status := range requests[c.Tool] {
				if status == StatusApproved && c.VoidApproval {
					out = append(out, "change_request.void "+subject)
				}
			}
			if c.Confirm {
				out = append(out, "tool.definition_confirm "+subject)
			}
		}
		if c.Suspend != "" {
			out = append(out, "tool.suspend "+subject)
		}
	}
	return append(out, "source.import source:items")
}

// requestsByTool is the status of every change request, by tool name.
func requestsByTool(t *testing.T, db *DB) map[string][]string {
	t.Helper()
	var rows []struct {
		Name   string `db:"name"`
		Status string `db:"status"`
	}
	if err := db.db.Select(&rows, `SELECT t.name, c.status FROM change_requests c JOIN tools t ON t.id = c.tool_id ORDER BY c.id`); err != nil {
		t.Fatal(err)
	}
	out := map[string][]string{}
	for _, r := range rows {
		out[r.Name] = append(out[r.Name], r.Status)
	}
	return out
}
