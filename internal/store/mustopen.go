package store

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/toolgate/toolgate/internal/pgtest"
)

// TestEngineEnv names the environment variable that selects the engine
// MustOpen opens: "postgres" for a fresh database on pgtest's throwaway
// PostgreSQL server, anything else (or unset) for SQLite. `make unit` runs
// the store's tests once per engine.
const TestEngineEnv = "TOOLGATE_TEST_ENGINE"

// TestEngine is the engine MustOpen opens (TestEngineEnv).
func TestEngine() Engine {
	if os.Getenv(TestEngineEnv) == string(Postgres) {
		return Postgres
	}
	return SQLite
}

// MustOpen returns a migrated database, closed at the end of the test:
// SQLite in tb.TempDir(), or a fresh PostgreSQL database when
// TestEngineEnv says so. Tests of any package use it instead of mocking the
// store: it is a real engine with the real migrations.
func MustOpen(tb testing.TB) *DB {
	tb.Helper()
	return MustOpenEngine(tb, TestEngine())
}

// MustOpenEngine is MustOpen on the given engine, for tests that run on
// both.
func MustOpenEngine(tb testing.TB, engine Engine) *DB {
	tb.Helper()
	db, _ := mustOpenUnmigrated(tb, engine)
	if _, err := db.Migrate(context.Background()); err != nil {
		tb.Fatalf("store.MustOpen: %v", err)
	}
	return db
}

// mustOpenUnmigrated opens a new, empty database on engine, closed at the
// end of the test, and returns it with where it is: the SQLite file's path
// or the PostgreSQL URL (for tests that open a second connection).
func mustOpenUnmigrated(tb testing.TB, engine Engine) (*DB, string) {
	tb.Helper()
	var (
		db    *DB
		where string
		err   error
	)
	if engine == Postgres {
		where = pgtest.NewDatabase(tb)
		db, err = OpenURL(context.Background(), where)
	} else {
		where = filepath.Join(tb.TempDir(), "toolgate.db")
		db, err = Open(context.Background(), where)
	}
	if err != nil {
		tb.Fatalf("store.MustOpen: %v", err)
	}
	tb.Cleanup(func() { _ = db.Close() })
	return db, where
}
