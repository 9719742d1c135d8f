package cli

import (
	"context"
	"errors"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/toolgate/toolgate/internal/pgtest"
	"github.com/toolgate/toolgate/internal/store"
	"github.com/toolgate/toolgate/internal/syncbuf"
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
	cancel()
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("serve returned %v after cancel", err)
		}
	case <-time.After(15 * time.Second):
		t.Fatal("serve did not shut down")
	}
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
	open := func() (*store.DB, error) { return store.Open(context.Background(), filepath.Join(dir, "toolgate.db")) }
	if engine == store.Postgres {
		url := pgtest.NewDatabase(t)
		env["TOOLGATE_DATABASE_URL"] = url
		open = func() (*store.DB, error) { return store.OpenURL(context.Background(), url) }
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
	db, err := open()
	if err != nil {
		t.Fatal(err)
	}
	store.Tamper(t, db, 2, "mallory@example.com")
	db.Close()
	_, _, err = runCmd(t, env, "", "audit", "verify")
	var ee *ExitError
	if !errors.As(err, &ee) || ee.Code != 1 || !strings.Contains(err.Error(), "audit entry 2") {
		t.Fatalf("tampered audit verify: %v", err)
	}
}
