package store

import (
	"context"
	"crypto/rand"
	"errors"
	"testing"
	"time"

	"github.com/toolgate/toolgate/internal/bundle"
	"github.com/toolgate/toolgate/internal/risk"
)

func closed(ch <-chan struct{}) bool {
	select {
	case <-ch:
		return true
	default:
		return false
	}
}

// TestChangedFiresOnCommittedChanges: Changed fires after a publish and a
// key change committed through this DB, not after one that failed.
func TestChangedFiresOnCommittedChanges(t *testing.T) {
	f := newPublishFixture(t)
	f.tool(t, "list_orders", "GET", risk.Read, true)
	ctx := context.Background()
	ch := f.db.Changed()
	failed := f.db.RecordKeyChange(ctx, KeyChange{Actor: "admin@example.com", Action: KeyRotate,
		Apply: func() (string, any, any, error) { return "", nil, nil, errors.New("disk full") }})
	if failed == nil || closed(ch) {
		t.Fatalf("a failed key change: err %v, fired %v", failed, closed(ch))
	}
	f.publish(t, "first")
	if !closed(ch) {
		t.Fatal("a publish did not fire Changed")
	}
	ch = f.db.Changed()
	if closed(ch) {
		t.Fatal("a new Changed channel is closed already")
	}
	if err := f.db.RecordKeyChange(ctx, KeyChange{Actor: "admin@example.com", Action: KeyRotate,
		Apply: func() (string, any, any, error) { return "k2", nil, nil, nil }}); err != nil {
		t.Fatal(err)
	}
	if !closed(ch) {
		t.Fatal("a key change did not fire Changed")
	}
}

// TestListenChangesAcrossConsoles: on PostgreSQL, a publish committed by
// another handle (another console) reaches ListenChanges; on SQLite it
// says it cannot listen.
func TestListenChangesAcrossConsoles(t *testing.T) {
	if err := MustOpenEngine(t, SQLite).ListenChanges(t.Context(), func() {}, func(error) {}); !errors.Is(err, ErrNoListen) {
		t.Fatalf("SQLite: %v, want ErrNoListen", err)
	}
	one, two := MustOpenShared(t, Postgres)
	key, err := bundle.GenerateKey(rand.Reader, time.Now())
	if err != nil {
		t.Fatal(err)
	}
	MustAddTool(t, two, FixtureTool{Source: "orders", Origin: "https://api.example.com", Name: "list_orders",
		Method: "GET", Path: "/list_orders", Class: risk.Read, Exposed: true})
	calls := make(chan struct{}, 8)
	ctx, cancel := context.WithCancel(t.Context())
	done := make(chan error, 1)
	go func() {
		done <- one.ListenChanges(ctx, func() { calls <- struct{}{} }, func(err error) { t.Errorf("listen: %v", err) })
	}()
	next := func(what string) {
		t.Helper()
		select {
		case <-calls:
		case <-time.After(10 * time.Second):
			t.Fatalf("%s: no call within 10 s", what)
		}
	}
	next("the session established") // called once on connecting: a change may have been missed
	if _, err := two.Publish(ctx, PublishRequest{Actor: "admin", Key: key}); err != nil {
		t.Fatal(err)
	}
	next("the other console's publish")
	cancel()
	if err := <-done; err != nil {
		t.Fatalf("ListenChanges ended with %v", err)
	}
}
