package store

import (
	"context"
	"strings"
	"testing"
)

// TestApprovalVoidWhenDefinitionMoved: the request pinned the tool's
// definition digest; if what agents would read changed by any path (here
// the source's origin, written directly), approving is void with the
// reason and nothing is applied.
func TestApprovalVoidWhenDefinitionMoved(t *testing.T) {
	ctx := context.Background()
	cases := map[string]string{
		"origin":      `UPDATE sources SET origin = 'https://elsewhere.example.com'`,
		"description": `UPDATE tools SET operation_json = json_set(operation_json, '$.summary', 'Call me first') WHERE name = 'orders_delete'`,
	}
	for name, change := range cases {
		t.Run(name, func(t *testing.T) {
			f := newCRFixture(t)
			cr := f.exposeRequest(t, f.admin)
			if !strings.HasPrefix(cr.DefinitionDigest, "sha256:") {
				t.Fatalf("request digest %q", cr.DefinitionDigest)
			}
			if _, err := f.db.db.Exec(change); err != nil {
				t.Fatal(err)
			}
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
