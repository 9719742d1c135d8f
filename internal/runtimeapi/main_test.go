package runtimeapi

import (
	"os"
	"testing"

	"github.com/toolgate/toolgate/internal/testing/pgtest"
)

// TestMain runs the long-poll benchmark's client process when started as
// one (bench_waiters_test.go), and otherwise the tests, stopping pgtest's
// PostgreSQL server (when a test or benchmark started it) after the run.
func TestMain(m *testing.M) {
	if spec := os.Getenv(childEnv); spec != "" {
		os.Exit(longPollChild(spec))
	}
	os.Exit(pgtest.Run(m))
}
