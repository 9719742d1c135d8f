package store

import (
	"context"
	"crypto/rand"
	"database/sql"
	"sync"
	"testing"
	"time"

	"github.com/toolgate/toolgate/internal/apperr"
	"github.com/toolgate/toolgate/internal/auth"
	"github.com/toolgate/toolgate/internal/bundle"
)

// holdWriteLock takes the database's write lock (SQLite's, or the
// PostgreSQL advisory lock every write transaction takes) from a connection
// of its own (as another console process or a long import would) and keeps
// it, with an uncommitted change, until release is called.
func holdWriteLock(t *testing.T, where string) (release func()) {
	t.Helper()
	raw, tx := beginOtherWriter(t, where)
	if _, err := tx.Exec(`UPDATE users SET updated_at = updated_at`); err != nil {
		t.Fatal(err)
	}
	var once sync.Once
	release = func() {
		once.Do(func() {
			_ = tx.Rollback()
			_ = raw.Close()
		})
	}
	t.Cleanup(release)
	return release
}

// TestReadsDoNotWaitForAHeldWriteLock: while another connection holds the
// write lock, every read path the console's pages use answers without error
// and without waiting for the lock, and a write waits at most the busy
// timeout and then fails as Unavailable (503 "try again"), not as an
// internal error.
func TestReadsDoNotWaitForAHeldWriteLock(t *testing.T) {
	ctx := context.Background()
	db, path := mustOpenFile(t)
	now := time.Now().UTC()
	db.Now = func() time.Time { return now }
	admin := mustUser(t, db, "admin@example.com", auth.RoleAdmin)
	policy := SessionPolicy{Idle: time.Hour, Absolute: 2 * time.Hour}
	token, err := db.Login(ctx, admin, "test", policy)
	if err != nil {
		t.Fatal(err)
	}
	res := mustImport(t, db, "pets", testDoc(t, "https://pets.example.com", petOps))
	tool := res.Plan.Changes[0].Tool
	key, err := bundle.GenerateKey(rand.Reader, now)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := db.Publish(ctx, PublishRequest{Actor: admin.Email, Key: key}); err != nil {
		t.Fatal(err)
	}

	release := holdWriteLock(t, path)
	defer release()

	reads := map[string]func() error{
		"SessionUser": func() error { _, _, err := db.SessionUser(ctx, token, policy); return err },
		"ListTools":   func() error { _, err := db.ListTools(ctx, ToolQuery{}); return err },
		"ToolFacets":  func() error { _, err := db.ListToolFacets(ctx); return err },
		"ToolByName":  func() error { _, err := db.ToolByName(ctx, tool); return err },
		"ToolPolicy":  func() error { _, err := db.ToolPolicyByName(ctx, tool); return err },
		"QueryAudit":  func() error { _, _, err := db.QueryAudit(ctx, AuditFilter{}); return err },
		"ListBundles": func() error { _, err := db.ListBundles(ctx); return err },
		"LatestBundle": func() error {
			_, err := db.LatestBundle(ctx)
			return err
		},
		"PreviewPublish": func() error { _, err := db.PreviewPublish(ctx); return err },
		"Dashboard": func() error {
			_, err := db.Dashboard(ctx, DashboardQuery{UserID: admin.ID, SeenSince: now.Add(-time.Hour), RecentAudit: 5})
			return err
		},
		"ListSources":    func() error { _, err := db.ListSources(ctx); return err },
		"ChangeRequests": func() error { _, err := db.ChangeRequests(ctx, ChangeRequestFilter{Pending: true}); return err },
		"ListUsers":      func() error { _, err := db.ListUsers(ctx); return err },
		"BulkDryRun": func() error {
			_, err := db.BulkTools(ctx, admin.Email, BulkExpose, []string{tool}, false)
			return err
		},
		"PreviewImport": func() error {
			_, err := db.PreviewImport(ctx, "pets", "", testDoc(t, "https://pets.example.com", petOps))
			return err
		},
	}

	type outcome struct {
		name    string
		err     error
		elapsed time.Duration
	}
	out := make(chan outcome, len(reads)+1)
	var wg sync.WaitGroup
	for name, read := range reads {
		wg.Add(1)
		go func() {
			defer wg.Done()
			start := time.Now()
			err := read()
			out <- outcome{name, err, time.Since(start)}
		}()
	}
	wg.Add(1)
	go func() {
		defer wg.Done()
		start := time.Now()
		_, err := db.CreateUser(ctx, admin.Email, NewUser{Email: "late@example.com", PasswordHash: "h", Roles: []auth.Role{auth.RoleViewer}})
		out <- outcome{"write", err, time.Since(start)}
	}()
	wg.Wait()
	close(out)

	for o := range out {
		if o.name == "write" {
			if apperr.CodeOf(o.err) != apperr.Unavailable {
				t.Errorf("write under a held lock: %v (code %q), want Unavailable", o.err, apperr.CodeOf(o.err))
			}
			if o.elapsed < BusyTimeout-100*time.Millisecond || o.elapsed > BusyTimeout+3*time.Second {
				t.Errorf("write gave up after %v, want about the busy timeout %v", o.elapsed, BusyTimeout)
			}
			continue
		}
		if o.err != nil {
			t.Errorf("%s under a held write lock: %v", o.name, o.err)
		}
		// Waiting for the lock would take the whole busy timeout.
		if o.elapsed > BusyTimeout/2 {
			t.Errorf("%s took %v under a held write lock; a read must not wait for it", o.name, o.elapsed)
		}
	}

	// Once the lock is released the same write goes through.
	release()
	if _, err := db.CreateUser(ctx, admin.Email, NewUser{Email: "late@example.com", PasswordHash: "h", Roles: []auth.Role{auth.RoleViewer}}); err != nil {
		t.Fatalf("write after release: %v", err)
	}
}

// TestImportRefusesAPlanOvertakenByAWrite: ImportSource plans from a
// snapshot and writes afterwards; a policy change committed in between (here
// by another connection that held the write lock while the import planned
// and waited) makes the import a Conflict that writes nothing.
func TestImportRefusesAPlanOvertakenByAWrite(t *testing.T) {
	ctx := context.Background()
	db, path := mustOpenFile(t)
	first := mustImport(t, db, "pets", testDoc(t, "https://pets.example.com", petOps))
	moved := []testOp{ // getPet moves: it would be suspended only if it were exposed
		{"GET", "/pets", "listPets", "List pets", nil},
		{"POST", "/pets", "createPet", "Add a pet", nil},
		{"GET", "/animals/{id}", "getPet", "Show a pet", nil},
		{"DELETE", "/pets/{id}", "deletePet", "Delete a pet", nil},
	}
	getPet := mustTool(t, db, "getPet")

	raw, tx := beginOtherWriter(t, path) // the write lock, held while the import plans
	defer raw.Close()
	done := make(chan error, 1)
	go func() {
		_, err := db.ImportSource(ctx, "tester", SourceImport{Name: "pets", Doc: testDoc(t, "https://pets.example.com", moved),
			DocumentSHA256: "sha2", BaseRevision: first.Source.Revision})
		done <- err
	}()
	// Planning four operations takes milliseconds; the import then waits
	// for the write lock (up to BusyTimeout) while this change commits.
	time.Sleep(BusyTimeout / 4)
	if _, err := tx.Exec(`UPDATE tool_policies SET exposed = 1, version = version + 1 WHERE tool_id = ?`, getPet.ID); err != nil {
		t.Fatal(err)
	}
	if err := tx.Commit(); err != nil {
		t.Fatal(err)
	}
	wantCode(t, <-done, apperr.Conflict)
	if src, err := db.SourceByName(ctx, "pets"); err != nil || src.Revision != first.Source.Revision {
		t.Fatalf("source after the refused import: %+v, %v; want revision %d", src, err, first.Source.Revision)
	}
	// Planned again against the current state, the move suspends the tool.
	res, err := db.ImportSource(ctx, "tester", SourceImport{Name: "pets", Doc: testDoc(t, "https://pets.example.com", moved),
		DocumentSHA256: "sha2", BaseRevision: first.Source.Revision})
	if err != nil {
		t.Fatal(err)
	}
	if s := res.Plan.Suspended(); len(s) != 1 || s[0].Tool != "getPet" {
		t.Fatalf("suspended %+v, want getPet", s)
	}
}

// mustOpenFile opens a migrated database of its own on the test engine and
// returns where it is (file path or URL), for tests that open a second
// connection to the same database.
func mustOpenFile(t *testing.T) (*DB, string) {
	t.Helper()
	db, where := mustOpenUnmigrated(t, engineUnderTest())
	if _, err := db.Migrate(context.Background()); err != nil {
		t.Fatal(err)
	}
	return db, where
}

// beginOtherWriter opens a second pool on the database at where and begins
// a transaction that holds the write lock: SQLite's (_txlock=immediate
// takes it at BEGIN) or the PostgreSQL advisory lock of inTx.
func beginOtherWriter(t *testing.T, where string) (*sql.DB, *sql.Tx) {
	t.Helper()
	if !IsPostgresURL(where) {
		raw, err := sql.Open("sqlite", DSN(where))
		if err != nil {
			t.Fatal(err)
		}
		tx, err := raw.Begin()
		if err != nil {
			t.Fatal(err)
		}
		return raw, tx
	}
	other, err := OpenURL(context.Background(), where)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = other.Close() })
	tx, err := other.db.Begin()
	if err != nil {
		t.Fatal(err)
	}
	if _, err := tx.Exec(`SELECT pg_advisory_xact_lock(?)`, writeLockKey); err != nil {
		t.Fatal(err)
	}
	return other.db.DB, tx
}
