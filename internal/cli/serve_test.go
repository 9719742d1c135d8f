package cli

import (
	"context"
	"errors"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/toolgate/toolgate/internal/store"
	"github.com/toolgate/toolgate/internal/store/storetest"
	"github.com/toolgate/toolgate/internal/testing/pgtest"
	"github.com/toolgate/toolgate/internal/testing/syncbuf"
)

func envOf(m map[string]string) func(string) string { return func(k string) string { return m[k] } }

// runCmd runs args with env and stdin, returning stdout, stderr and the error.
func runCmd(t *testing.T, env map[string]string, stdin string, args ...string) (string, string, error) {
	t.Helper()
	var out, errb syncbuf.Buffer
	err := Run(context.Background(), args, envOf(env), strings.NewReader(stdin), &out, &errb)
	return out.String(), errb.String(), err
}

func exitCode(err error) int { return ExitCode(err, io.Discard) }

// TestServeFirstRunAndShutdown runs serve on both engines: the SQLite file
// in the data directory, and a PostgreSQL database (--database-url).
func TestServeFirstRunAndShutdown(t *testing.T) {
	for _, engine := range []store.Engine{store.SQLite, store.Postgres} {
		t.Run(string(engine), func(t *testing.T) { serveFirstRunAndShutdown(t, engine) })
	}
}

func serveFirstRunAndShutdown(t *testing.T, engine store.Engine) {
	dir := t.TempDir()
	env := map[string]string{"TOOLGATE_DATA_DIR": dir}
	if engine == store.Postgres {
		// PostgreSQL is shared by consoles: signing and session keys live
		// in it, sealed under a KEK file (TestPostgresNeedsAKEK).
		env["TOOLGATE_DATABASE_URL"] = pgtest.NewDatabase(t)
		env["TOOLGATE_KEK_FILE"] = writeTestKEK(t, 8)
	}
	ctx, cancel := context.WithCancel(context.Background())
	var out, logs syncbuf.Buffer
	done := make(chan error, 1)
	go func() {
		done <- Run(ctx, []string{"serve", "--addr", "127.0.0.1:0"}, envOf(env), strings.NewReader(""), &out, &logs)
	}()
	setup := regexp.MustCompile(`open (http://127\.0\.0\.1:\d+)/setup\?token=\S+ to create`)
	var base string
	for deadline := time.Now().Add(10 * time.Second); base == "" && time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		if m := setup.FindStringSubmatch(out.String()); m != nil {
			base = m[1]
		}
	}
	if base == "" {
		cancel()
		t.Fatalf("no setup link printed; stdout %q, logs %q", out.String(), logs.String())
	}
	for _, p := range []string{"/healthz", "/readyz"} {
		resp, err := http.Get(base + p)
		if err != nil || resp.StatusCode != 200 {
			t.Fatalf("GET %s: %v %v", p, resp, err)
		}
		resp.Body.Close()
	}
	stopServe(t, cancel, done)
	if !strings.Contains(logs.String(), "stopped") || !strings.Contains(logs.String(), "path=/healthz") {
		t.Errorf("logs lack shutdown or request lines: %s", logs.String())
	}
	// Session and signing keys persist: in the data directory on SQLite,
	// in the database (sealed) with a KEK on PostgreSQL, and not on disk.
	keys, err := filepath.Glob(filepath.Join(dir, "session.keys"))
	if want := map[store.Engine]int{store.SQLite: 1, store.Postgres: 0}[engine]; err != nil || len(keys) != want {
		t.Errorf("%d session.keys files in the data dir, want %d", len(keys), want)
	}
	if engine == store.Postgres {
		db, err := store.OpenURL(context.Background(), env["TOOLGATE_DATABASE_URL"])
		if err != nil {
			t.Fatal(err)
		}
		defer db.Close()
		if sk, err := db.SigningKeys(context.Background()); err != nil || len(sk) != 1 || !sk[0].Active {
			t.Errorf("signing keys in the database after the first start: %v %v", sk, err)
		}
	}
}

func TestServeRejectsBadConfig(t *testing.T) {
	_, _, err := runCmd(t, map[string]string{"TOOLGATE_ADDR": "nonsense", "TOOLGATE_DATA_DIR": t.TempDir()}, "", "serve")
	if exitCode(err) != 2 || !strings.Contains(err.Error(), "TOOLGATE_ADDR") {
		t.Fatalf("err = %v", err)
	}
	// A flag beats the environment.
	_, _, err = runCmd(t, map[string]string{"TOOLGATE_ADDR": "127.0.0.1:1"}, "", "serve", "--addr", "bad", "--data-dir", t.TempDir())
	if exitCode(err) != 2 || !strings.Contains(err.Error(), `"bad"`) {
		t.Fatalf("err = %v", err)
	}
}

// TestUserAddMigrateAndAuditVerify runs the database commands on both
// engines: SQLite in the data directory, and PostgreSQL named by
// TOOLGATE_DATABASE_URL.
func TestUserAddMigrateAndAuditVerify(t *testing.T) {
	for _, engine := range []store.Engine{store.SQLite, store.Postgres} {
		t.Run(string(engine), func(t *testing.T) { userAddMigrateAndAuditVerify(t, engine) })
	}
}

func userAddMigrateAndAuditVerify(t *testing.T, engine store.Engine) {
	dir := t.TempDir()
	env := map[string]string{"TOOLGATE_DATA_DIR": dir}
	where := filepath.Join(dir, "toolgate.db")
	if engine == store.Postgres {
		where = pgtest.NewDatabase(t)
		env["TOOLGATE_DATABASE_URL"] = where
	}
	out, _, err := runCmd(t, env, "", "migrate")
	if err != nil || !strings.Contains(out, "applied migrations [1") {
		t.Fatalf("migrate: %q %v", out, err)
	}
	if engine == store.Postgres {
		if _, err := os.Stat(filepath.Join(dir, "toolgate.db")); !errors.Is(err, os.ErrNotExist) {
			t.Fatalf("migrate on PostgreSQL touched the SQLite file: %v", err)
		}
	}
	if out, _, err = runCmd(t, env, "", "migrate"); err != nil || !strings.Contains(out, "up to date") {
		t.Fatalf("second migrate: %q %v", out, err)
	}

	out, _, err = runCmd(t, env, "", "user", "add", "--email", "Ops@Example.com", "--role", "admin", "--role", "approver")
	pw := regexp.MustCompile(`password: (\S+)`).FindStringSubmatch(out)
	if err != nil || pw == nil || !strings.Contains(out, "ops@example.com") {
		t.Fatalf("user add: %q %v", out, err)
	}
	out, _, err = runCmd(t, env, "a very long password\n", "user", "add", "--email", "v@example.com", "--role", "viewer", "--password-stdin")
	if err != nil || strings.Contains(out, "password:") {
		t.Fatalf("user add --password-stdin: %q %v", out, err)
	}
	tests := []struct {
		name  string
		stdin string
		args  []string
		code  int
	}{
		{"duplicate", "", []string{"--email", "v@example.com", "--role", "viewer"}, 1},
		{"short stdin password", "short\n", []string{"--email", "s@example.com", "--role", "viewer", "--password-stdin"}, 2},
		{"unknown role", "", []string{"--email", "r@example.com", "--role", "root"}, 2},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, _, err := runCmd(t, env, tt.stdin, append([]string{"user", "add"}, tt.args...)...)
			if got := exitCode(err); got != tt.code {
				t.Errorf("exit %d (%v), want %d", got, err, tt.code)
			}
		})
	}

	out, _, err = runCmd(t, env, "", "audit", "verify")
	if err != nil || !strings.Contains(out, "intact: 2 entries") {
		t.Fatalf("audit verify: %q %v", out, err)
	}
	db := storetest.Open(t, where)
	storetest.Tamper(t, db, 2, "mallory@example.com")
	db.Close()
	_, _, err = runCmd(t, env, "", "audit", "verify")
	var ee *ExitError
	if !errors.As(err, &ee) || ee.Code != 1 || !strings.Contains(err.Error(), "audit entry 2") {
		t.Fatalf("tampered audit verify: %v", err)
	}
}

// TestServeRuntimeAPIListener: --runtime-api-addr opens a second listener
// that serves the runtime API and nothing of the console, and both
// listeners stop when serve does.
func TestServeRuntimeAPIListener(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var out, logs syncbuf.Buffer
	done := make(chan error, 1)
	go func() {
		done <- Run(ctx, []string{"serve", "--addr", "127.0.0.1:0", "--runtime-api-addr", "127.0.0.1:0"},
			envOf(map[string]string{"TOOLGATE_DATA_DIR": t.TempDir()}), strings.NewReader(""), &out, &logs)
	}()
	re := regexp.MustCompile(`Runtime API listening on (127\.0\.0\.1:\d+)`)
	var api string
	for deadline := time.Now().Add(10 * time.Second); api == "" && time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		if m := re.FindStringSubmatch(out.String()); m != nil {
			api = "http://" + m[1]
		}
	}
	if api == "" {
		cancel()
		t.Fatalf("no runtime API line; stdout %q, logs %q", out.String(), logs.String())
	}
	for path, want := range map[string]int{"/api/v1/keys": 200, "/api/v1/bundle": 401, "/healthz": 404, "/login": 404} {
		resp, err := http.Get(api + path)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != want {
			t.Errorf("GET %s on the runtime API: %d, want %d", path, resp.StatusCode, want)
		}
	}
	// Requests it cannot read get the API's JSON errors, and no log line
	// above debug (anyone could send them).
	for _, tt := range []struct {
		raw  string
		want string
	}{
		{"GET /api/v1/keys HTTP/1.1\r\nHost: x\r\nX-Big: " + strings.Repeat("a", 20<<10) + "\r\n\r\n", "HTTP/1.1 431 "},
		{"POST /api/v1/bundle HTTP/1.1\r\nHost: x\r\nContent-Length: 400000\r\n\r\n" + strings.Repeat("a", 400000), "HTTP/1.1 413 "},
		{"GARBAGE\r\n\r\n", "HTTP/1.1 400 "},
	} {
		head, body := rawRequest(t, strings.TrimPrefix(api, "http://"), tt.raw)
		if !strings.HasPrefix(head, tt.want) || !strings.Contains(head, "Content-Type: application/json") || !strings.HasPrefix(body, `{"error":`) {
			t.Errorf("%.30q: got %q %q, want %s with a JSON error", tt.raw, head, body, tt.want)
		}
	}
	stopServe(t, cancel, done)
	if strings.Contains(logs.String(), "serving connection") || strings.Contains(logs.String(), "GARBAGE") {
		t.Errorf("unreadable requests logged above debug: %s", logs.String())
	}
	for _, line := range []string{"msg=stopped server=console", `msg=stopped server="runtime API"`} {
		if !strings.Contains(logs.String(), line) {
			t.Errorf("no %q in the log: %s", line, logs.String())
		}
	}
	if _, err := http.Get(api + "/api/v1/keys"); err == nil {
		t.Error("the runtime API still answers after serve returned")
	}
}

// TestServeRuntimeAPIAddressTaken: a runtime API address already in use
// stops serve with an error naming it, before anything is served.
func TestServeRuntimeAPIAddressTaken(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	_, _, err = runCmd(t, map[string]string{"TOOLGATE_DATA_DIR": t.TempDir()}, "", "serve", "--addr", "127.0.0.1:0",
		"--runtime-api-addr", ln.Addr().String())
	if err == nil || !strings.Contains(err.Error(), "runtime API") || !strings.Contains(err.Error(), "address already in use") {
		t.Fatalf("serve with a taken runtime API address: %v", err)
	}
}

// rawRequest writes raw to addr and returns the response head and body
// (read until the server closes the connection).
func rawRequest(t *testing.T, addr, raw string) (string, string) {
	t.Helper()
	c, err := net.DialTimeout("tcp", addr, 5*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	_ = c.SetDeadline(time.Now().Add(10 * time.Second))
	go func() { _, _ = io.WriteString(c, raw) }() // the server may answer before reading it all
	b, _ := io.ReadAll(c)
	head, body, _ := strings.Cut(string(b), "\r\n\r\n")
	return head, body
}

// stopServe cancels a serve started with done and waits for it to return
// nil.
func stopServe(t *testing.T, cancel func(), done <-chan error) {
	t.Helper()
	cancel()
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("serve returned %v after cancel", err)
		}
	case <-time.After(15 * time.Second):
		t.Fatal("serve did not shut down")
	}
}

// TestServeRefusesABadWebhookRetryBase: --webhook-retry-base outside
// 100ms–1h (or not a duration) stops serve with exit 2 and a sentence
// naming the flag, before anything is created in the data directory.
func TestServeRefusesABadWebhookRetryBase(t *testing.T) {
	for _, v := range []string{"10ms", "-1s", "2h", "soon"} {
		dir := filepath.Join(t.TempDir(), "data")
		_, stderr, err := runCmd(t, nil, "", "serve", "--addr", "127.0.0.1:0", "--data-dir", dir, "--webhook-retry-base", v)
		if code := exitCode(err); code != 2 || !strings.Contains(err.Error()+stderr, "--webhook-retry-base") {
			t.Errorf("--webhook-retry-base %s: exit %d, %v %s; want 2 naming the flag", v, code, err, stderr)
		}
		if _, serr := os.Stat(dir); !errors.Is(serr, os.ErrNotExist) {
			t.Errorf("--webhook-retry-base %s: the data directory was created (%v)", v, serr)
		}
	}
}
