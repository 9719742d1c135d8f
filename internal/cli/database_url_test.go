package cli

import (
	"os"
	"strings"
	"testing"

	"github.com/toolgate/toolgate/internal/testing/pgtest"
)

// TestMain stops pgtest's PostgreSQL server after the tests. Started as a
// child by a test (runAsChild), the test binary runs one command instead.
func TestMain(m *testing.M) {
	runAsChild()
	os.Exit(pgtest.Run(m))
}

// TestDatabaseURLErrorsHideThePassword: a --database-url that is not
// PostgreSQL is a usage error, and one that cannot be reached fails with
// an error that names the server but never the password, for every
// command that opens the database.
func TestDatabaseURLErrorsHideThePassword(t *testing.T) {
	const secret = "s3cr3t-pw"
	tests := []struct {
		name string
		url  string
		args []string
		code int
	}{
		{"not postgres", "mysql://u:" + secret + "@127.0.0.1/x", []string{"migrate"}, 2},
		{"not postgres, serve", "sqlite:///tmp/x.db?password=" + secret, []string{"serve"}, 2},
		{"unreachable", "postgres://u:" + secret + "@127.0.0.1:1/x?sslmode=disable&connect_timeout=2", []string{"migrate"}, 1},
		{"unreachable, password parameter", "postgresql://u@127.0.0.1:1/x?sslmode=disable&password=" + secret, []string{"publish"}, 1},
		{"unreachable, audit", "postgres://u:" + secret + "@127.0.0.1:1/x?sslmode=disable", []string{"audit", "verify"}, 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			env := map[string]string{"TOOLGATE_DATA_DIR": t.TempDir(), "TOOLGATE_DATABASE_URL": tt.url}
			out, errOut, err := runCmd(t, env, "", tt.args...)
			if got := exitCode(err); got != tt.code {
				t.Fatalf("exit %d (%v), want %d", got, err, tt.code)
			}
			if !strings.Contains(err.Error(), "database") && !strings.Contains(err.Error(), "postgres") {
				t.Errorf("error %q does not say the database is the problem", err)
			}
			for _, s := range []string{err.Error(), out, errOut} {
				if strings.Contains(s, secret) {
					t.Fatalf("the password leaked: %q", s)
				}
			}
		})
	}
}
