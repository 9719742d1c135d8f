package runtimeapi

import (
	"bytes"
	"context"
	"log/slog"
	"net/http/httptest"
	"path/filepath"
	"testing"
	"time"

	"github.com/toolgate/toolgate/internal/bundle"
	"github.com/toolgate/toolgate/internal/keyring"
	"github.com/toolgate/toolgate/internal/risk"
	"github.com/toolgate/toolgate/internal/store"
	"github.com/toolgate/toolgate/internal/store/storetest"
	"github.com/toolgate/toolgate/internal/testing/httpcheck"
)

// testApp is a Service over a real SQLite database with a signing key
// directory, as `serve` builds it; bundles are published through the
// store, as the console's publish does.
type testApp struct {
	t    *testing.T
	srv  *Service
	db   *store.DB
	keys keyring.Keyring
	log  *bytes.Buffer
}

// newPublishApp is the runtime API over a fresh database.
func newPublishApp(t *testing.T) *testApp {
	t.Helper()
	return newAppOver(t, storetest.MustOpen(t), time.Hour)
}

// newAPIApp is newPublishApp over a database file whose path the test
// knows (to open a second handle on it, as another process would), with
// the given poll interval.
func newAPIApp(t *testing.T, poll time.Duration) (*testApp, string) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "toolgate.db")
	return newAppOver(t, openDB(t, path), poll), path
}

func newAppOver(t *testing.T, db *store.DB, poll time.Duration) *testApp {
	t.Helper()
	ctx := context.Background()
	a := &testApp{t: t, db: db, log: &bytes.Buffer{}}
	a.keys = &keyring.Files{Dir: bundle.KeyDir{Path: filepath.Join(t.TempDir(), "keys")}, DB: db}
	if _, _, err := a.keys.EnsureActive(ctx, "system"); err != nil {
		t.Fatal(err)
	}
	srv, err := New(ctx, Config{Store: db, Logger: slog.New(slog.NewTextHandler(a.log, nil)), Keys: a.keys, PollInterval: poll})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { srv.Close(context.Background()) })
	a.srv = srv
	return a
}

func openDB(t *testing.T, path string) *store.DB {
	t.Helper()
	db := storetest.Open(t, path)
	if _, err := db.Migrate(context.Background()); err != nil {
		t.Fatal(err)
	}
	return db
}

// request is one test request.
type request struct {
	method, path string
	header       map[string]string
}

func (a *testApp) do(r request) *httptest.ResponseRecorder {
	a.t.Helper()
	req := httptest.NewRequest(r.method, r.path, nil)
	for k, v := range r.header {
		req.Header.Set(k, v)
	}
	rec := httptest.NewRecorder()
	a.srv.ServeHTTP(rec, req)
	return rec
}

// exposeTool adds an exposed READ tool of the "orders" source.
func (a *testApp) exposeTool(name string) {
	a.t.Helper()
	storetest.MustAddTool(a.t, a.db, storetest.FixtureTool{Source: "orders", Origin: "https://api.example.com", Name: name,
		Method: "GET", Path: "/" + name, Class: risk.Read, Exposed: true})
}

func (a *testApp) publish(note string) *store.BundleRecord {
	return storetest.Publish(a.t, a.db, a.keys, note)
}

func (a *testApp) token(name string) string { return storetest.RuntimeToken(a.t, a.db, name) }

func (a *testApp) keySet() bundle.KeySet { return storetest.PublicKeys(a.t, a.keys) }

var (
	bearer     = httpcheck.Bearer
	wantStatus = httpcheck.Status
	wantBody   = httpcheck.Body
)
