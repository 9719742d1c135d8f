package store

import (
	"context"
	"crypto/rand"
	"fmt"
	"testing"
	"time"

	"github.com/toolgate/toolgate/internal/auth"
	"github.com/toolgate/toolgate/internal/bundle"
)

// BenchmarkEngines measures the same store work on SQLite and PostgreSQL
// in one run, engine after engine for each operation, so the figures are
// comparable as ratios on a shared machine (repeat with -count to
// interleave): importing a new 200-operation source, publishing a bundle
// of 200 exposed tools, one page of the tools list, and one small audited
// write. PostgreSQL is pgtest's local server (fsync off), so this measures
// the store and the driver, not a disk.
//
//	go test -run '^$' -bench BenchmarkEngines -benchtime 20x -count 3 ./internal/store
//
// One run on the shared 2-core machine (load average 4–6, medians of 3,
// PostgreSQL 15 against SQLite): import 6.6× (27.6 ms vs 183 ms), publish
// 1.1× (61 vs 68 ms), tools list page 2.4× (0.95 vs 2.3 ms), audited write
// 2.5× (0.87 vs 2.2 ms). The import paid a network round trip for each of
// its statements, several per tool; SQLite runs in the process.
//
// Imports now write in multi-row statements (batch.go). Before and after,
// interleaved in one session (3 rounds, load average 2–11, medians):
// import SQLite 67.8 → 25.6 ms (0.38×), PostgreSQL 332 → 158 ms (0.48×),
// so PostgreSQL÷SQLite stays about 5–6×: both got faster. What remains on
// PostgreSQL is mostly the first use of a new database (every iteration
// opens one: new server processes, cold catalog caches); a second
// 200-operation import into the same database takes 55–80 ms against
// SQLite's 26–37 ms. BenchmarkReimport covers re-imports.
func BenchmarkEngines(b *testing.B) {
	ops := make([]testOp, 200)
	for i := range ops {
		ops[i] = testOp{"GET", fmt.Sprintf("/things%d/{id}", i), fmt.Sprintf("getThing%d", i), "Show a thing", nil}
	}
	doc := testDoc(b, "https://things.example.com", ops)
	engines := []Engine{SQLite, Postgres}
	setup := func(b *testing.B, engine Engine) *DB {
		db := MustOpenEngine(b, engine)
		mustImport(b, db, "things", doc)
		names := make([]string, len(ops))
		for i, o := range ops {
			names[i] = o.ID
		}
		if _, err := db.BulkTools(context.Background(), "admin@example.com", BulkExpose, names, true); err != nil {
			b.Fatal(err)
		}
		return db
	}
	for _, engine := range engines {
		b.Run("import/"+string(engine), func(b *testing.B) {
			for range b.N { // a new, empty database each time (not timed)
				b.StopTimer()
				db := MustOpenEngine(b, engine)
				b.StartTimer()
				mustImport(b, db, "things", doc)
			}
		})
	}
	for _, engine := range engines {
		b.Run("publish/"+string(engine), func(b *testing.B) {
			db := setup(b, engine)
			key, err := bundle.GenerateKey(rand.Reader, time.Now())
			if err != nil {
				b.Fatal(err)
			}
			for b.Loop() {
				if _, err := db.Publish(context.Background(), PublishRequest{Actor: "a", Key: key}); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
	for _, engine := range engines {
		b.Run("list_tools/"+string(engine), func(b *testing.B) {
			db := setup(b, engine)
			for b.Loop() {
				if _, err := db.ListTools(context.Background(), ToolQuery{Text: "thing1"}); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
	for _, engine := range engines {
		b.Run("create_user/"+string(engine), func(b *testing.B) {
			db := MustOpenEngine(b, engine)
			for i := 0; b.Loop(); i++ {
				if _, err := db.CreateUser(context.Background(), "test", NewUser{Email: fmt.Sprintf("u%d@example.com", i),
					PasswordHash: "h", Roles: []auth.Role{auth.RoleViewer}}); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
