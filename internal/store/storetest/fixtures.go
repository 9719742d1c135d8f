package storetest

import (
	"context"
	"testing"

	"github.com/toolgate/toolgate/internal/store"
	"github.com/toolgate/toolgate/internal/store/storetest/fixture"
)

// FixtureTool describes one tool for MustAddTool (fixture.Tool).
type FixtureTool = fixture.Tool

// SeedTool describes a tool for MustSeedTool (fixture.Seed).
type SeedTool = fixture.Seed

// MustAddTool inserts a tool (and its source when new) and returns its id.
func MustAddTool(tb testing.TB, db *store.DB, ft FixtureTool) int64 {
	tb.Helper()
	return fixture.MustAddTool(tb, conn(tb, db), db.Now(), ft)
}

// MustSeedTool inserts one tool with its policy (fixture.MustSeedTool, from
// the project defaults unless s.Policy is set) and returns the stored
// policy.
func MustSeedTool(tb testing.TB, db *store.DB, s SeedTool) *store.PolicyRecord {
	tb.Helper()
	ctx := context.Background()
	d, err := db.ProjectDefaults(ctx)
	if err != nil {
		tb.Fatalf("storetest.MustSeedTool: %v", err)
	}
	fixture.MustSeedTool(tb, conn(tb, db), db.Now(), s, d.Defaults)
	rec, err := db.ToolPolicyByName(ctx, s.Name)
	if err != nil {
		tb.Fatalf("storetest.MustSeedTool: %v", err)
	}
	return rec
}

// Tamper rewrites the actor of audit entry id behind the store's back, as
// an attacker with file access could (fixture.MustTamper), so tests of
// `audit verify` can check the chain catches it.
func Tamper(tb testing.TB, db *store.DB, id int64, actor string) {
	tb.Helper()
	fixture.MustTamper(tb, conn(tb, db), db.Engine() == store.Postgres, id, actor)
}
