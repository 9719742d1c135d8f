package store

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/toolgate/toolgate/internal/apperr"
	"github.com/toolgate/toolgate/internal/openapi"
	"github.com/toolgate/toolgate/internal/policy"
)

// TestApprovalVoidWhenDefinitionMoved: the request pinned the tool's
// definition digest; if what agents would read changed by any path (here
// the source's origin, written directly), approving is void with the
// reason and nothing is applied.
func TestApprovalVoidWhenDefinitionMoved(t *testing.T) {
	ctx := context.Background()
	cases := map[string]func(t *testing.T, db *DB){
		"origin": func(t *testing.T, db *DB) {
			if _, err := db.db.Exec(`UPDATE sources SET origin = 'https://elsewhere.example.com'`); err != nil {
				t.Fatal(err)
			}
		},
		"description": func(t *testing.T, db *DB) {
			setJSONField(t, db, "tools", "operation_json", "name", "orders_delete", "summary", "Call me first")
		},
	}
	for name, change := range cases {
		t.Run(name, func(t *testing.T) {
			f := newCRFixture(t)
			cr := f.exposeRequest(t, f.admin)
			if !strings.HasPrefix(cr.DefinitionDigest, "sha256:") {
				t.Fatalf("request digest %q", cr.DefinitionDigest)
			}
			change(t, f.db)
			got, err := f.db.ApproveChangeRequest(ctx, f.approver.ID, cr.ID, "fine")
			if err != nil {
				t.Fatal(err)
			}
			if got.Status != StatusVoid || !strings.Contains(got.VoidReason, "definition (what agents read or send) changed") {
				t.Fatalf("approval = %s %q, want void for the definition", got.Status, got.VoidReason)
			}
			if stored, _ := f.db.ToolPolicy(ctx, f.del.ToolID); stored.Policy.Exposed {
				t.Fatal("a void approval exposed the tool")
			}
		})
	}
}

// TestApprovalPinsTheDigestItApproved: an unchanged tool is approved, and
// the published tool carries the digest the request pinned.
func TestApprovalPinsTheDigestItApproved(t *testing.T) {
	ctx := context.Background()
	f := newCRFixture(t)
	cr := f.exposeRequest(t, f.admin)
	got, err := f.db.ApproveChangeRequest(ctx, f.approver.ID, cr.ID, "fine")
	if err != nil || got.Status != StatusApproved {
		t.Fatalf("approve: %v %+v", err, got)
	}
	pv, err := f.db.PreviewPublish(ctx)
	if err != nil {
		t.Fatal(err)
	}
	for _, tool := range pv.Next.Tools {
		if tool.Name == "orders_delete" {
			if tool.Digest != cr.DefinitionDigest {
				t.Fatalf("published digest %s, approved %s", tool.Digest, cr.DefinitionDigest)
			}
			return
		}
	}
	t.Fatalf("orders_delete not in the next bundle (withheld %+v)", pv.Withheld)
}

// TestExposingAToolTheExecutorRefuses: a GET tool whose operation declares
// the Idempotency-Key header may keep a key on that header while hidden,
// but neither the editor nor a bulk action exposes it: runtimes would
// refuse it.
func TestExposingAToolTheExecutorRefuses(t *testing.T) {
	ctx := context.Background()
	db := MustOpen(t)
	doc, err := openapi.LoadBytes("s.yaml", []byte(`openapi: 3.0.3
info: {title: S, version: "1"}
servers: [{url: https://s.example.com}]
paths:
  /search:
    get:
      operationId: search
      parameters: [{name: Idempotency-Key, in: header, schema: {type: string}}]
      responses: {"200": {description: ok}}
`), openapi.Options{})
	if err != nil {
		t.Fatal(err)
	}
	mustImport(t, db, "s", doc)
	rec, err := db.ToolPolicyByName(ctx, "search")
	if err != nil {
		t.Fatal(err)
	}
	p := rec.Policy
	p.IdempotencyKey = &policy.IdempotencyKey{Header: "Idempotency-Key", Source: policy.KeyGenerated}
	if rec, err = db.SavePolicy(ctx, "admin", rec.ToolID, rec.Version, p); err != nil {
		t.Fatalf("a hidden tool's key: %v", err)
	}
	p.Exposed = true
	_, err = db.SavePolicy(ctx, "admin", rec.ToolID, rec.Version, p)
	wantCode(t, err, apperr.Invalid)
	if !errors.Is(err, ErrExecutorRefuses) || !strings.Contains(apperr.MessageOf(err), `header parameter "Idempotency-Key" is reserved`) {
		t.Fatalf("expose: %v", err)
	}
	rep, err := db.BulkTools(ctx, "admin", BulkExpose, []string{"search"}, true)
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Skipped) != 1 || !strings.Contains(rep.Skipped[0].Why, "is reserved") {
		t.Fatalf("bulk expose: %+v", rep)
	}
	if got, _ := db.ToolPolicyByName(ctx, "search"); got.Policy.Exposed {
		t.Fatal("the tool was exposed")
	}
}
