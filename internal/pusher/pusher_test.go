package pusher_test

import (
	"context"
	"crypto/rand"
	"log/slog"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/toolgate/toolgate/internal/bundle"
	"github.com/toolgate/toolgate/internal/oci"
	"github.com/toolgate/toolgate/internal/pusher"
	"github.com/toolgate/toolgate/internal/risk"
	"github.com/toolgate/toolgate/internal/store"
	"github.com/toolgate/toolgate/internal/store/storetest"
	"github.com/toolgate/toolgate/internal/testing/ocitest"
	"github.com/toolgate/toolgate/internal/testing/syncbuf"
)

const repo = "toolgate/bundles"

type fixture struct {
	db   *store.DB
	key  bundle.SigningKey
	reg  *ocitest.Registry
	logs *syncbuf.Buffer
}

func newFixture(t *testing.T) *fixture {
	t.Helper()
	db := storetest.MustOpen(t)
	key, err := bundle.GenerateKey(rand.Reader, time.Now())
	if err != nil {
		t.Fatal(err)
	}
	storetest.MustAddTool(t, db, storetest.FixtureTool{Source: "orders", Origin: "https://api.example.com", Name: "list_orders",
		Method: "GET", Path: "/orders", Class: risk.Read, Exposed: true})
	return &fixture{db: db, key: key, reg: ocitest.New(t, ocitest.Options{Auth: true}), logs: &syncbuf.Buffer{}}
}

func (f *fixture) publish(t *testing.T) *store.BundleRecord {
	t.Helper()
	rec, err := f.db.Publish(context.Background(), store.PublishRequest{Actor: "admin@example.com", Key: f.key})
	if err != nil {
		t.Fatal(err)
	}
	return rec
}

func (f *fixture) pusher(t *testing.T) *pusher.Pusher {
	t.Helper()
	c, err := oci.New(f.reg.Target(repo), oci.Options{PlainHTTP: true, Credentials: f.reg.Credentials})
	if err != nil {
		t.Fatal(err)
	}
	log := slog.New(slog.NewTextHandler(f.logs, &slog.HandlerOptions{Level: slog.LevelDebug}))
	return pusher.New(f.db, c, log, pusher.Options{Backoff: time.Hour})
}

func (f *fixture) push(t *testing.T, v int64) store.BundlePush {
	t.Helper()
	all, err := f.db.BundlePushes(context.Background(), f.reg.Target(repo).String())
	if err != nil {
		t.Fatal(err)
	}
	return all[v]
}

// TestRegistryDownThenRetried: a publish while the registry is down
// succeeds, the push is recorded as failed with its reason, and a retry
// once the registry is up pushes it. The credentials never reach the log.
func TestRegistryDownThenRetried(t *testing.T) {
	f := newFixture(t)
	ctx := context.Background()
	p := f.pusher(t)
	rec := f.publish(t) // the registry is not running
	if err := p.Drain(ctx); err != nil {
		t.Fatal(err)
	}
	got := f.push(t, rec.Version)
	if got.State != store.PushFailed || got.Attempts != 1 || !strings.Contains(got.LastError, "connection refused") {
		t.Fatalf("push while the registry is down = %+v", got)
	}
	// Not due yet (an hour of backoff): another drain does nothing.
	if err := p.Drain(ctx); err != nil || f.push(t, rec.Version).Attempts != 1 {
		t.Fatalf("a push not due was attempted again (%v)", err)
	}
	f.reg.Start()
	if err := f.db.RetryPushNow(ctx, rec.Version, p.Target()); err != nil {
		t.Fatal(err)
	}
	if err := p.Drain(ctx); err != nil {
		t.Fatal(err)
	}
	got = f.push(t, rec.Version)
	if got.State != store.PushPushed || got.LastError != "" || !strings.HasPrefix(got.Digest, "sha256:") {
		t.Fatalf("push after retry = %+v", got)
	}
	c, _ := oci.New(f.reg.Target(repo), oci.Options{PlainHTTP: true, Credentials: f.reg.Credentials})
	pulled, err := c.Pull(ctx, oci.TagLatest, "")
	if err != nil || string(pulled.Signed) != rec.Signed {
		t.Fatalf("latest in the registry is not the published bundle: %v", err)
	}
	logs := f.logs.String()
	if !strings.Contains(logs, "bundle push to the registry failed") || !strings.Contains(logs, "bundle pushed to the registry") {
		t.Errorf("push outcomes not logged:\n%s", logs)
	}
	if strings.Contains(logs, f.reg.Credentials.Password) {
		t.Errorf("the registry password is in the log:\n%s", logs)
	}
}

// TestTwoPushersEndAtNewest: two consoles' pushers draining the same
// queue push every version once and leave latest at the newest.
func TestTwoPushersEndAtNewest(t *testing.T) {
	f := newFixture(t)
	f.reg.Start()
	ctx := context.Background()
	a, b := f.pusher(t), f.pusher(t)
	f.publish(t)
	if err := a.Drain(ctx); err != nil { // the target starts at v1
		t.Fatal(err)
	}
	var last *store.BundleRecord
	for range 4 {
		last = f.publish(t)
	}
	var wg sync.WaitGroup
	for _, p := range []*pusher.Pusher{a, b} {
		wg.Go(func() {
			if err := p.Drain(ctx); err != nil {
				t.Error(err)
			}
		})
	}
	wg.Wait()
	for v := int64(1); v <= last.Version; v++ {
		if got := f.push(t, v); got.State != store.PushPushed || got.Attempts != 1 {
			t.Errorf("v%d = %+v, want pushed in one attempt", v, got)
		}
	}
	c, _ := oci.New(f.reg.Target(repo), oci.Options{PlainHTTP: true, Credentials: f.reg.Credentials})
	if v, _, err := c.LatestVersion(ctx); err != nil || v != last.Version {
		t.Fatalf("latest = v%d, %v; want v%d", v, err, last.Version)
	}
}
