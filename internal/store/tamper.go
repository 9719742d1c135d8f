package store

import (
	"context"
	"testing"
)

// Tamper rewrites the actor of audit entry id behind the store's back, as an
// attacker with file access could, so tests of `audit verify` and the
// store can check the chain catches it. It drops the append-only trigger
// first; use it only in tests.
func Tamper(tb testing.TB, db *DB, id int64, actor string) {
	tb.Helper()
	ctx := context.Background()
	drop := `DROP TRIGGER IF EXISTS audit_log_no_update`
	if db.engine == Postgres {
		drop += ` ON audit_log`
	}
	for _, q := range []string{drop, `UPDATE audit_log SET actor = ? WHERE id = ?`} {
		args := []any{}
		if q[0] == 'U' {
			args = []any{actor, id}
		}
		if _, err := db.db.ExecContext(ctx, q, args...); err != nil {
			tb.Fatalf("store.Tamper: %v", err)
		}
	}
}
