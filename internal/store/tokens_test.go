package store

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/toolgate/toolgate/internal/apperr"
)

func TestRuntimeTokens(t *testing.T) {
	ctx := context.Background()
	f := newPublishFixture(t)
	tok, secret, err := f.db.CreateRuntimeToken(ctx, "admin@example.com", "edge-eu")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(secret, RuntimeTokenPrefix) || len(secret) < 40 || tok.Name != "edge-eu" {
		t.Fatalf("token %+v secret %q", tok, secret)
	}
	var stored string
	if err := f.db.db.Get(&stored, `SELECT token_hash FROM runtime_tokens WHERE id = ?`, tok.ID); err != nil || stored == secret || stored != hashToken(secret) {
		t.Fatalf("stored %q: want the SHA-256 only (%v)", stored, err)
	}

	// The runtime API's token index is fed by ActiveRuntimeTokens: a token
	// is found there by HashRuntimeToken of its value, and by nothing else.
	active := func(t *testing.T, value string) bool {
		t.Helper()
		list, _, err := f.db.ActiveRuntimeTokens(ctx)
		if err != nil {
			t.Fatal(err)
		}
		h := HashRuntimeToken(value)
		return h != "" && slices.ContainsFunc(list, func(a ActiveRuntimeToken) bool { return a.Hash == h && a.ID == tok.ID })
	}
	t.Run("the active index finds the token by its value only", func(t *testing.T) {
		if !active(t, secret) {
			t.Fatal("a new token is not in the active index")
		}
		for _, bad := range []string{"", "tgr_", secret + "x", strings.Repeat("a", 300), "tgr_AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA"} {
			if active(t, bad) {
				t.Errorf("%q matches the token", bad)
			}
		}
	})
	t.Run("names", func(t *testing.T) {
		_, _, err := f.db.CreateRuntimeToken(ctx, "a", "edge-eu")
		wantCode(t, err, apperr.Conflict)
		_, _, err = f.db.CreateRuntimeToken(ctx, "a", "has space")
		wantCode(t, err, apperr.Invalid)
	})
	t.Run("revoked tokens stop working at once", func(t *testing.T) {
		f.now = f.now.Add(time.Minute)
		r, err := f.db.RevokeRuntimeToken(ctx, "admin@example.com", "edge-eu")
		if err != nil || r.RevokedAt == nil || !r.RevokedAt.Equal(f.now) {
			t.Fatalf("revoke: %+v, %v", r, err)
		}
		if active(t, secret) {
			t.Fatal("a revoked token is still in the active index")
		}
		_, err = f.db.RevokeRuntimeToken(ctx, "a", "edge-eu")
		wantCode(t, err, apperr.Conflict)
		_, err = f.db.RevokeRuntimeToken(ctx, "a", "nope")
		wantCode(t, err, apperr.NotFound)
	})
	entries, _ := f.db.AuditEntries(ctx)
	var actions []string
	for _, e := range entries {
		actions = append(actions, e.Action)
		if strings.Contains(e.After+e.Before, secret) {
			t.Error("the audit log holds the token")
		}
	}
	if !slices.Contains(actions, "token.create") || !slices.Contains(actions, "token.revoke") {
		t.Fatalf("audit actions %v", actions)
	}
}

func TestRuntimeFleet(t *testing.T) {
	ctx := context.Background()
	f := newPublishFixture(t)
	tok, _, err := f.db.CreateRuntimeToken(ctx, "admin", "fleet")
	if err != nil {
		t.Fatal(err)
	}
	fetch := func(instance, name string, version int64) {
		t.Helper()
		if err := f.db.RecordRuntimeFetch(ctx, RuntimeFetch{TokenID: tok.ID, InstanceID: instance, Name: name, Version: version, RemoteAddr: "10.0.0.9"}); err != nil {
			t.Fatal(err)
		}
	}
	fetch("i-1", "checkout", 0)
	first := f.now
	f.now = f.now.Add(time.Minute)
	fetch("i-1", "checkout", 3)
	fetch("i-2", "support", 2)
	fetch("", "", 0) // no instance id: only the token's last use
	list, err := f.db.ListRuntimeInstances(ctx)
	if err != nil || len(list) != 2 {
		t.Fatalf("instances %+v, %v", list, err)
	}
	i1 := list[0]
	if list[0].InstanceID != "i-1" {
		i1 = list[1]
	}
	if i1.Version != 3 || !i1.FirstSeen.Equal(first) || !i1.LastSeen.Equal(f.now) || i1.TokenName != "fleet" || i1.RemoteAddr != "10.0.0.9" {
		t.Fatalf("i-1 = %+v", i1)
	}
	tokens, err := f.db.ListRuntimeTokens(ctx)
	if err != nil || len(tokens) != 1 || tokens[0].ID != tok.ID {
		t.Fatalf("tokens %+v, %v", tokens, err)
	}
	if got := tokens[0]; got.LastUsedAt == nil || !got.LastUsedAt.Equal(f.now) {
		t.Fatalf("token last used %v", got.LastUsedAt)
	}
}

func TestRecordKeyChange(t *testing.T) {
	ctx := context.Background()
	f := newPublishFixture(t)
	err := f.db.RecordKeyChange(ctx, KeyChange{Actor: "cli:ops", Action: KeyRotate, Apply: func() (string, any, any, error) {
		return "kid-new", map[string]string{"active": "kid-old"}, map[string]string{"active": "kid-new"}, nil
	}})
	if err != nil {
		t.Fatal(err)
	}
	failed := errors.New("disk full")
	err = f.db.RecordKeyChange(ctx, KeyChange{Actor: "cli:ops", Action: KeyRetire, Apply: func() (string, any, any, error) {
		return "", nil, nil, failed
	}})
	if !errors.Is(err, failed) {
		t.Fatalf("err %v", err)
	}
	wantCode(t, f.db.RecordKeyChange(ctx, KeyChange{Action: "key.eat"}), apperr.Invalid)
	entries, _ := f.db.AuditEntries(ctx)
	last := entries[len(entries)-1]
	if last.Action != KeyRotate || last.Subject != "key:kid-new" || last.Actor != "cli:ops" || !strings.Contains(last.After, "kid-new") {
		t.Fatalf("last audit entry %+v (a failed change must not be audited)", last)
	}
	if n, err := f.db.VerifyAudit(ctx); err != nil || n != len(entries) {
		t.Fatalf("audit chain: %d, %v", n, err)
	}
}
