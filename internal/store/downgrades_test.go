package store

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/toolgate/toolgate/internal/bundle"
	"github.com/toolgate/toolgate/internal/policy"
	"github.com/toolgate/toolgate/internal/risk"
)

// v2Tools adds a plain READ tool, a READ tool scoped to a group and a
// WRITE tool with a condition.
func (f *publishFixture) v2Tools(t *testing.T) {
	t.Helper()
	f.tool(t, "list_orders", "GET", risk.Read, true)
	MustAddTool(t, f.db, FixtureTool{Source: "orders", Origin: "https://api.example.com", Name: "support_orders",
		Method: "GET", Path: "/support", Class: risk.Read, Exposed: true, Policy: &policy.Policy{Exposed: true, Groups: []string{"support"}}})
	MustAddTool(t, f.db, FixtureTool{Source: "orders", Origin: "https://api.example.com", Name: "refund",
		Method: "POST", Path: "/refund", Class: risk.Write, Exposed: true, Policy: &policy.Policy{Exposed: true,
			Conditions: []policy.Condition{{Effect: policy.ConditionDeny, Expr: "false", Message: "never"}}}})
}

// TestPublishV2SignsItsV1Form: a version whose tools use groups or
// conditions is published as toolgate.bundle/v2 with its v1 form beside
// it — the same version without those tools, signed by the same key —
// stored, served with the version and audited; a rollback signs one too.
// A version without them is v1 and has none.
func TestPublishV2SignsItsV1Form(t *testing.T) {
	ctx := context.Background()
	f := newPublishFixture(t)
	f.v2Tools(t)
	rec := f.publish(t, "")
	if b := f.verified(t, rec); b.Schema != bundle.SchemaV2 || len(b.Tools) != 3 {
		t.Fatalf("published %s with %v (withheld %+v), want %s with 3 tools", b.Schema, toolNames(b), rec.Withheld, bundle.SchemaV2)
	}
	d := rec.Downgrade
	if d == nil || d.Version != rec.Version || d.ToolCount != 1 || d.Withheld != 2 || d.ETag != BundleETag([]byte(d.Signed)) || d.ETag == rec.ETag {
		t.Fatalf("v1 form = %+v", d)
	}
	v1Only := bundle.VerifyOptions{Now: f.now, Schemas: []string{bundle.SchemaV1}}
	b1, _, err := bundle.Verify([]byte(d.Signed), bundle.KeySet{Keys: []bundle.PublicKey{f.key.Public()}}, v1Only)
	if err != nil || b1.Version != rec.Version || strings.Join(toolNames(b1), ",") != "list_orders" {
		t.Fatalf("the v1 form verifies as %v (%v), want v%d with list_orders only", b1, err, rec.Version)
	}
	served, err := f.db.ServedBundle(ctx, rec.Version)
	if err != nil || served.Downgrade == nil || *served.Downgrade != *d {
		t.Fatalf("served v%d: %+v, %v; want its v1 form %+v", rec.Version, served, err, d)
	}
	entries, _ := f.db.AuditEntries(ctx)
	var after string
	for _, e := range entries {
		if e.Action == "bundle.publish" {
			after = e.After
		}
	}
	if !strings.Contains(after, `"v1_form":{"etag":`) || !strings.Contains(after, `"withheld":2`) {
		t.Errorf("the publish audit does not record the v1 form: %s", after)
	}

	f.now = f.now.Add(time.Hour)
	back, err := f.db.Rollback(ctx, PublishRequest{Actor: "admin@example.com", Key: f.key}, rec.Version)
	if err != nil {
		t.Fatal(err)
	}
	if back.Downgrade == nil || back.Downgrade.Version != back.Version || back.Downgrade.Withheld != 2 {
		t.Errorf("rollback's v1 form = %+v", back.Downgrade)
	}

	plain := newPublishFixture(t)
	plain.tool(t, "list_orders", "GET", risk.Read, true)
	v := plain.publish(t, "")
	if plain.verified(t, v).Schema != bundle.SchemaV1 || v.Downgrade != nil {
		t.Errorf("a version without groups or conditions: %s with v1 form %+v", plain.verified(t, v).Schema, v.Downgrade)
	}
	if s, err := plain.db.ServedBundle(ctx, v.Version); err != nil || s.Downgrade != nil {
		t.Errorf("served v1 version has a v1 form: %+v, %v", s, err)
	}
}

// TestRuntimeInstancesKeepTheirSchemas: the schemas a runtime said it
// reads are recorded with its fetch and listed, "" for one that sent
// none, and follow its latest fetch (an upgraded runtime).
func TestRuntimeInstancesKeepTheirSchemas(t *testing.T) {
	ctx := context.Background()
	db := MustOpen(t)
	u := mustUser(t, db, "admin@example.com", "admin")
	tok, _, err := db.CreateRuntimeToken(ctx, u.Email, "edge")
	if err != nil {
		t.Fatal(err)
	}
	both := bundle.SchemaV1 + ", " + bundle.SchemaV2
	at := time.Date(2025, 6, 1, 12, 0, 0, 0, time.UTC)
	for _, f := range []RuntimeFetch{
		{TokenID: tok.ID, InstanceID: "old", Name: "a", At: at},
		{TokenID: tok.ID, InstanceID: "new", Name: "b", Schemas: both, At: at},
	} {
		if err := db.RecordRuntimeFetch(ctx, f); err != nil {
			t.Fatal(err)
		}
	}
	got := map[string]string{}
	list, err := db.ListRuntimeInstances(ctx)
	if err != nil {
		t.Fatal(err)
	}
	for _, i := range list {
		got[i.InstanceID] = i.Schemas
	}
	if got["old"] != "" || got["new"] != both {
		t.Fatalf("schemas listed %q", got)
	}
	if err := db.RecordRuntimeFetch(ctx, RuntimeFetch{TokenID: tok.ID, InstanceID: "old", Name: "a", Schemas: both, At: at.Add(time.Minute)}); err != nil {
		t.Fatal(err)
	}
	list, _ = db.ListRuntimeInstances(ctx)
	for _, i := range list {
		if i.InstanceID == "old" && i.Schemas != both {
			t.Errorf("the upgraded runtime still lists %q", i.Schemas)
		}
	}
}
