package store

import (
	"context"
	"crypto/rand"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/toolgate/toolgate/internal/apperr"
	"github.com/toolgate/toolgate/internal/auth"
	"github.com/toolgate/toolgate/internal/bundle"
	"github.com/toolgate/toolgate/internal/risk"
)

type publishFixture struct {
	db        *DB
	key       bundle.SigningKey
	admin, ap *User
	now       time.Time
}

func newPublishFixture(t *testing.T) *publishFixture {
	t.Helper()
	f := &publishFixture{db: MustOpen(t), now: time.Date(2025, 6, 1, 12, 0, 0, 0, time.UTC)}
	f.db.Now = func() time.Time { return f.now }
	var err error
	if f.key, err = bundle.GenerateKey(rand.Reader, f.now); err != nil {
		t.Fatal(err)
	}
	f.admin = mustUser(t, f.db, "admin@example.com", auth.RoleAdmin)
	f.ap = mustUser(t, f.db, "approver@example.com", auth.RoleApprover)
	return f
}

func (f *publishFixture) tool(t *testing.T, name, method string, class risk.Class, exposed bool) int64 {
	t.Helper()
	return MustAddTool(t, f.db, FixtureTool{Source: "orders", Origin: "https://api.example.com", Name: name,
		Method: method, Path: "/" + name, Class: class, Exposed: exposed})
}

func (f *publishFixture) publish(t *testing.T, note string) *BundleRecord {
	t.Helper()
	rec, err := f.db.Publish(context.Background(), PublishRequest{Actor: "admin@example.com", Note: note, Key: f.key})
	if err != nil {
		t.Fatalf("Publish: %v", err)
	}
	return rec
}

func (f *publishFixture) verified(t *testing.T, rec *BundleRecord) *bundle.Bundle {
	t.Helper()
	b, payload, err := bundle.Verify([]byte(rec.Signed), bundle.KeySet{Keys: []bundle.PublicKey{f.key.Public()}},
		bundle.VerifyOptions{Now: f.now})
	if err != nil {
		t.Fatalf("stored bundle v%d does not verify: %v", rec.Version, err)
	}
	if string(payload) != string(rec.Payload) {
		t.Fatalf("stored payload differs from the signed one")
	}
	return b
}

func toolNames(b *bundle.Bundle) []string {
	var out []string
	for _, t := range b.Tools {
		out = append(out, t.Name)
	}
	return out
}

func TestPublishVersionsAndImmutability(t *testing.T) {
	ctx := context.Background()
	f := newPublishFixture(t)
	f.tool(t, "list_orders", "GET", risk.Read, true)
	v1 := f.publish(t, "first")
	if v1.Version != 1 || v1.ToolCount != 1 || v1.PublishedBy != "admin@example.com" || v1.Note != "first" {
		t.Fatalf("v1 = %+v", v1)
	}
	if v1.ETag != BundleETag([]byte(v1.Signed)) || !strings.HasPrefix(v1.ETag, `"`) || len(v1.ETag) != 66 {
		t.Fatalf("etag %s is not the quoted hex SHA-256 of the JWS", v1.ETag)
	}
	f.verified(t, v1)

	f.now = f.now.Add(time.Hour)
	f.tool(t, "get_order", "GET", risk.Read, true)
	v2 := f.publish(t, "")
	if v2.Version != 2 || v2.ToolCount != 2 || !v2.IssuedAt.Equal(f.now) || !v2.ExpiresAt.Equal(f.now.Add(bundle.DefaultTTL)) {
		t.Fatalf("v2 = %+v", v2)
	}

	// v1 as stored is untouched by later publishes, and SQL cannot change it.
	again, err := f.db.BundleByVersion(ctx, 1)
	if err != nil || again.Signed != v1.Signed || string(again.Payload) != string(v1.Payload) {
		t.Fatalf("v1 changed: %v", err)
	}
	if _, err := f.db.db.ExecContext(ctx, `UPDATE bundles SET note = 'edited' WHERE version = 1`); err == nil ||
		!strings.Contains(err.Error(), "immutable") {
		t.Fatalf("UPDATE of a published bundle: %v, want the immutability trigger", err)
	}

	list, err := f.db.ListBundles(ctx)
	if err != nil || len(list) != 2 || list[0].Version != 2 || list[0].Signed != "" {
		t.Fatalf("ListBundles = %+v, %v", list, err)
	}
	latest, err := f.db.LatestBundle(ctx)
	if err != nil || latest.Version != 2 {
		t.Fatalf("LatestBundle = %+v, %v", latest, err)
	}
	_, err = f.db.BundleByVersion(ctx, 9)
	wantCode(t, err, apperr.NotFound)
}

func TestPublishConcurrentVersionsAreUnique(t *testing.T) {
	f := newPublishFixture(t)
	f.tool(t, "list_orders", "GET", risk.Read, true)
	errs := make(chan error, 4)
	for range 4 {
		go func() {
			_, err := f.db.Publish(context.Background(), PublishRequest{Actor: "a", Key: f.key})
			errs <- err
		}()
	}
	for range 4 {
		if err := <-errs; err != nil {
			t.Fatal(err)
		}
	}
	list, _ := f.db.ListBundles(context.Background())
	var versions []int64
	for _, r := range list {
		versions = append(versions, r.Version)
	}
	if !slices.Equal(versions, []int64{4, 3, 2, 1}) {
		t.Fatalf("versions %v, want 4..1", versions)
	}
}

func TestPublishIncludesOnlyExposedApprovedState(t *testing.T) {
	ctx := context.Background()
	f := newPublishFixture(t)
	f.tool(t, "list_orders", "GET", risk.Read, true)
	f.tool(t, "create_order", "POST", risk.Write, false) // not exposed
	f.tool(t, "delete_order", "DELETE", risk.Destructive, true)
	MustAddTool(t, f.db, FixtureTool{Source: "orders", Name: "purge_orders", Method: "DELETE", Path: "/purge",
		Class: risk.Destructive, Exposed: true, RequestedBy: f.admin.ID, ApprovedBy: f.ap.ID})
	removed := f.tool(t, "old_report", "GET", risk.Read, true)
	suspended := f.tool(t, "moved_report", "GET", risk.Read, true)
	if _, err := f.db.db.Exec(`UPDATE tools SET removed_at = ? WHERE id = ?`, formatTime(f.now), removed); err != nil {
		t.Fatal(err)
	}
	if _, err := f.db.db.Exec(`UPDATE tool_policies SET suspended_reason = 'class raised' WHERE tool_id = ?`, suspended); err != nil {
		t.Fatal(err)
	}

	p, err := f.db.PreviewPublish(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if want := []WithheldTool{{Tool: "delete_order", Reason: "DESTRUCTIVE and exposed without an approved change request"}}; !slices.Equal(p.Withheld, want) {
		t.Errorf("withheld %+v, want %+v", p.Withheld, want)
	}
	if got := p.Changes.ToolsAdded; !slices.Equal(got, []string{"list_orders", "purge_orders"}) {
		t.Errorf("preview adds %v", got)
	}
	b := f.verified(t, f.publish(t, ""))
	if got := toolNames(b); !slices.Equal(got, []string{"list_orders", "purge_orders"}) {
		t.Fatalf("bundle tools %v, want only exposed, approved, present ones", got)
	}
	purge := b.Tools[1]
	if len(purge.Approvals) != 1 || purge.Approvals[0].ApprovedBy != "approver@example.com" ||
		!strings.HasPrefix(purge.Approvals[0].Summary, "Expose a destructive") || !purge.Annotations.DestructiveHint {
		t.Errorf("purge_orders = %+v", purge)
	}
	if len(b.Sources) != 1 || b.Sources[0].Origin != "https://api.example.com" {
		t.Errorf("sources %+v", b.Sources)
	}
}

func TestPublishRefusesSourcesWithoutOrigin(t *testing.T) {
	f := newPublishFixture(t)
	f.tool(t, "list_orders", "GET", risk.Read, true)
	MustAddTool(t, f.db, FixtureTool{Source: "billing", Name: "list_invoices", Method: "GET", Path: "/invoices", Class: risk.Read, Exposed: true})
	MustAddTool(t, f.db, FixtureTool{Source: "hidden", Name: "unused", Method: "GET", Path: "/x", Class: risk.Read})
	_, err := f.db.Publish(context.Background(), PublishRequest{Actor: "a", Key: f.key})
	wantCode(t, err, apperr.Invalid)
	if msg := apperr.MessageOf(err); !strings.Contains(msg, "billing") || strings.Contains(msg, "hidden") || strings.Contains(msg, "orders") {
		t.Fatalf("message %q should name billing only", msg)
	}
	if list, _ := f.db.ListBundles(context.Background()); len(list) != 0 {
		t.Fatal("a refused publish stored a bundle")
	}
}

func TestRollbackPublishesOldContentAsNewVersion(t *testing.T) {
	ctx := context.Background()
	f := newPublishFixture(t)
	f.tool(t, "list_orders", "GET", risk.Read, true)
	v1 := f.publish(t, "")
	f.tool(t, "get_order", "GET", risk.Read, true)
	f.now = f.now.Add(time.Hour)
	f.publish(t, "")
	f.now = f.now.Add(time.Hour)
	v3, err := f.db.Rollback(ctx, PublishRequest{Actor: "admin@example.com", Key: f.key}, 1)
	if err != nil {
		t.Fatal(err)
	}
	if v3.Version != 3 || v3.RollbackOf != 1 || !strings.Contains(v3.Note, "v1") || v3.ETag == v1.ETag {
		t.Fatalf("rollback = %+v", v3)
	}
	b3, b1 := f.verified(t, v3), f.verified(t, v1)
	if !bundle.Diff(b1, b3).Empty() || !b3.IssuedAt.Equal(f.now) || b3.Version != 3 {
		t.Fatalf("rollback content differs from v1 or keeps old times: %+v", bundle.Diff(b1, b3))
	}
	_, err = f.db.Rollback(ctx, PublishRequest{Actor: "a", Key: f.key}, 42)
	wantCode(t, err, apperr.NotFound)

	entries, _ := f.db.AuditEntries(ctx)
	var actions []string
	for _, e := range entries {
		actions = append(actions, e.Action)
	}
	if !slices.Contains(actions, "bundle.publish") || !slices.Contains(actions, "bundle.rollback") {
		t.Fatalf("audit actions %v", actions)
	}
}

func TestPublishWithoutKeyIsAConflict(t *testing.T) {
	f := newPublishFixture(t)
	_, err := f.db.Publish(context.Background(), PublishRequest{Actor: "a"})
	wantCode(t, err, apperr.Conflict)
}
