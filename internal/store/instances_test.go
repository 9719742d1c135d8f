package store

import (
	"context"
	"crypto/rand"
	"fmt"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/toolgate/toolgate/internal/auth"
	"github.com/toolgate/toolgate/internal/bundle"
	"github.com/toolgate/toolgate/internal/risk"
)

// TestTwoInstancesShareOneWriter: two DB handles on the same database (two
// console processes: on PostgreSQL, what several instances behind a load
// balancer are) write at the same time. Their writes serialise — SQLite's
// write lock, PostgreSQL's advisory lock — so bundle versions are strictly
// monotonic with no gap or duplicate, and the audit hash chain stays one
// line that verifies.
func TestTwoInstancesShareOneWriter(t *testing.T) {
	ctx := context.Background()
	a, where := mustOpenFile(t)
	b := openSecond(t, where)
	key, err := bundle.GenerateKey(rand.Reader, time.Now())
	if err != nil {
		t.Fatal(err)
	}
	MustAddTool(t, a, FixtureTool{Source: "orders", Origin: "https://api.example.com", Name: "list_orders",
		Method: "GET", Path: "/orders", Class: risk.Read, Exposed: true})

	const perInstance = 4
	errs := make(chan error, 4*perInstance)
	var wg sync.WaitGroup
	for i, db := range []*DB{a, b} {
		for n := range perInstance {
			wg.Add(2)
			go func() {
				defer wg.Done()
				_, err := db.Publish(ctx, PublishRequest{Actor: "admin@example.com", Key: key})
				errs <- err
			}()
			go func() {
				defer wg.Done()
				_, err := db.CreateUser(ctx, "test", NewUser{Email: fmt.Sprintf("u%d-%d@example.com", i, n),
					PasswordHash: "h", Roles: []auth.Role{auth.RoleViewer}})
				errs <- err
			}()
		}
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Fatalf("concurrent write from two instances: %v", err)
		}
	}
	list, err := b.ListBundles(ctx)
	if err != nil {
		t.Fatal(err)
	}
	var versions []int64
	for _, r := range list {
		versions = append(versions, r.Version)
	}
	if !slices.Equal(versions, []int64{8, 7, 6, 5, 4, 3, 2, 1}) {
		t.Fatalf("versions %v, want 8..1", versions)
	}
	for _, db := range []*DB{a, b} {
		if n, err := db.VerifyAudit(ctx); err != nil || n != 4*perInstance {
			t.Fatalf("audit chain: %d entries, %v; want %d intact", n, err, 4*perInstance)
		}
	}
}

// openSecond opens another handle on the migrated database at where (a
// SQLite file or a PostgreSQL URL), closed at the end of the test.
func openSecond(t *testing.T, where string) *DB {
	t.Helper()
	open := Open
	if IsPostgresURL(where) {
		open = OpenURL
	}
	db, err := open(context.Background(), where)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = db.Close() })
	return db
}
