package store

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/toolgate/toolgate/internal/openapi"
	"github.com/toolgate/toolgate/internal/risk"
)

// The publish generation moves with every kind of change the next bundle
// depends on, and stays put for writes it does not depend on.
func TestPublishGenerationMovesWithPublishableState(t *testing.T) {
	ctx := context.Background()
	f := newCRFixture(t)
	key := newPublishFixture(t).key
	gen := func() int64 {
		t.Helper()
		n, err := f.db.PublishGeneration(ctx)
		if err != nil {
			t.Fatal(err)
		}
		return n
	}
	doc, err := openapi.LoadBytes("pets.yaml", []byte("openapi: 3.0.3\ninfo: {title: Pets, version: \"1\"}\nservers: [{url: https://pets.example.com}]\npaths:\n  /pets:\n    get: {operationId: listPets, responses: {\"200\": {description: ok}}}\n"), openapi.Options{})
	if err != nil {
		t.Fatal(err)
	}
	var cr *ChangeRequest
	changes := []struct {
		name string
		do   func() error
	}{
		{"import", func() error {
			_, err := f.db.ImportSource(ctx, "admin@example.com", SourceImport{Name: "pets", Doc: doc})
			return err
		}},
		{"policy edit", func() error {
			p := f.del.Policy
			p.TimeoutMS = 4000
			_, err := f.db.SavePolicy(ctx, "admin@example.com", f.del.ToolID, f.del.Version, p)
			return err
		}},
		{"change request", func() error {
			cur, err := f.db.ToolPolicy(ctx, f.del.ToolID)
			if err != nil {
				return err
			}
			p := cur.Policy
			p.Exposed = true
			cr, err = f.db.CreateChangeRequest(ctx, f.admin, NewChangeRequest{ToolID: f.del.ToolID, Kind: KindExposeRisky, Reason: "cleanup", Policy: p})
			return err
		}},
		{"approval", func() error {
			_, err := f.db.ApproveChangeRequest(ctx, f.approver.ID, cr.ID, "ok")
			return err
		}},
		{"risk class", func() error {
			return f.db.RaiseToolClass(ctx, "admin@example.com", "listPets", risk.Write, "it has side effects")
		}},
		{"project defaults", func() error {
			d, err := f.db.ProjectDefaults(ctx)
			if err != nil {
				return err
			}
			d.Defaults.ExposeNewReadTools = !d.Defaults.ExposeNewReadTools
			_, err = f.db.SaveProjectDefaults(ctx, "admin@example.com", d.Version, d.Defaults)
			return err
		}},
		{"key rotation", func() error {
			return f.db.RecordKeyChange(ctx, KeyChange{Actor: "admin@example.com", Action: KeyRotate,
				Apply: func() (string, any, any, error) { return "kid-2", nil, nil, nil }})
		}},
		{"publish", func() error {
			_, err := f.db.Publish(ctx, PublishRequest{Actor: "admin@example.com", Key: key})
			return err
		}},
	}
	for _, c := range changes {
		before := gen()
		if err := c.do(); err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		if after := gen(); after == before {
			t.Errorf("%s did not move the publish generation", c.name)
		}
	}

	// Writes the bundle does not depend on leave it alone.
	before := gen()
	if _, err := f.db.Login(ctx, f.viewer, "127.0.0.1", SessionPolicy{Idle: time.Hour, Absolute: time.Hour}); err != nil {
		t.Fatal(err)
	}
	tok, _, err := f.db.CreateRuntimeToken(ctx, "admin@example.com", "edge")
	if err != nil {
		t.Fatal(err)
	}
	if err := f.db.RecordRuntimeFetch(ctx, RuntimeFetch{TokenID: tok.ID, InstanceID: "i-1"}); err != nil {
		t.Fatal(err)
	}
	if after := gen(); after != before {
		t.Errorf("login, token and fleet writes moved the generation %d -> %d", before, after)
	}
}

// An instance row belongs to the token that created it, and a token keeps
// at most its bound of rows, evicting (and counting) the least recently seen.
func TestRuntimeInstancesOwnedAndBounded(t *testing.T) {
	ctx := context.Background()
	f := newPublishFixture(t)
	a, _, err := f.db.CreateRuntimeToken(ctx, "admin", "a")
	if err != nil {
		t.Fatal(err)
	}
	b, _, err := f.db.CreateRuntimeToken(ctx, "admin", "b")
	if err != nil {
		t.Fatal(err)
	}
	t0 := f.now
	if _, err := f.db.RecordRuntimeFetches(ctx, []RuntimeFetch{
		{TokenID: a.ID, InstanceID: "shared", Name: "real", Version: 3, Refused: "withheld 1 tools: x: bad schema", At: t0},
	}, 3); err != nil {
		t.Fatal(err)
	}
	// Token b claims the same instance id: it gets a row of its own.
	if _, err := f.db.RecordRuntimeFetches(ctx, []RuntimeFetch{
		{TokenID: b.ID, InstanceID: "shared", Name: "impostor", Version: 1, At: t0.Add(time.Second)},
	}, 3); err != nil {
		t.Fatal(err)
	}
	list, err := f.db.ListRuntimeInstances(ctx)
	if err != nil || len(list) != 2 {
		t.Fatalf("instances %+v, %v", list, err)
	}
	byToken := map[string]*RuntimeInstance{}
	for _, in := range list {
		byToken[in.TokenName] = in
	}
	if got := byToken["a"]; got == nil || got.Name != "real" || got.Version != 3 || got.Refused != "withheld 1 tools: x: bad schema" {
		t.Fatalf("token a's row was overwritten: %+v", got)
	}
	if got := byToken["b"]; got == nil || got.Name != "impostor" || got.Refused != "" {
		t.Fatalf("token b's row: %+v", got)
	}

	// Token b invents instance ids: past the bound its oldest rows go, and
	// token a keeps its row.
	var batch []RuntimeFetch
	for i := range 5 {
		batch = append(batch, RuntimeFetch{TokenID: b.ID, InstanceID: fmt.Sprintf("fake-%d", i), At: t0.Add(time.Duration(10+i) * time.Second)})
	}
	evicted, err := f.db.RecordRuntimeFetches(ctx, batch, 3)
	if err != nil || evicted != 3 {
		t.Fatalf("evicted %d, %v; want 3", evicted, err)
	}
	list, _, err = f.db.RuntimeInstancesPage(ctx, -1, 0)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, in := range list {
		got = append(got, in.TokenName+"/"+in.InstanceID)
	}
	if want := "[b/fake-4 b/fake-3 b/fake-2 a/shared]"; fmt.Sprint(got) != want {
		t.Fatalf("instances %v, want %s", got, want)
	}
	tokens, err := f.db.ListRuntimeTokens(ctx)
	if err != nil {
		t.Fatal(err)
	}
	for _, tok := range tokens {
		want := map[string]int64{"a": 0, "b": 3}[tok.Name]
		if tok.InstancesEvicted != want || (want > 0) != (tok.LastEvictedAt != nil) {
			t.Errorf("token %s: evicted %d at %v, want %d", tok.Name, tok.InstancesEvicted, tok.LastEvictedAt, want)
		}
	}
	if _, err := f.db.RecordRuntimeFetches(ctx, batch, 0); err == nil {
		t.Error("a zero bound was accepted")
	}
}

// Pages of instances, most recently seen first, with the total.
func TestRuntimeInstancesPage(t *testing.T) {
	ctx := context.Background()
	f := newPublishFixture(t)
	tok, _, err := f.db.CreateRuntimeToken(ctx, "admin", "fleet")
	if err != nil {
		t.Fatal(err)
	}
	var batch []RuntimeFetch
	for i := range 7 {
		batch = append(batch, RuntimeFetch{TokenID: tok.ID, InstanceID: fmt.Sprintf("i-%d", i), At: f.now.Add(time.Duration(i) * time.Second)})
	}
	if _, err := f.db.RecordRuntimeFetches(ctx, batch, DefaultInstancesPerToken); err != nil {
		t.Fatal(err)
	}
	page, total, err := f.db.RuntimeInstancesPage(ctx, 3, 3)
	if err != nil || total != 7 || len(page) != 3 || page[0].InstanceID != "i-3" || page[2].InstanceID != "i-1" {
		t.Fatalf("page %+v, total %d, %v", page, total, err)
	}
}

// The history and the served bundle never read the payload column.
func TestBundleReadsWithoutPayload(t *testing.T) {
	ctx := context.Background()
	f := newPublishFixture(t)
	f.tool(t, "list_orders", "GET", risk.Read, true)
	rec := f.publish(t, "one")
	if v, err := f.db.LatestBundleVersion(ctx); err != nil || v != rec.Version {
		t.Fatalf("latest version %d, %v", v, err)
	}
	served, err := f.db.ServedBundle(ctx, rec.Version)
	if err != nil || served.Signed != rec.Signed || served.ETag != rec.ETag || len(served.Payload) != 0 {
		t.Fatalf("served %+v, %v", served, err)
	}
	sum, err := f.db.LatestBundleSummary(ctx)
	if err != nil || sum.Version != rec.Version || sum.KeyID != rec.KeyID || sum.Signed != "" || len(sum.Payload) != 0 {
		t.Fatalf("latest summary %+v, %v", sum, err)
	}
	list, err := f.db.ListBundles(ctx)
	if err != nil || len(list) != 1 || len(list[0].Payload) != 0 || list[0].Signed != "" || list[0].ETag != rec.ETag {
		t.Fatalf("history %+v, %v", list, err)
	}
	// The summary columns precede the large ones, so reading them never
	// walks a payload's overflow pages (migration 0010).
	// (On PostgreSQL, which keeps large values out of line anyway, the
	// overlay creates the same order.)
	var cols []string
	q := `SELECT name FROM pragma_table_info('bundles') ORDER BY cid`
	if f.db.Engine() == Postgres {
		q = `SELECT column_name FROM information_schema.columns WHERE table_name = 'bundles' ORDER BY ordinal_position`
	}
	if err := f.db.rdb.SelectContext(ctx, &cols, q); err != nil {
		t.Fatal(err)
	}
	if n := len(cols); n < 2 || cols[n-2] != "signed" || cols[n-1] != "payload" {
		t.Fatalf("bundles columns %v: signed and payload must come last", cols)
	}
}

// Publish builds outside the write transaction; a change that lands in
// between is never lost: the publish rebuilds from the new state, and if
// the state keeps moving it builds under the write lock, where it cannot
// move, and publishes that.
func TestPublishRebuildsWhenStateMovedMeanwhile(t *testing.T) {
	ctx := context.Background()
	f := newPublishFixture(t)
	f.tool(t, "list_orders", "GET", risk.Read, true)
	calls := 0
	f.db.afterPublishBuild = func() {
		calls++
		if calls == 1 {
			f.tool(t, "get_order", "GET", risk.Read, true)
		}
	}
	rec := f.publish(t, "")
	b := f.verified(t, rec)
	if calls != 2 || len(b.Tools) != 2 {
		t.Fatalf("built %d times, bundle has %d tools; want a rebuild including get_order", calls, len(b.Tools))
	}

	n := 0
	f.db.afterPublishBuild = func() {
		n++
		f.tool(t, fmt.Sprintf("tool_%d", n), "GET", risk.Read, true)
	}
	last, err := f.db.Publish(ctx, PublishRequest{Actor: "admin@example.com", Key: f.key})
	if err != nil {
		t.Fatal(err)
	}
	if n != publishAttempts {
		t.Fatalf("built outside the lock %d times, want %d", n, publishAttempts)
	}
	// The locked build sees every tool added meanwhile: 2 + n.
	if b := f.verified(t, last); last.Version != rec.Version+1 || len(b.Tools) != 2+n {
		t.Fatalf("locked publish v%d with %d tools; want v%d with %d", last.Version, len(b.Tools), rec.Version+1, 2+n)
	}
}

// Migration 0010 rebuilds bundles and runtime_instances: what was stored
// before survives it.
func TestMigration0010KeepsRows(t *testing.T) {
	ctx := context.Background()
	db, _ := mustOpenUnmigrated(t, engineUnderTest())
	p, err := db.migrator()
	if err != nil {
		t.Fatal(err)
	}
	if _, err := p.UpTo(ctx, 4); err != nil {
		t.Fatal(err)
	}
	for _, q := range []string{
		`INSERT INTO runtime_tokens (id, name, token_hash, created_at, created_by) VALUES (7, 'edge', 'h', '2025-01-01T00:00:00.000000000Z', 'a')`,
		`INSERT INTO bundles (version, payload, signed, etag, key_id, tool_count, issued_at, expires_at, published_by, note)
			VALUES (1, ?, 'jws-1', '"e1"', 'k', 0, '2025-01-01T00:00:00.000000000Z', '2025-02-01T00:00:00.000000000Z', 'a', 'one')`,
		`INSERT INTO bundles (version, payload, signed, etag, key_id, tool_count, issued_at, expires_at, published_by, note, rollback_of)
			VALUES (2, ?, 'jws-2', '"e2"', 'k', 0, '2025-01-02T00:00:00.000000000Z', '2025-02-02T00:00:00.000000000Z', 'a', '', 1)`,
		`INSERT INTO runtime_instances (instance_id, name, token_id, version, remote_addr, first_seen, last_seen)
			VALUES ('pod-1', 'checkout', 7, 2, '10.0.0.1', '2025-01-01T00:00:00.000000000Z', '2025-01-02T00:00:00.000000000Z')`,
	} {
		var args []any
		if strings.Contains(q, "INTO bundles") {
			args = append(args, []byte("{}"))
		}
		if _, err := db.db.ExecContext(ctx, q, args...); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	if _, err := db.Migrate(ctx); err != nil {
		t.Fatal(err)
	}
	b2, err := db.ServedBundle(ctx, 2)
	if err != nil || b2.Signed != "jws-2" || b2.ETag != `"e2"` || b2.RollbackOf != 1 {
		t.Fatalf("bundle 2 after migration: %+v, %v", b2, err)
	}
	if b1, err := db.BundleByVersion(ctx, 1); err != nil || string(b1.Payload) != "{}" || b1.Note != "one" {
		t.Fatalf("bundle 1 after migration: %+v, %v", b1, err)
	}
	list, err := db.ListRuntimeInstances(ctx)
	if err != nil || len(list) != 1 || list[0].InstanceID != "pod-1" || list[0].TokenName != "edge" || list[0].Version != 2 {
		t.Fatalf("instances after migration: %+v, %v", list, err)
	}
	if _, err := db.db.ExecContext(ctx, `UPDATE bundles SET note = 'x' WHERE version = 1`); err == nil {
		t.Fatal("bundles are no longer immutable after the rebuild")
	}
}

// A flush of many instances goes in multi-row statements: every instance
// is written whatever the chunking, and an instance reported twice in one
// flush keeps its later report.
func TestRuntimeFetchesBatched(t *testing.T) {
	ctx := context.Background()
	f := newPublishFixture(t)
	f.db.batchParams = 8 * 5 // five instances a statement
	tok, _, err := f.db.CreateRuntimeToken(ctx, "admin", "fleet")
	if err != nil {
		t.Fatal(err)
	}
	var batch []RuntimeFetch
	for i := range 23 {
		batch = append(batch, RuntimeFetch{TokenID: tok.ID, InstanceID: fmt.Sprintf("i-%02d", i), Name: "pod", Version: int64(i),
			RemoteAddr: "10.0.0.1", At: f.now.Add(time.Duration(i) * time.Second)})
	}
	// i-03 again, later and then earlier: the later report wins.
	batch = append(batch, RuntimeFetch{TokenID: tok.ID, InstanceID: "i-03", Name: "moved", Version: 99, At: f.now.Add(time.Minute)},
		RuntimeFetch{TokenID: tok.ID, InstanceID: "i-03", Name: "stale", Version: 1, At: f.now.Add(30 * time.Second)})
	if _, err := f.db.RecordRuntimeFetches(ctx, batch, DefaultInstancesPerToken); err != nil {
		t.Fatal(err)
	}
	list, err := f.db.ListRuntimeInstances(ctx)
	if err != nil || len(list) != 23 {
		t.Fatalf("%d instances, %v; want 23", len(list), err)
	}
	for _, in := range list {
		want := RuntimeInstance{InstanceID: in.InstanceID, Name: "pod", TokenName: "fleet", RemoteAddr: "10.0.0.1"}
		fmt.Sscanf(in.InstanceID, "i-%d", &want.Version)
		if in.InstanceID == "i-03" {
			want.Name, want.Version, want.RemoteAddr = "moved", 99, ""
		}
		if in.Name != want.Name || in.Version != want.Version || in.RemoteAddr != want.RemoteAddr || in.TokenName != want.TokenName {
			t.Errorf("%s = %+v, want %+v", in.InstanceID, *in, want)
		}
	}
	if list[0].InstanceID != "i-03" || !list[0].LastSeen.Equal(f.now.Add(time.Minute)) {
		t.Errorf("most recently seen %s at %v, want i-03 at +1m", list[0].InstanceID, list[0].LastSeen)
	}
}
