package web

import (
	"bytes"
	"context"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gorilla/securecookie"

	"github.com/toolgate/toolgate/internal/auth"
	"github.com/toolgate/toolgate/internal/config"
	"github.com/toolgate/toolgate/internal/runtimeapi"
	"github.com/toolgate/toolgate/internal/store"
	"github.com/toolgate/toolgate/internal/store/storetest"
	"github.com/toolgate/toolgate/internal/testing/httpcheck"
)

const (
	testPassword = "correct horse battery"
	testCSRF     = "test-csrf-token-0123456789abcdef"
)

var testHash = sync.OnceValue(func() string {
	h, err := auth.HashPassword(testPassword)
	if err != nil {
		panic(err)
	}
	return h
})

// testApp is a Server over a real SQLite database with one user per role.
type testApp struct {
	t     *testing.T
	srv   *Server
	api   *runtimeapi.Service // mounted at /api/
	db    *store.DB
	log   *bytes.Buffer
	users map[string]*store.User // by role name; "anonymous" absent
	// own holds the passwords people chose at their first sign-in
	// (signInAs), by email.
	own map[string]string
}

func testConfig() config.Config {
	return config.Config{Addr: "127.0.0.1:0", DataDir: "unused", BaseURL: "http://127.0.0.1:1",
		SessionIdle: time.Hour, SessionMaxAge: 12 * time.Hour}
}

// newTestApp builds the app; withUsers=false leaves the database empty
// (first run). opts may change the server's dependencies.
func newTestApp(t *testing.T, withUsers bool, opts ...func(*Deps)) *testApp {
	t.Helper()
	return newTestAppWith(t, storetest.MustOpen(t), withUsers, opts...)
}

// newTestAppWith builds the app over db (migrated).
func newTestAppWith(t *testing.T, db *store.DB, withUsers bool, opts ...func(*Deps)) *testApp {
	t.Helper()
	a := &testApp{t: t, db: db, log: &bytes.Buffer{}, users: map[string]*store.User{}}
	if withUsers {
		for _, r := range auth.AllRoles {
			u, err := a.db.CreateUser(context.Background(), "test", store.NewUser{Email: string(r) + "@example.com", PasswordHash: testHash(), Roles: []auth.Role{r}})
			if err != nil {
				t.Fatal(err)
			}
			a.users[string(r)] = u
		}
	}
	keys := [][]byte{bytes.Repeat([]byte{1}, 64), bytes.Repeat([]byte{2}, 32)}
	d := Deps{Store: a.db, Logger: slog.New(slog.NewTextHandler(a.log, nil)), Config: testConfig(), SessionKeys: keys}
	for _, o := range opts {
		o(&d)
	}
	if d.RuntimeAPI == nil {
		d.RuntimeAPI = newRuntimeAPI(t, runtimeapi.Config{Store: d.Store, Logger: d.Logger, Keys: d.Keys})
	}
	a.api, _ = d.RuntimeAPI.(*runtimeapi.Service)
	srv, err := New(context.Background(), d)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { srv.Close(context.Background()) })
	a.srv = srv
	return a
}

// newRuntimeAPI is the runtime API the console mounts, closed at the end
// of the test.
func newRuntimeAPI(t *testing.T, cfg runtimeapi.Config) *runtimeapi.Service {
	t.Helper()
	api, err := runtimeapi.New(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { api.Close(context.Background()) })
	return api
}

// sessionCookie signs role's user in through the store and returns the
// cookie a browser would hold.
func (a *testApp) sessionCookie(role string) *http.Cookie {
	a.t.Helper()
	u, ok := a.users[role]
	if !ok {
		return nil
	}
	token, err := a.db.Login(context.Background(), u, "test", store.SessionPolicy{Idle: time.Hour, Absolute: time.Hour})
	if err != nil {
		a.t.Fatal(err)
	}
	v, err := securecookie.EncodeMulti(sessionCookie, map[any]any{sessionKeyID: token}, a.srv.cookies.Codecs...)
	if err != nil {
		a.t.Fatal(err)
	}
	return &http.Cookie{Name: sessionCookie, Value: v}
}

// request is one test request.
type request struct {
	method, path string
	form         url.Values
	cookie       *http.Cookie // session
	csrf         bool         // send a valid CSRF cookie + header
	header       map[string]string
	addr         string          // client address (host:port); "" is httptest's 192.0.2.1
	ctx          context.Context // the request's context; nil is context.Background()
}

func (a *testApp) do(r request) *httptest.ResponseRecorder {
	a.t.Helper()
	var body io.Reader
	if r.form != nil {
		body = strings.NewReader(r.form.Encode())
	}
	req := httptest.NewRequest(r.method, r.path, body)
	if r.form != nil {
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	}
	if r.cookie != nil {
		req.AddCookie(r.cookie)
	}
	if r.csrf {
		req.AddCookie(&http.Cookie{Name: "toolgate_csrf", Value: testCSRF})
		req.Header.Set("X-CSRF-Token", testCSRF)
	}
	for k, v := range r.header {
		req.Header.Set(k, v)
	}
	if r.addr != "" {
		req.RemoteAddr = r.addr
	}
	if r.ctx != nil {
		req = req.WithContext(r.ctx)
	}
	rec := httptest.NewRecorder()
	a.srv.ServeHTTP(rec, req)
	return rec
}

var (
	wantStatus = httpcheck.Status
	wantBody   = httpcheck.Body
)
