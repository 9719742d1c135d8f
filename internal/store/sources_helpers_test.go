package store

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/toolgate/toolgate/internal/openapi"
)

// testOp is one operation of a hand-made test document.
type testOp struct {
	Method, Path, ID, Summary string
	Query                     []string // optional query parameters
}

var petOps = []testOp{
	{"GET", "/pets", "listPets", "List pets", nil},
	{"POST", "/pets", "createPet", "Add a pet", nil},
	{"GET", "/pets/{id}", "getPet", "Show a pet", nil},
	{"DELETE", "/pets/{id}", "deletePet", "Delete a pet", nil},
}

// testDoc builds an OpenAPI 3.0 document from ops and parses it with the
// real importer; server "" leaves the document without an absolute server.
func testDoc(t testing.TB, server string, ops []testOp) *openapi.Document {
	t.Helper()
	paths := map[string]map[string]any{}
	for _, o := range ops {
		var params []any
		if strings.Contains(o.Path, "{id}") {
			params = append(params, map[string]any{"name": "id", "in": "path", "required": true, "schema": map[string]any{"type": "string"}})
		}
		for _, q := range o.Query {
			params = append(params, map[string]any{"name": q, "in": "query", "schema": map[string]any{"type": "string"}})
		}
		if paths[o.Path] == nil {
			paths[o.Path] = map[string]any{}
		}
		paths[o.Path][strings.ToLower(o.Method)] = map[string]any{"operationId": o.ID, "summary": o.Summary,
			"tags": []string{"pets"}, "parameters": params, "responses": map[string]any{"200": map[string]any{"description": "ok"}}}
	}
	d := map[string]any{"openapi": "3.0.3", "info": map[string]any{"title": "Pets", "version": "1"}, "paths": paths}
	if server != "" {
		d["servers"] = []any{map[string]any{"url": server}}
	}
	b, err := json.Marshal(d)
	if err != nil {
		t.Fatal(err)
	}
	doc, err := openapi.LoadBytes("pets.json", b, openapi.Options{})
	if err != nil {
		t.Fatalf("test document: %v", err)
	}
	return doc
}

// mustImport imports doc as source name at whatever revision it has now,
// confirming every new definition the preview asks to confirm.
func mustImport(t testing.TB, db *DB, name string, doc *openapi.Document) *ImportResult {
	t.Helper()
	return mustImportOrigin(t, db, name, "", doc)
}

// mustImportOrigin is mustImport with the origin chosen on the import
// form ("" keeps the stored one, else the document's).
func mustImportOrigin(t testing.TB, db *DB, name, origin string, doc *openapi.Document) *ImportResult {
	t.Helper()
	ctx := context.Background()
	pv, err := db.PreviewImport(ctx, name, origin, doc)
	if err != nil {
		t.Fatalf("preview %s: %v", name, err)
	}
	var confirmed []string
	for _, c := range pv.Plan.ToConfirm() {
		confirmed = append(confirmed, c.Tool)
	}
	res, err := db.ImportSource(ctx, "tester", SourceImport{Name: name, Origin: origin, Doc: doc, DocumentSHA256: "sha",
		BaseRevision: pv.BaseRevision, ConfirmedDefinitions: confirmed})
	if err != nil {
		t.Fatalf("import %s: %v", name, err)
	}
	return res
}

func mustTool(t testing.TB, db *DB, name string) *Tool {
	t.Helper()
	tool, err := db.ToolByName(context.Background(), name)
	if err != nil {
		t.Fatalf("tool %s: %v", name, err)
	}
	return tool
}

// setExposed writes a tool's exposure directly, as an approved request
// would, so re-import tests can start from an exposed tool.
func setExposed(t testing.TB, db *DB, name string) {
	t.Helper()
	tool := mustTool(t, db, name)
	p := tool.Policy
	p.Exposed = true
	if _, err := db.db.Exec(`UPDATE tool_policies SET policy_json = ?, exposed = 1 WHERE tool_id = ?`, auditJSON(p), tool.ID); err != nil {
		t.Fatal(err)
	}
}

func auditActions(t testing.TB, db *DB) []string {
	t.Helper()
	entries, err := db.AuditEntries(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, e := range entries {
		out = append(out, e.Action+" "+e.Subject)
	}
	return out
}

// setJSONField sets field of the JSON object in column col of the row of
// table whose keyCol is key, behind the store's back, in Go rather than
// with an engine's JSON functions (SQLite's json_set is not PostgreSQL's).
func setJSONField(t *testing.T, db *DB, table, col, keyCol string, key any, field string, value any) {
	t.Helper()
	var raw string
	if err := db.db.Get(&raw, `SELECT `+col+` FROM `+table+` WHERE `+keyCol+` = ?`, key); err != nil {
		t.Fatal(err)
	}
	obj := map[string]any{}
	if err := json.Unmarshal([]byte(raw), &obj); err != nil {
		t.Fatal(err)
	}
	obj[field] = value
	if _, err := db.db.Exec(`UPDATE `+table+` SET `+col+` = ? WHERE `+keyCol+` = ?`, auditJSON(obj), key); err != nil {
		t.Fatal(err)
	}
}
