// Package storetest is the store for tests of other packages: a migrated
// database on the engine TOOLGATE_TEST_ENGINE selects (a real engine with
// the real migrations, instead of a mock), and tools and audit tampering
// written behind the store's back through a second connection. It imports
// testing, so only tests import it; the console and runtime binary does not
// link it (cmd/toolgate's TestBinaryLinksNoTestCode).
package storetest

import (
	"context"
	"sync"
	"testing"

	"github.com/jmoiron/sqlx"
	// The drivers of the second connection (the store registers them too).
	_ "github.com/jackc/pgx/v5/stdlib"
	_ "modernc.org/sqlite"

	"github.com/toolgate/toolgate/internal/store"
	"github.com/toolgate/toolgate/internal/store/storetest/fixture"
)

// EngineEnv names the environment variable that selects the engine MustOpen
// opens: "postgres" for a fresh database on pgtest's throwaway PostgreSQL
// server, anything else (or unset) for SQLite.
const EngineEnv = fixture.EngineEnv

// Engines lists every engine, for tests that run on each.
var Engines = []store.Engine{store.SQLite, store.Postgres}

// Engine is the engine MustOpen opens (EngineEnv).
func Engine() store.Engine {
	if fixture.Postgres() {
		return store.Postgres
	}
	return store.SQLite
}

// MustOpen returns a migrated database, closed at the end of the test:
// SQLite in tb.TempDir(), or a fresh PostgreSQL database when EngineEnv says
// so. Tests of any package use it instead of mocking the store.
func MustOpen(tb testing.TB) *store.DB {
	tb.Helper()
	return MustOpenEngine(tb, Engine())
}

// MustOpenEngine is MustOpen on the given engine, for tests that run on
// both.
func MustOpenEngine(tb testing.TB, engine store.Engine) *store.DB {
	tb.Helper()
	db, _ := mustOpenMigrated(tb, engine)
	return db
}

// MustOpenShared returns two handles on one new, migrated database of
// engine — two consoles sharing it — both closed at the end of the test.
func MustOpenShared(tb testing.TB, engine store.Engine) (a, b *store.DB) {
	tb.Helper()
	a, where := mustOpenMigrated(tb, engine)
	return a, Open(tb, where)
}

func mustOpenMigrated(tb testing.TB, engine store.Engine) (*store.DB, string) {
	tb.Helper()
	where := fixture.Place(tb, engine == store.Postgres)
	db := Open(tb, where)
	if _, err := db.Migrate(context.Background()); err != nil {
		tb.Fatalf("storetest.MustOpen: %v", err)
	}
	return db, where
}

// Open opens the existing database at where — a SQLite file's path or a
// postgres:// URL — without migrating it, closed at the end of the test
// (closing it earlier is fine). The fixtures below accept only databases
// opened here or by MustOpen: they write through a second connection to
// the same place.
func Open(tb testing.TB, where string) *store.DB {
	tb.Helper()
	db := fixture.MustOpen(tb, where, openAt)
	places.Store(db, where)
	tb.Cleanup(func() { places.Delete(db) })
	return db
}

func openAt(ctx context.Context, where string) (*store.DB, error) {
	if store.IsPostgresURL(where) {
		return store.OpenURL(ctx, where)
	}
	return store.Open(ctx, where)
}

// places maps each database opened here to where it is, until its test
// ends.
var places sync.Map

// conn opens a second connection to db's database, closed at the end of
// the test: the fixtures' SQL goes behind the store's back.
func conn(tb testing.TB, db *store.DB) *sqlx.DB {
	tb.Helper()
	where, ok := places.Load(db)
	if !ok {
		tb.Fatal("storetest: the database was not opened by storetest.Open or MustOpen")
	}
	driver, dsn := "sqlite", store.DSN(where.(string))
	if db.Engine() == store.Postgres {
		driver, dsn = "pgx", where.(string)
	}
	x, err := sqlx.Open(driver, dsn)
	if err != nil {
		tb.Fatalf("storetest: second connection: %v", err)
	}
	tb.Cleanup(func() { _ = x.Close() })
	return x
}
