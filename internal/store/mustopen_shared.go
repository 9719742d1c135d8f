package store

import (
	"context"
	"testing"
)

// MustOpenShared returns two handles on one new, migrated database of
// engine — two consoles sharing it — both closed at the end of the test.
func MustOpenShared(tb testing.TB, engine Engine) (a, b *DB) {
	tb.Helper()
	a, where := mustOpenUnmigrated(tb, engine)
	ctx := context.Background()
	if _, err := a.Migrate(ctx); err != nil {
		tb.Fatalf("store.MustOpenShared: %v", err)
	}
	var err error
	if engine == Postgres {
		b, err = OpenURL(ctx, where)
	} else {
		b, err = Open(ctx, where)
	}
	if err != nil {
		tb.Fatalf("store.MustOpenShared: %v", err)
	}
	tb.Cleanup(func() { _ = b.Close() })
	return a, b
}

// Engines lists every engine, for tests that run on each.
var Engines = []Engine{SQLite, Postgres}
