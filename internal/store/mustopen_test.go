package store

import (
	"context"
	"testing"

	"github.com/toolgate/toolgate/internal/store/storetest/fixture"
)

// The store's own tests open and fill databases as storetest does for other
// packages' tests (they cannot import it: it imports the store), with the
// same fixture package on the store's own connection.

type (
	FixtureTool = fixture.Tool
	SeedTool    = fixture.Seed
)

// Engines lists every engine, for tests that run on each.
var Engines = []Engine{SQLite, Postgres}

// engineUnderTest is the engine MustOpen opens (fixture.EngineEnv).
func engineUnderTest() Engine {
	if fixture.Postgres() {
		return Postgres
	}
	return SQLite
}

// MustOpen returns a migrated database on TestEngine, closed at the end of
// the test.
func MustOpen(tb testing.TB) *DB {
	tb.Helper()
	return MustOpenEngine(tb, engineUnderTest())
}

// MustOpenEngine is MustOpen on the given engine.
func MustOpenEngine(tb testing.TB, engine Engine) *DB {
	tb.Helper()
	db, _ := mustOpenMigrated(tb, engine)
	return db
}

// MustOpenShared returns two handles on one new, migrated database of
// engine — two consoles sharing it — both closed at the end of the test.
func MustOpenShared(tb testing.TB, engine Engine) (a, b *DB) {
	tb.Helper()
	a, where := mustOpenMigrated(tb, engine)
	return a, fixture.MustOpen(tb, where, opener(engine))
}

func mustOpenMigrated(tb testing.TB, engine Engine) (*DB, string) {
	tb.Helper()
	db, where := mustOpenUnmigrated(tb, engine)
	if _, err := db.Migrate(context.Background()); err != nil {
		tb.Fatalf("MustOpen: %v", err)
	}
	return db, where
}

// mustOpenUnmigrated opens a new, empty database on engine, closed at the
// end of the test, and returns it with where it is: the SQLite file's path
// or the PostgreSQL URL (for tests that open a second connection).
func mustOpenUnmigrated(tb testing.TB, engine Engine) (*DB, string) {
	tb.Helper()
	where := fixture.Place(tb, engine == Postgres)
	return fixture.MustOpen(tb, where, opener(engine)), where
}

func opener(engine Engine) func(context.Context, string) (*DB, error) {
	if engine == Postgres {
		return OpenURL
	}
	return Open
}

// MustAddTool inserts a fixture tool and returns its id.
func MustAddTool(tb testing.TB, db *DB, ft FixtureTool) int64 {
	tb.Helper()
	return fixture.MustAddTool(tb, db.db, db.Now(), ft)
}

// MustSeedTool inserts a seeded tool with its policy from the project
// defaults and returns the stored policy.
func MustSeedTool(tb testing.TB, db *DB, s SeedTool) *PolicyRecord {
	tb.Helper()
	ctx := context.Background()
	d, err := db.ProjectDefaults(ctx)
	if err != nil {
		tb.Fatalf("MustSeedTool: %v", err)
	}
	fixture.MustSeedTool(tb, db.db, db.Now(), s, d.Defaults)
	rec, err := db.ToolPolicyByName(ctx, s.Name)
	if err != nil {
		tb.Fatalf("MustSeedTool %s: %v", s.Name, err)
	}
	return rec
}

// tamper rewrites the actor of audit entry id behind the store's back
// (fixture.MustTamper).
func tamper(tb testing.TB, db *DB, id int64, actor string) {
	tb.Helper()
	fixture.MustTamper(tb, db.db, db.engine == Postgres, id, actor)
}
