package cli

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/toolgate/toolgate/internal/bundle"
	"github.com/toolgate/toolgate/internal/config"
	"github.com/toolgate/toolgate/internal/risk"
	"github.com/toolgate/toolgate/internal/store"
	"github.com/toolgate/toolgate/internal/store/storetest"
)

// publishCLI runs toolgate with TOOLGATE_DATA_DIR=dir and returns stdout.
func publishCLI(t *testing.T, dir string, args ...string) (string, error) {
	t.Helper()
	var out, errOut bytes.Buffer
	env := func(k string) string {
		if k == "TOOLGATE_DATA_DIR" {
			return dir
		}
		return ""
	}
	err := Run(context.Background(), args, env, strings.NewReader(""), &out, &errOut)
	return out.String(), err
}

func mustPublishCLI(t *testing.T, dir string, args ...string) string {
	t.Helper()
	out, err := publishCLI(t, dir, args...)
	if err != nil {
		t.Fatalf("toolgate %v: %v", args, err)
	}
	return out
}

// seedOneTool migrates a SQLite database in dir and adds one exposed READ
// tool, list_orders, ready to publish.
func seedOneTool(t *testing.T, dir string) {
	t.Helper()
	db := storetest.Open(t, config.DBPath(dir))
	defer db.Close()
	seedOneToolIn(t, db)
}

// seedOneToolIn migrates db and adds the exposed READ tool list_orders.
func seedOneToolIn(t *testing.T, db *store.DB) {
	t.Helper()
	if _, err := db.Migrate(context.Background()); err != nil {
		t.Fatal(err)
	}
	storetest.MustAddTool(t, db, storetest.FixtureTool{Source: "orders", Origin: "https://api.example.com", Name: "list_orders",
		Method: "GET", Path: "/orders", Class: risk.Read, Exposed: true})
}

func TestPublishExportVerifyCLI(t *testing.T) {
	dir := t.TempDir()
	seedOneTool(t, dir)

	_, err := publishCLI(t, dir, "publish")
	if exitCode(err) != 1 || !strings.Contains(err.Error(), "no signing key") {
		t.Fatalf("publish before any key: %v", err)
	}
	kid := strings.TrimSpace(mustPublishCLI(t, dir, "keys", "rotate"))
	if out := mustPublishCLI(t, dir, "keys", "list"); !strings.Contains(out, kid+"\t") || !strings.Contains(out, "active") {
		t.Fatalf("keys list: %q", out)
	}
	if v := strings.TrimSpace(mustPublishCLI(t, dir, "publish", "--note", "from the cli")); v != "1" {
		t.Fatalf("publish printed %q, want 1", v)
	}
	if v := strings.TrimSpace(mustPublishCLI(t, dir, "publish")); v != "2" {
		t.Fatalf("second publish printed %q, want 2", v)
	}
	jwks, jws := filepath.Join(dir, "keys.jwks"), filepath.Join(dir, "b.jws")
	mustPublishCLI(t, dir, "keys", "export", "--out", jwks)
	mustPublishCLI(t, dir, "bundle", "export", "--version", "1", "--out", jws)
	if out := mustPublishCLI(t, dir, "bundle", "verify", "--key", jwks, jws); !strings.Contains(out, "valid: version 1, 1 tools") {
		t.Fatalf("verify: %q", out)
	}
	_, err = publishCLI(t, dir, "bundle", "export", "--version", "9", "--out", jws)
	if exitCode(err) != 1 {
		t.Fatalf("export of a missing version: %v", err)
	}

	// Rotation: the old key stays exported until retired; retiring the key
	// of the current bundle is refused.
	kid2 := strings.TrimSpace(mustPublishCLI(t, dir, "keys", "rotate"))
	set, _ := os.ReadFile(jwks)
	mustPublishCLI(t, dir, "keys", "export", "--out", jwks)
	set2, _ := os.ReadFile(jwks)
	ks, err := bundle.ParseKeySet(set2)
	if err != nil || len(ks.Keys) != 2 || bytes.Equal(set, set2) {
		t.Fatalf("after rotation the JWKS has %v", ks.KeyIDs())
	}
	if _, err := publishCLI(t, dir, "keys", "retire", "--", kid); exitCode(err) != 1 {
		t.Fatalf("retiring the key of the current bundle: %v", err)
	}
	mustPublishCLI(t, dir, "publish")
	mustPublishCLI(t, dir, "keys", "retire", "--", kid)
	if out := mustPublishCLI(t, dir, "keys", "export"); strings.Contains(out, kid) || !strings.Contains(out, kid2) {
		t.Fatalf("export after retire: %s", out)
	}

	// Tokens: printed once, revocable, everything audited as cli:<user>.
	tok := strings.TrimSpace(mustPublishCLI(t, dir, "token", "create", "--name", "edge"))
	if !strings.HasPrefix(tok, store.RuntimeTokenPrefix) {
		t.Fatalf("token %q", tok)
	}
	if _, err := publishCLI(t, dir, "token", "create", "--name", "edge"); exitCode(err) != 1 {
		t.Fatalf("duplicate token name: %v", err)
	}
	mustPublishCLI(t, dir, "token", "revoke", "edge")
	if _, err := publishCLI(t, dir, "token", "revoke", "edge"); exitCode(err) != 1 {
		t.Fatalf("second revoke: %v", err)
	}
	ctx := context.Background()
	db, _ := store.Open(ctx, config.DBPath(dir))
	defer db.Close()
	active, _, err := db.ActiveRuntimeTokens(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if slices.ContainsFunc(active, func(a store.ActiveRuntimeToken) bool { return a.Hash == store.HashRuntimeToken(tok) }) {
		t.Fatal("revoked token still authenticates")
	}
	entries, _ := db.AuditEntries(ctx)
	seen := map[string]bool{}
	for _, e := range entries {
		if !strings.HasPrefix(e.Actor, "cli:") {
			t.Errorf("audit actor %q", e.Actor)
		}
		seen[e.Action] = true
	}
	for _, a := range []string{"key.rotate", "key.retire", "bundle.publish", "token.create", "token.revoke"} {
		if !seen[a] {
			t.Errorf("no %s in the audit log", a)
		}
	}
	var ee *ExitError
	if _, err := publishCLI(t, dir, "bundle", "export"); !errors.As(err, &ee) || ee.Code != 2 {
		t.Fatalf("export without --out: %v", err)
	}
}

// TestPublishCLINamesWithheldTools: stdout stays the version; stderr says
// which exposed tool the bundle left out and why.
func TestPublishCLINamesWithheldTools(t *testing.T) {
	dir := t.TempDir()
	ctx := context.Background()
	db := storetest.Open(t, config.DBPath(dir))
	if _, err := db.Migrate(ctx); err != nil {
		t.Fatal(err)
	}
	storetest.MustAddTool(t, db, storetest.FixtureTool{Source: "orders", Origin: "https://api.example.com", Name: "list_orders",
		Method: "GET", Path: "/orders", Class: risk.Read, Exposed: true})
	storetest.MustAddTool(t, db, storetest.FixtureTool{Source: "orders", Origin: "https://api.example.com", Name: "purge_orders",
		Method: "DELETE", Path: "/orders", Class: risk.Destructive, Exposed: true})
	db.Close()
	mustPublishCLI(t, dir, "keys", "rotate")
	var out, errOut bytes.Buffer
	env := func(k string) string {
		if k == "TOOLGATE_DATA_DIR" {
			return dir
		}
		return ""
	}
	if err := Run(ctx, []string{"publish"}, env, strings.NewReader(""), &out, &errOut); err != nil {
		t.Fatal(err)
	}
	if out.String() != "1\n" || !strings.Contains(errOut.String(), "withheld purge_orders: DESTRUCTIVE and exposed without an approved change request") {
		t.Fatalf("stdout %q stderr %q", out.String(), errOut.String())
	}
}
