package store

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/toolgate/toolgate/internal/openapi"
)

// sharedBodyDoc has n GET-like read operations whose request bodies all
// $ref one large component, and one operation whose body $refs a missing
// component (a schema gap).
func sharedBodyDoc(t *testing.T, n int) *openapi.Document {
	t.Helper()
	var b strings.Builder
	b.WriteString("openapi: 3.0.3\ninfo: {title: t, version: '1'}\nservers: [{url: 'https://api.example.com'}]\npaths:\n")
	for i := range n {
		fmt.Fprintf(&b, "  /search%d:\n    post:\n      operationId: search%d\n      parameters: [{name: q%d, in: query, schema: {type: string}}]\n"+
			"      requestBody: {content: {application/json: {schema: {$ref: '#/components/schemas/Big'}}}}\n      responses: {'200': {description: ok}}\n", i, i, i)
	}
	b.WriteString("  /broken:\n    post:\n      operationId: broken\n      requestBody: {content: {application/json: {schema: {$ref: '#/components/schemas/Renamed'}}}}\n      responses: {'200': {description: ok}}\n")
	b.WriteString("components:\n  schemas:\n    Big:\n      type: object\n      properties:\n")
	for i := range 200 {
		fmt.Fprintf(&b, "        field%d: {type: string, description: 'a field with a description long enough to matter'}\n", i)
	}
	doc, err := openapi.LoadBytes("api.yaml", []byte(b.String()), openapi.Options{})
	if err != nil {
		t.Fatal(err)
	}
	return doc
}

// TestSharedSchemaStoredOnce checks that a body schema shared by many
// operations is stored once (content-addressed) and that every read path
// gives the operation back byte for byte.
func TestSharedSchemaStoredOnce(t *testing.T) {
	db := MustOpen(t)
	ctx := context.Background()
	doc := sharedBodyDoc(t, 40)
	mustImport(t, db, "shop", doc)
	var blobs, blobBytes, opBytes int
	if err := db.db.GetContext(ctx, &blobs, `SELECT COUNT(*) FROM schema_blobs`); err != nil {
		t.Fatal(err)
	}
	_ = db.db.GetContext(ctx, &blobBytes, `SELECT COALESCE(SUM(LENGTH(body)), 0) FROM schema_blobs`)
	_ = db.db.GetContext(ctx, &opBytes, `SELECT SUM(LENGTH(operation_json)) FROM tools`)
	body := len(doc.Operations[0].RequestBody.Schema)
	t.Logf("%d operations sharing a %d-byte body: %d blob(s) of %d bytes, operation_json %d bytes in all", len(doc.Operations), body, blobs, blobBytes, opBytes)
	if blobs != 1 {
		t.Errorf("%d schema blobs, want the shared body once", blobs)
	}
	if opBytes > 40*body/4 {
		t.Errorf("operation_json holds %d bytes for 40 operations: the %d-byte body is not shared", opBytes, body)
	}
	for _, o := range doc.Operations {
		got := mustTool(t, db, o.Tool).Operation
		if !bytes.Equal(got.InputSchema, o.InputSchema) || !bytes.Equal(got.RequestBody.Schema, o.RequestBody.Schema) {
			t.Fatalf("%s read back differs from what was imported", o.Tool)
		}
	}
	// A re-import of the same document reads every stored operation back
	// (storedTools) and finds nothing changed.
	pv, err := db.PreviewImport(ctx, "shop", "", doc)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range pv.Plan.Changes {
		if c.Kind != "unchanged" {
			t.Errorf("re-import sees %s as %s", c.Tool, c.Kind)
		}
	}
}

// TestSchemaGapsGateExposure checks that a tool whose input schema has
// gaps cannot be exposed until someone acknowledges them, and that the
// acknowledgement is audited.
func TestSchemaGapsGateExposure(t *testing.T) {
	db := MustOpen(t)
	ctx := context.Background()
	mustImport(t, db, "shop", sharedBodyDoc(t, 1))
	if len(mustTool(t, db, "broken").Operation.SchemaGaps) != 1 {
		t.Fatalf("broken has gaps %q, want the unresolved ref", mustTool(t, db, "broken").Operation.SchemaGaps)
	}
	expose := func(name string) error {
		rec, err := db.ToolPolicyByName(ctx, name)
		if err != nil {
			t.Fatal(err)
		}
		p := rec.Policy
		p.Exposed = true
		_, err = db.SavePolicy(ctx, "admin@example.com", rec.ToolID, rec.Version, p)
		return err
	}
	if err := expose("search0"); err != nil {
		t.Fatalf("a tool without gaps: %v", err)
	}
	err := expose("broken")
	if !errors.Is(err, ErrSchemaGapsUnacknowledged) || !strings.Contains(err.Error(), "input schema is incomplete") {
		t.Fatalf("exposing a tool with gaps: %v, want a refusal", err)
	}
	if rec, _ := db.ToolPolicyByName(ctx, "broken"); rec.Policy.Exposed {
		t.Fatal("refused, yet exposed")
	}
	if err := db.AcknowledgeSchemaGaps(ctx, "admin@example.com", "search0"); err == nil {
		t.Error("acknowledged a tool without gaps")
	}
	if err := db.AcknowledgeSchemaGaps(ctx, "admin@example.com", "broken"); err != nil {
		t.Fatal(err)
	}
	if err := expose("broken"); err != nil {
		t.Fatalf("after the acknowledgement: %v", err)
	}
	var n int
	_ = db.db.GetContext(ctx, &n, `SELECT COUNT(*) FROM audit_log WHERE action = 'tool.acknowledge_schema_gaps'`)
	if n != 1 {
		t.Errorf("%d audit entries for the acknowledgement, want 1", n)
	}
}

// TestReimportKeepsOrClearsTheAcknowledgement checks that an acknowledgement
// survives a re-import that only moves lines, and is cleared when the gaps
// themselves change.
func TestReimportKeepsOrClearsTheAcknowledgement(t *testing.T) {
	db := MustOpen(t)
	ctx := context.Background()
	mustImport(t, db, "shop", sharedBodyDoc(t, 1))
	if err := db.AcknowledgeSchemaGaps(ctx, "admin@example.com", "broken"); err != nil {
		t.Fatal(err)
	}
	moved := sharedBodyDoc(t, 2) // one more path item before it: every line moves
	mustImport(t, db, "shop", moved)
	if by, _ := db.SchemaGapsAckBy(ctx, "broken"); by != "admin@example.com" {
		t.Errorf("acknowledgement %q after lines moved, want kept", by)
	}
	changed := *moved
	changed.Operations = slices.Clone(moved.Operations)
	for i, o := range changed.Operations {
		if o.Tool == "broken" {
			o.SchemaGaps = []string{"api.yaml:1:1: unresolvable $ref: \"#/components/schemas/Other\""}
			changed.Operations[i] = o
		}
	}
	mustImport(t, db, "shop", &changed)
	if by, _ := db.SchemaGapsAckBy(ctx, "broken"); by != "" {
		t.Errorf("acknowledgement %q after the gaps changed, want cleared", by)
	}
}
