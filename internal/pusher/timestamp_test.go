package pusher_test

import (
	"context"
	"errors"
	"log/slog"
	"testing"
	"time"

	"github.com/toolgate/toolgate/internal/bundle"
	"github.com/toolgate/toolgate/internal/oci"
	"github.com/toolgate/toolgate/internal/pusher"
)

type staticSigner struct{ key bundle.SigningKey }

func (s staticSigner) Active(context.Context) (bundle.SigningKey, error) { return s.key, nil }

// TestTimestampBesideTheBundle: every drain leaves a signed timestamp
// naming the newest bundle beside it; it is re-signed once an interval
// has passed, at once after a publish, and not in between.
func TestTimestampBesideTheBundle(t *testing.T) {
	f := newFixture(t)
	f.reg.Start()
	ctx := context.Background()
	now := time.Now().UTC().Truncate(time.Second)
	f.db.Now = func() time.Time { return now }
	c, err := oci.New(f.reg.Target(repo), oci.Options{PlainHTTP: true, Credentials: f.reg.Credentials})
	if err != nil {
		t.Fatal(err)
	}
	p := pusher.New(f.db, c, slog.New(slog.NewTextHandler(f.logs, nil)),
		pusher.Options{Signer: staticSigner{f.key}, TimestampEvery: time.Minute})
	keys := bundle.KeySet{Keys: []bundle.PublicKey{f.key.Public()}}
	stamp := func(t *testing.T) (*bundle.Timestamp, string) {
		t.Helper()
		pulled, err := c.PullTimestamp(ctx, "")
		if err != nil {
			t.Fatal(err)
		}
		ts, err := bundle.VerifyTimestamp(pulled.Signed, keys, now)
		if err != nil {
			t.Fatal(err)
		}
		return ts, pulled.Digest
	}

	if err := p.Drain(ctx); err != nil { // nothing published: nothing to name
		t.Fatal(err)
	}
	if _, err := c.PullTimestamp(ctx, ""); !errors.Is(err, oci.ErrNotFound) {
		t.Fatalf("a timestamp before the first publish: %v", err)
	}
	v1 := f.publish(t)
	if err := p.Drain(ctx); err != nil {
		t.Fatal(err)
	}
	ts, d1 := stamp(t)
	if !ts.Names(v1.Version, bundle.BundleDigest([]byte(v1.Signed))) || !ts.IssuedAt.Equal(now) ||
		ts.ExpiresAt.Sub(ts.IssuedAt) != 3*time.Minute {
		t.Fatalf("timestamp = %+v, want v%d's digest, issued now, valid 3 intervals", ts, v1.Version)
	}
	now = now.Add(30 * time.Second)
	if err := p.Drain(ctx); err != nil {
		t.Fatal(err)
	}
	if _, d := stamp(t); d != d1 {
		t.Error("re-signed before the interval passed")
	}
	now = now.Add(30 * time.Second)
	if err := p.Drain(ctx); err != nil {
		t.Fatal(err)
	}
	if ts, d := stamp(t); d == d1 || !ts.IssuedAt.Equal(now) || ts.Version != v1.Version {
		t.Errorf("after an interval: %+v (manifest %s, was %s), want re-signed now", ts, d, d1)
	}
	v2 := f.publish(t)
	if err := p.Drain(ctx); err != nil {
		t.Fatal(err)
	}
	if ts, _ := stamp(t); !ts.Names(v2.Version, bundle.BundleDigest([]byte(v2.Signed))) {
		t.Errorf("after publishing v%d the timestamp names v%d", v2.Version, ts.Version)
	}
	if pulled, err := c.Pull(ctx, oci.TagLatest, ""); err != nil || string(pulled.Signed) != v2.Signed {
		t.Errorf("latest is not v%d: %v", v2.Version, err)
	}
}
