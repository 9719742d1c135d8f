package runtimeapi

import (
	"os"
	"testing"

	"github.com/toolgate/toolgate/internal/testing/pgtest"
)

// TestMain stops pgtest's PostgreSQL server (when a test or benchmark
// started it) after the run.
func TestMain(m *testing.M) { os.Exit(pgtest.Run(m)) }
