// Package corpus decides what a test does when the real-world OpenAPI
// corpus (../shared/fixtures, outside the repository) is not on the
// machine: a developer's focused `go test` skips, but `make test` and
// `make unit` set TOOLGATE_REQUIRE_CORPUS=1 and the test fails, so a build
// never reports ok having tested nothing.
package corpus

import (
	"os"
	"testing"
)

// RequireEnv is the environment variable that turns a missing corpus from a
// skip into a failure.
const RequireEnv = "TOOLGATE_REQUIRE_CORPUS"

// Missing ends tb because the corpus is absent: tb.Fatalf when RequireEnv
// is "1", tb.Skipf otherwise. format and args say where it was looked for.
func Missing(tb testing.TB, format string, args ...any) {
	tb.Helper()
	if os.Getenv(RequireEnv) == "1" {
		tb.Fatalf(format+" ("+RequireEnv+"=1: the corpus is required)", args...)
		return
	}
	tb.Skipf(format+" (set "+RequireEnv+"=1 to make this a failure)", args...)
}
