// Package pgtest gives tests a real, throwaway PostgreSQL server.
//
// The first call to NewDatabase in a test binary starts ONE cluster: initdb
// into a fresh temporary directory, then the postgres server on a free
// loopback port (and a unix socket in that directory), with settings that
// trade durability for speed (fsync, synchronous_commit and
// full_page_writes off). Every NewDatabase then creates a fresh database
// (CREATE DATABASE … TEMPLATE template0) and drops it when the test ends, so
// tests never see each other's rows. Run stops the server (an immediate
// shutdown) and removes the directory when the test binary's tests are
// done; call it from TestMain. A test binary that does not is still safe:
// the server gets SIGQUIT (immediate shutdown) when the test process dies.
//
// When the process runs as root (CI, the developers' machines), initdb and
// postgres, which refuse to run as root, run as the `postgres` user, which
// then owns the temporary directory.
//
// The binaries are found under /usr/lib/postgresql/*/bin (Debian's layout,
// the highest version wins) or on PATH. When they are missing the test is
// skipped, unless TOOLGATE_REQUIRE_POSTGRES=1 (set by the Makefile): then it
// fails and names the package to install. A server that is installed but
// does not start always fails the test.
package pgtest

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
)

// RequireEnv names the environment variable that turns "PostgreSQL is not
// installed" from a skip into a failure.
const RequireEnv = "TOOLGATE_REQUIRE_POSTGRES"

// installHint is what a developer runs when the binaries are missing.
const installHint = "apt-get update && apt-get install -y postgresql (or `make postgres`)"

var (
	startOnce sync.Once
	shared    *Cluster
	startErr  error
	dbSeq     atomic.Int64
)

// NewDatabase returns the URL of a new, empty database on the test binary's
// cluster (started on first use), dropped when tb ends. Close every
// connection to it in an earlier tb.Cleanup (registered later) or the drop
// forces them closed.
func NewDatabase(tb testing.TB) string {
	tb.Helper()
	c := cluster(tb)
	name := fmt.Sprintf("toolgate_test_%d", dbSeq.Add(1))
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if err := c.exec(ctx, "CREATE DATABASE "+name+" TEMPLATE template0 ENCODING 'UTF8'"); err != nil {
		tb.Fatalf("pgtest: create database: %v", err)
	}
	tb.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		if err := c.exec(ctx, "DROP DATABASE IF EXISTS "+name+" WITH (FORCE)"); err != nil {
			tb.Errorf("pgtest: drop database: %v", err)
		}
	})
	return c.URL(name)
}

// Available reports whether the PostgreSQL binaries are installed (without
// starting anything), so a caller can choose engines up front.
func Available() bool {
	_, err := binDir()
	return err == nil
}

// Run runs the tests of m, then stops the shared cluster and removes its
// directory, and returns the exit code for os.Exit:
//
//	func TestMain(m *testing.M) { os.Exit(pgtest.Run(m)) }
func Run(m *testing.M) int {
	code := m.Run()
	if shared != nil {
		if err := shared.Stop(); err != nil {
			fmt.Fprintf(os.Stderr, "pgtest: %v\n", err)
		}
	}
	return code
}

func cluster(tb testing.TB) *Cluster {
	tb.Helper()
	bin, err := binDir()
	if err != nil {
		if os.Getenv(RequireEnv) == "1" {
			tb.Fatalf("pgtest: %v; %s=1 requires it: %s", err, RequireEnv, installHint)
		}
		tb.Skipf("pgtest: %v (install with: %s; set %s=1 to fail instead)", err, installHint, RequireEnv)
	}
	startOnce.Do(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
		defer cancel()
		shared, startErr = Start(ctx, bin)
	})
	if startErr != nil {
		tb.Fatalf("pgtest: %v", startErr)
	}
	return shared
}

// binDir finds the directory holding initdb and postgres.
func binDir() (string, error) {
	dirs, _ := filepath.Glob("/usr/lib/postgresql/*/bin")
	sort.Slice(dirs, func(i, j int) bool { return pgMajor(dirs[i]) > pgMajor(dirs[j]) })
	for _, d := range dirs {
		if isExecutable(filepath.Join(d, "initdb")) && isExecutable(filepath.Join(d, "postgres")) {
			return d, nil
		}
	}
	if p, err := lookPath("initdb"); err == nil {
		return filepath.Dir(p), nil
	}
	return "", fmt.Errorf("PostgreSQL server binaries (initdb, postgres) not found under /usr/lib/postgresql/*/bin or on PATH")
}

// pgMajor is the version number in /usr/lib/postgresql/NN/bin (0 if none).
func pgMajor(dir string) int {
	n, _ := strconv.Atoi(filepath.Base(filepath.Dir(dir)))
	return n
}

func isExecutable(path string) bool {
	fi, err := os.Stat(path)
	return err == nil && !fi.IsDir() && fi.Mode()&0o111 != 0
}

// exec runs one statement on the cluster's maintenance database.
func (c *Cluster) exec(ctx context.Context, sql string) error {
	conn, err := pgx.Connect(ctx, c.URL("postgres"))
	if err != nil {
		return fmt.Errorf("connect: %w", err)
	}
	defer func() { _ = conn.Close(context.Background()) }()
	if _, err := conn.Exec(ctx, sql); err != nil {
		return fmt.Errorf("%s: %w", strings.Fields(sql)[0], err)
	}
	return nil
}
