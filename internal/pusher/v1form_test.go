package pusher_test

import (
	"context"
	"log/slog"
	"testing"
	"time"

	"github.com/toolgate/toolgate/internal/bundle"
	"github.com/toolgate/toolgate/internal/oci"
	"github.com/toolgate/toolgate/internal/policy"
	"github.com/toolgate/toolgate/internal/pusher"
	"github.com/toolgate/toolgate/internal/risk"
	"github.com/toolgate/toolgate/internal/store/storetest"
)

// TestRegistryHoldsTheV1Form: a version published as toolgate.bundle/v2
// reaches the registry as its v1 form — what every runtime pulling from a
// registry reads, without the tool scoped to a group — and the timestamp
// names those bytes, so a runtime that reads only v1 verifies both.
func TestRegistryHoldsTheV1Form(t *testing.T) {
	f := newFixture(t)
	f.reg.Start()
	ctx := context.Background()
	storetest.MustAddTool(t, f.db, storetest.FixtureTool{Source: "orders", Origin: "https://api.example.com", Name: "support_orders",
		Method: "GET", Path: "/support", Class: risk.Read, Exposed: true, Policy: &policy.Policy{Exposed: true, Groups: []string{"support"}}})
	rec := f.publish(t)
	if rec.Downgrade == nil {
		t.Fatal("the version has no v1 form")
	}
	c, err := oci.New(f.reg.Target(repo), oci.Options{PlainHTTP: true, Credentials: f.reg.Credentials})
	if err != nil {
		t.Fatal(err)
	}
	p := pusher.New(f.db, c, slog.New(slog.NewTextHandler(f.logs, nil)), pusher.Options{Signer: staticSigner{f.key}})
	if err := p.Drain(ctx); err != nil {
		t.Fatal(err)
	}
	keys := bundle.KeySet{Keys: []bundle.PublicKey{f.key.Public()}}
	for _, tag := range []string{oci.TagLatest, oci.Tag(rec.Version)} {
		pulled, err := c.Pull(ctx, tag, "")
		if err != nil || string(pulled.Signed) != rec.Downgrade.Signed {
			t.Fatalf("%s in the registry is not the v1 form (%v)", tag, err)
		}
		b, _, err := bundle.Verify(pulled.Signed, keys, bundle.VerifyOptions{Now: time.Now(), Schemas: []string{bundle.SchemaV1}})
		if err != nil || len(b.Tools) != 1 || b.Tools[0].Name != "list_orders" {
			t.Fatalf("a v1 runtime reads %s as %+v (%v), want list_orders only", tag, b, err)
		}
	}
	stamp, err := c.PullTimestamp(ctx, "")
	if err != nil {
		t.Fatal(err)
	}
	ts, err := bundle.VerifyTimestamp(stamp.Signed, keys, time.Now())
	if err != nil || !ts.Names(rec.Version, bundle.BundleDigest([]byte(rec.Downgrade.Signed))) {
		t.Errorf("the timestamp %+v (%v) does not name the v1 form of v%d", ts, err, rec.Version)
	}
}
