package store

import (
	"context"
	"path/filepath"
	"testing"
)

// MustOpen returns a migrated database in tb.TempDir(), closed at the end of
// the test. Tests of any package use it instead of mocking the store: it is
// real SQLite with the real migrations.
func MustOpen(tb testing.TB) *DB {
	tb.Helper()
	ctx := context.Background()
	db, err := Open(ctx, filepath.Join(tb.TempDir(), "toolgate.db"))
	if err != nil {
		tb.Fatalf("store.MustOpen: %v", err)
	}
	tb.Cleanup(func() { _ = db.Close() })
	if _, err := db.Migrate(ctx); err != nil {
		tb.Fatalf("store.MustOpen: %v", err)
	}
	return db
}
