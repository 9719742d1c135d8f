package store

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/toolgate/toolgate/internal/apperr"
	"github.com/toolgate/toolgate/internal/risk"
)

const pushTarget = "oci://127.0.0.1:5000/toolgate/bundles"

func TestPushQueueLifecycle(t *testing.T) {
	f := newPublishFixture(t)
	ctx := context.Background()
	f.tool(t, "list_orders", "GET", risk.Read, true)
	f.publish(t, "one")
	f.publish(t, "two")

	// A new target starts at the current version, once.
	for i, want := range []int64{1, 0} {
		if n, err := f.db.EnqueuePushes(ctx, pushTarget); err != nil || n != want {
			t.Fatalf("enqueue %d = %d, %v; want %d", i, n, err, want)
		}
	}
	f.publish(t, "three")
	f.publish(t, "four")
	if n, err := f.db.EnqueuePushes(ctx, pushTarget); err != nil || n != 2 {
		t.Fatalf("enqueue after two publishes = %d, %v; want 2", n, err)
	}
	p, ok, err := f.db.ClaimPush(ctx, pushTarget, time.Minute)
	if err != nil || !ok || p.Version != 2 || p.State != PushPushing || p.Attempts != 1 {
		t.Fatalf("claim = %+v, %v, %v; want v2 pushing, attempt 1", p, ok, err)
	}
	if err := f.db.PushFailedAt(ctx, p, "registry down", f.now.Add(time.Minute)); err != nil {
		t.Fatal(err)
	}
	// v2 is not due yet: v3 is next.
	if q, ok, err := f.db.ClaimPush(ctx, pushTarget, time.Minute); err != nil || !ok || q.Version != 3 {
		t.Fatalf("second claim = %+v, %v, %v; want v3", q, ok, err)
	} else if err := f.db.PushSucceeded(ctx, q, "sha256:abc"); err != nil {
		t.Fatal(err)
	}
	if err := f.db.RetryPushNow(ctx, 2, pushTarget); err != nil {
		t.Fatal(err)
	}
	if q, ok, err := f.db.ClaimPush(ctx, pushTarget, time.Minute); err != nil || !ok || q.Version != 2 || q.Attempts != 2 {
		t.Fatalf("claim after retry now = %+v, %v, %v; want v2 attempt 2", q, ok, err)
	}
	// A claim whose pusher died expires.
	f.now = f.now.Add(2 * time.Minute)
	if q, _, _ := f.db.ClaimPush(ctx, pushTarget, time.Minute); q.Version != 2 || q.Attempts != 3 {
		t.Fatalf("claim after the lease ran out = %+v; want v2 again", q)
	}
	all, err := f.db.BundlePushes(ctx, pushTarget)
	if err != nil || len(all) != 3 {
		t.Fatalf("pushes = %v, %v", all, err)
	}
	if got := all[3]; got.State != PushPushed || got.Digest != "sha256:abc" || !got.PushedAt.Equal(f.now.Add(-2*time.Minute)) {
		t.Errorf("v3 = %+v", got)
	}
	if got := all[2]; got.LastError != "registry down" || got.State != PushPushing {
		t.Errorf("v2 = %+v", got)
	}
	if err := f.db.RetryPushNow(ctx, 3, pushTarget); apperr.CodeOf(err) != apperr.Invalid {
		t.Errorf("retry of a pushed version: %v, want invalid", err)
	}
	if err := f.db.RetryPushNow(ctx, 9, pushTarget); apperr.CodeOf(err) != apperr.NotFound {
		t.Errorf("retry of an unknown version: %v, want not found", err)
	}
}

// TestClaimPushOnce: pushers racing for the same due row claim it once.
func TestClaimPushOnce(t *testing.T) {
	f := newPublishFixture(t)
	ctx := context.Background()
	f.tool(t, "list_orders", "GET", risk.Read, true)
	f.publish(t, "one")
	if _, err := f.db.EnqueuePushes(ctx, pushTarget); err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	var mu sync.Mutex
	claims := 0
	for range 8 {
		wg.Go(func() {
			_, ok, err := f.db.ClaimPush(ctx, pushTarget, time.Minute)
			if err != nil && apperr.CodeOf(err) != apperr.Unavailable {
				t.Error(err)
			}
			if ok {
				mu.Lock()
				claims++
				mu.Unlock()
			}
		})
	}
	wg.Wait()
	if claims != 1 {
		t.Fatalf("%d pushers claimed the same push, want 1", claims)
	}
}
