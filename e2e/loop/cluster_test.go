package loop

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/toolgate/toolgate/internal/config"
	"github.com/toolgate/toolgate/internal/sampleapi"
	"github.com/toolgate/toolgate/internal/store"
	"github.com/toolgate/toolgate/internal/testing/pgtest"
)

// TestMain stops pgtest's PostgreSQL server and removes the built binary.
func TestMain(m *testing.M) {
	code := pgtest.Run(m)
	if buildDir != "" {
		_ = os.RemoveAll(buildDir)
	}
	os.Exit(code)
}

// cluster is two consoles, A and B, on one database with one KEK file.
type cluster struct {
	bin       string
	a, b      string // base URLs
	setupLink string
	dbArgs    []string // --data-dir/--database-url of a one-shot command
	kek       string
	procs     []*process
	open      func(t *testing.T) *store.DB
}

// startCluster starts A and B on an empty database. On PostgreSQL they
// start at the same time (migrations take goose's advisory lock), so both
// race to create the first signing key and the session keys; two
// processes migrating one SQLite file at once is not supported, so there
// B starts once A has migrated.
func startCluster(t *testing.T, postgres bool) *cluster {
	bin := toolgateBinary(t)
	kek := writeKEK(t)
	c := &cluster{bin: bin, kek: kek}
	dirA, dirB := t.TempDir(), t.TempDir()
	var extra []string
	if postgres {
		dbURL := pgtest.NewDatabase(t)
		extra = []string{"--database-url", dbURL}
		c.dbArgs = []string{"--data-dir", dirA, "--database-url", dbURL}
		c.open = func(t *testing.T) *store.DB {
			return mustOpen(t, func() (*store.DB, error) { return store.OpenURL(context.Background(), dbURL) })
		}
	} else {
		dirB = dirA
		c.dbArgs = []string{"--data-dir", dirA}
		c.open = func(t *testing.T) *store.DB {
			return mustOpen(t, func() (*store.DB, error) { return store.Open(context.Background(), config.DBPath(dirA)) })
		}
	}
	serve := func(dir string) *process {
		args := append([]string{"serve", "--addr", "127.0.0.1:0", "--data-dir", dir, "--key-encryption-key-file", kek}, extra...)
		return startProcess(t, bin, args...)
	}
	pa := serve(dirA)
	if !postgres {
		pa.await(t, runningAt)
	}
	pb := serve(dirB)
	c.a, c.setupLink = pa.await(t, runningAt), pa.await(t, setupLink)
	c.b = pb.await(t, runningAt)
	c.procs = []*process{pa, pb}
	return c
}

func mustOpen(t *testing.T, open func() (*store.DB, error)) *store.DB {
	t.Helper()
	db, err := open()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = db.Close() })
	return db
}

func TestTwoConsolesOneDatabase(t *testing.T) {
	for _, engine := range []string{"sqlite", "postgres"} {
		t.Run(engine, func(t *testing.T) { testTwoConsoles(t, engine == "postgres") })
	}
}

func testTwoConsoles(t *testing.T, postgres bool) {
	cl := startCluster(t, postgres)
	upstream := httptest.NewServer(sampleapi.New(sampleapi.Options{}))
	t.Cleanup(upstream.Close)
	// People on A: setup link, users, sign-in (CSRF cookies from A).
	c := people(t, cl.a, cl.setupLink, func(args ...string) string { return run(t, cl.bin, append(args, cl.dbArgs...)...) })
	// B printed its own link while there were no users; A's was used first,
	// so B's now says setup is done (and creates no one).
	linkB := cl.procs[1].await(t, setupLink)
	if p := newBrowser(t, cl.b).open(linkB); !strings.Contains(p.mainText(), "Setup is already done") {
		t.Errorf("B's setup link after setup on A: %.300s", p.mainText())
	}
	c.importSample(upstream.URL)
	c.expose("getOrder")

	// A session cookie from A works on B (shared session keys).
	if p := c.security.open(cl.b + "/approvals"); p.url.Path != "/approvals" {
		t.Fatalf("security's session from A does not work on B: landed on %s", p.url)
	}

	approveOnce(t, cl, c)
	publishConcurrently(t, cl, c)
	bundleSeenOnB(t, cl, c)
	throttleShared(t, cl)

	// Logout on A ends the session on B.
	c.security.open(cl.a + "/approvals").form(`^/logout$`).submit().must(http.StatusOK)
	if p := c.security.open(cl.b + "/approvals"); p.url.Path != "/login" {
		t.Errorf("after logout on A, B still serves the session: at %s", p.url)
	}

	noSecretsLogged(t, cl)

	// The hash chain both consoles appended to is one unbroken chain.
	if out := run(t, cl.bin, append([]string{"audit", "verify"}, cl.dbArgs...)...); !strings.HasPrefix(out, "audit log intact: ") {
		t.Errorf("audit verify: %q", out)
	}
}

// approveOnce: 20 parallel approvals of one change request, split over A
// and B: exactly one applies, the others get a clear conflict.
func approveOnce(t *testing.T, cl *cluster, c consoleSide) {
	t.Helper()
	c.ops.open("/tools/deleteOrder/actions/expose").form(`/actions/expose$`).
		set("reason", "support agents delete test orders").set("confirm_name", "deleteOrder").submit().done("requested")
	decide := c.security.open(cl.b+"/approvals").form(approveAction.String()).set("comment", "ok")
	confirm := decide.submit().must(http.StatusOK).form(approveAction.String())
	statuses, texts := postAll(t, confirm, []string{cl.a, cl.b}, 20)
	applied, conflicts := 0, 0
	for i, st := range statuses {
		switch {
		case st == http.StatusOK && strings.Contains(texts[i], "done=approved"):
			applied++
		case st == http.StatusConflict && strings.Contains(texts[i], "no longer pending"):
			conflicts++
		default:
			t.Errorf("approval %d: %d %.300s", i, st, texts[i])
		}
	}
	if applied != 1 || conflicts != 19 {
		t.Fatalf("20 parallel approvals over two consoles: %d applied, %d conflicts; want 1 and 19", applied, conflicts)
	}
}

// publishConcurrently: 20 parallel publishes split over A and B give
// consecutive versions, none lost or doubled; each success is one version.
func publishConcurrently(t *testing.T, cl *cluster, c consoleSide) {
	t.Helper()
	f := c.ops.open(cl.a+"/bundles/next").form(`^/bundles$`).set("note", "race")
	statuses, texts := postAll(t, f, []string{cl.a, cl.b}, 20)
	published := 0
	for i, st := range statuses {
		switch {
		case st == http.StatusOK && strings.Contains(texts[i], "done=published"):
			published++
		case st == http.StatusServiceUnavailable:
			// A bounded wait for the write lock ran out: "try again".
		default:
			t.Errorf("publish %d: %d %.300s", i, st, texts[i])
		}
	}
	db := cl.open(t)
	recs, err := db.ListBundles(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	seen := map[int64]bool{}
	var maxV int64
	for _, r := range recs {
		if seen[r.Version] {
			t.Errorf("version %d stored twice", r.Version)
		}
		seen[r.Version], maxV = true, max(maxV, r.Version)
	}
	if int64(len(recs)) != maxV || published != len(recs) || published < 10 {
		t.Fatalf("%d publishes answered success, %d versions stored, highest v%d: want consecutive versions 1..n, one per success (and most succeeding)", published, len(recs), maxV)
	}
}

// bundleSeenOnB: a runtime token created on A works on B, and after a
// publish on A, B's bundle API serves the new version within one poll
// interval (2 s by default, plus the time to notice).
func bundleSeenOnB(t *testing.T, cl *cluster, c consoleSide) {
	t.Helper()
	token := c.ops.open(cl.a+"/tokens").form(`^/tokens$`).set("name", "cluster").submit().must(http.StatusOK).text("new-token-value")
	// B's bundle API answers from memory and reads token and bundle
	// changes other consoles made at its next poll: a token made on A
	// works on B within one poll interval.
	fetch := func() (int, int64) {
		req, _ := http.NewRequest(http.MethodGet, cl.b+"/api/v1/bundle", nil)
		req.Header.Set("Authorization", "Bearer "+token)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		_, _ = io.Copy(io.Discard, resp.Body)
		_ = resp.Body.Close()
		v, _ := strconv.ParseInt(resp.Header.Get("X-Toolgate-Bundle-Version"), 10, 64)
		return resp.StatusCode, v
	}
	within := func(what string, cond func() bool) {
		t.Helper()
		for start := time.Now(); !cond(); time.Sleep(50 * time.Millisecond) {
			if time.Since(start) > 3*time.Second {
				t.Fatalf("%s: not within one poll interval (2 s) after the change on A", what)
			}
		}
	}
	within("B accepts a runtime token made on A", func() bool { st, _ := fetch(); return st == http.StatusOK })
	version := func() int64 { _, v := fetch(); return v }
	before := version()
	c.ops.open(cl.a+"/bundles/next").form(`^/bundles$`).set("note", "seen on B").submit().done("published")
	within(fmt.Sprintf("B serves the version after v%d published on A", before), func() bool { return version() > before })
}

// throttleShared: wrong passwords for one account from one address,
// alternating between A and B, meet one pair limit (5), not one per console.
func throttleShared(t *testing.T, cl *cluster) {
	t.Helper()
	guesser := newBrowser(t, cl.a)
	f := guesser.open("/login").form(`^/login$`).set("email", "admin@example.com").set("password", "wrong guess")
	counts := map[int]int{}
	for i := range 8 {
		g := on(f, []string{cl.a, cl.b}[i%2])
		resp, err := guesser.hc.PostForm(g.action, g.values)
		if err != nil {
			t.Fatal(err)
		}
		_ = resp.Body.Close()
		counts[resp.StatusCode]++
	}
	if counts[http.StatusUnauthorized] != 5 || counts[http.StatusTooManyRequests] != 3 {
		t.Errorf("8 wrong guesses over two consoles: %v; want 5 checked (401) and 3 throttled (429)", fmt.Sprint(counts))
	}
}
