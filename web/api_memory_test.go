package web

import (
	"bytes"
	"context"
	"database/sql"
	"fmt"
	"log/slog"
	"net/url"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/toolgate/toolgate/internal/auth"
	"github.com/toolgate/toolgate/internal/bundle"
	"github.com/toolgate/toolgate/internal/keyring"
	"github.com/toolgate/toolgate/internal/store"
	"github.com/toolgate/toolgate/internal/store/storetest"
)

// newAPIApp is newPublishApp over a database file whose path the test
// knows (to open a second handle on it, as another process would), with
// the given poll interval.
func newAPIApp(t *testing.T, poll time.Duration) (*testApp, string) {
	t.Helper()
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "toolgate.db")
	db := openDB(t, path)
	a := &testApp{t: t, db: db, log: &bytes.Buffer{}, users: map[string]*store.User{}}
	for _, r := range auth.AllRoles {
		u, err := db.CreateUser(ctx, "test", store.NewUser{Email: string(r) + "@example.com", PasswordHash: testHash(), Roles: []auth.Role{r}})
		if err != nil {
			t.Fatal(err)
		}
		a.users[string(r)] = u
	}
	srv, err := New(ctx, Deps{Store: db, Logger: slog.New(slog.NewTextHandler(a.log, nil)), Config: testConfig(),
		SessionKeys: [][]byte{bytes.Repeat([]byte{1}, 64), bytes.Repeat([]byte{2}, 32)},
		Keys:        &keyring.Files{Dir: bundle.KeyDir{Path: filepath.Join(t.TempDir(), "keys")}, DB: db}, APIPollInterval: poll})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { srv.Close(context.Background()) })
	a.srv = srv
	return a, path
}

func openDB(t *testing.T, path string) *store.DB {
	t.Helper()
	db := storetest.Open(t, path)
	if _, err := db.Migrate(context.Background()); err != nil {
		t.Fatal(err)
	}
	return db
}

func bearer(token string, more ...string) map[string]string {
	h := map[string]string{"Authorization": "Bearer " + token}
	for i := 0; i+1 < len(more); i += 2 {
		h[more[i]] = more[i+1]
	}
	return h
}

// The 304 path (and the 200 of the current version) reads nothing from
// the database: with the bundle rows deleted behind the server's back, and
// then with the database closed, both still answer from memory.
func TestBundleAPIAnswersFromMemory(t *testing.T) {
	a, path := newAPIApp(t, time.Hour)
	a.exposeTool("list_orders")
	token := a.token("edge")
	v1 := a.publish("first")
	wantStatus(t, a.do(request{method: "GET", path: "/api/v1/bundle", header: bearer(token)}), 200) // loads it

	raw, err := sql.Open("sqlite", store.DSN(path))
	if err != nil {
		t.Fatal(err)
	}
	defer raw.Close()
	if _, err := raw.Exec(`DELETE FROM bundles`); err != nil {
		t.Fatal(err)
	}
	check := func(stage string) {
		t.Helper()
		rec := a.do(request{method: "GET", path: "/api/v1/bundle", header: bearer(token, "If-None-Match", v1.ETag)})
		hd := rec.Header()
		if rec.Code != 304 || hd.Get("ETag") != v1.ETag || hd.Get("Cache-Control") != apiCacheControl ||
			hd.Get("X-Content-Type-Options") != "nosniff" || hd.Get("Content-Security-Policy") != apiCSP || rec.Body.Len() != 0 {
			t.Fatalf("%s: conditional fetch %d %v", stage, rec.Code, hd)
		}
		rec = a.do(request{method: "GET", path: "/api/v1/bundle", header: bearer(token)})
		if rec.Code != 200 || rec.Body.String() != v1.Signed {
			t.Fatalf("%s: fetch %d", stage, rec.Code)
		}
	}
	check("payload rows deleted")
	if err := a.db.Close(); err != nil {
		t.Fatal(err)
	}
	check("database closed")

	if got := counterValue(t, a.srv.pub.metrics.bundleResults.WithLabelValues(resultNotModified)); got != 2 {
		t.Errorf("304s counted: %v, want 2", got)
	}
	rec := a.do(request{method: "GET", path: "/api/v1/metrics", header: bearer(token)})
	wantStatus(t, rec, 200)
	wantBody(t, rec, `toolgate_console_bundle_requests_total{result="not_modified"} 2`, `toolgate_console_bundle_requests_total{result="sent"} 3`,
		"toolgate_console_bundle_version 1")
	if strings.Contains(a.log.String(), "status=304") {
		t.Error("304s are logged at info")
	}
	if !strings.Contains(a.log.String(), "status=200") {
		t.Error("200s are not logged")
	}
}

// What this process publishes, creates or revokes is seen on the very next
// request, without waiting for the poll.
func TestBundleAPISeesLocalChangesAtOnce(t *testing.T) {
	a, _ := newAPIApp(t, time.Hour)
	a.exposeTool("list_orders")
	token := a.token("edge")
	v1 := a.publish("first")
	wantStatus(t, a.do(request{method: "GET", path: "/api/v1/bundle", header: bearer(token, "If-None-Match", v1.ETag)}), 304)

	a.exposeTool("get_order")
	v2 := a.publish("second")
	rec := a.do(request{method: "GET", path: "/api/v1/bundle", header: bearer(token, "If-None-Match", v1.ETag)})
	if rec.Code != 200 || rec.Header().Get("ETag") != v2.ETag || rec.Body.String() != v2.Signed {
		t.Fatalf("after a local publish: %d %v", rec.Code, rec.Header())
	}
	second := a.token("second")
	wantStatus(t, a.do(request{method: "GET", path: "/api/v1/bundle", header: bearer(second, "If-None-Match", v2.ETag)}), 304)

	// Revoked through the console's page: refused on the next request.
	admin := a.sessionCookie("admin")
	wantStatus(t, a.do(request{method: "POST", path: "/tokens/edge/revoke", cookie: admin, csrf: true, form: url.Values{"confirm": {"yes"}}}), 303)
	wantStatus(t, a.do(request{method: "GET", path: "/api/v1/bundle", header: bearer(token, "If-None-Match", v2.ETag)}), 401)
	wantStatus(t, a.do(request{method: "GET", path: "/api/v1/bundle", header: bearer(second, "If-None-Match", v2.ETag)}), 304)
}

// Another process on the same database (a second console, the CLI):
// its publish, token creation and revocation are seen within the poll.
func TestBundleAPISeesOtherProcessWithinPoll(t *testing.T) {
	const poll = 50 * time.Millisecond
	a, path := newAPIApp(t, poll)
	other := openDB(t, path)
	ctx := context.Background()
	a.exposeTool("list_orders")
	token := a.token("edge")
	v1 := a.publish("first")
	wantStatus(t, a.do(request{method: "GET", path: "/api/v1/bundle", header: bearer(token, "If-None-Match", v1.ETag)}), 304)

	// within waits for cond, failing when it takes longer than 20 polls (a
	// loaded test machine, not a timing claim).
	within := func(what string, cond func() bool) {
		t.Helper()
		start := time.Now()
		for !cond() {
			if time.Since(start) > 20*poll {
				t.Fatalf("%s not seen after %v (poll %v)", what, time.Since(start), poll)
			}
			time.Sleep(poll / 5)
		}
	}
	key, err := a.srv.pub.keys.Active(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	v2, err := other.Publish(ctx, store.PublishRequest{Actor: "cli", Key: key})
	if err != nil {
		t.Fatal(err)
	}
	within("the other process's publish", func() bool {
		rec := a.do(request{method: "GET", path: "/api/v1/bundle", header: bearer(token, "If-None-Match", v1.ETag)})
		return rec.Code == 200 && rec.Header().Get("ETag") == v2.ETag && rec.Body.String() == v2.Signed
	})
	_, secret, err := other.CreateRuntimeToken(ctx, "cli", "made-elsewhere")
	if err != nil {
		t.Fatal(err)
	}
	within("the other process's new token", func() bool {
		return a.do(request{method: "GET", path: "/api/v1/bundle", header: bearer(secret)}).Code == 200
	})
	if _, err := other.RevokeRuntimeToken(ctx, "cli", "edge"); err != nil {
		t.Fatal(err)
	}
	within("the other process's revocation", func() bool {
		return a.do(request{method: "GET", path: "/api/v1/bundle", header: bearer(token, "If-None-Match", v2.ETag)}).Code == 401
	})
}

// Fetches racing publishes and a revocation: every answer is a consistent
// one (304 for the ETag it carries, or 200 with a body matching its ETag,
// or 401 once revoked), and the last publish is what is served after.
func TestBundleAPIConcurrentWithPublishes(t *testing.T) {
	a, _ := newAPIApp(t, 10*time.Millisecond)
	a.exposeTool("t0")
	token := a.token("edge")
	first := a.publish("")
	bodies := map[string]string{first.ETag: first.Signed}
	var mu sync.Mutex
	done := make(chan struct{})
	var wg sync.WaitGroup
	errs := make(chan string, 100)
	for range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			etag := first.ETag
			for {
				select {
				case <-done:
					return
				default:
				}
				rec := a.do(request{method: "GET", path: "/api/v1/bundle", header: bearer(token, "If-None-Match", etag)})
				switch got := rec.Header().Get("ETag"); rec.Code {
				case 304:
				case 200:
					mu.Lock()
					want, ok := bodies[got]
					mu.Unlock()
					if !ok || rec.Body.String() != want {
						errs <- "200 whose body is not the bundle of its ETag " + got
						return
					}
					etag = got
				default:
					errs <- fmt.Sprintf("status %d", rec.Code)
					return
				}
			}
		}()
	}
	var last *store.BundleRecord
	for i := 1; i <= 3; i++ {
		a.exposeTool(fmt.Sprintf("t%d", i))
		mu.Lock() // publish under the lock: no fetch can see the ETag before its body is known here
		last = a.publish("")
		bodies[last.ETag] = last.Signed
		mu.Unlock()
		time.Sleep(20 * time.Millisecond)
	}
	close(done)
	wg.Wait()
	close(errs)
	for e := range errs {
		t.Error(e)
	}
	rec := a.do(request{method: "GET", path: "/api/v1/bundle", header: bearer(token)})
	if rec.Header().Get("ETag") != last.ETag {
		t.Fatalf("after the publishes: %v", rec.Header())
	}
}
