package keyring

import (
	"os"
	"testing"

	"github.com/toolgate/toolgate/internal/testing/pgtest"
)

// TestMain stops pgtest's PostgreSQL server after the tests.
func TestMain(m *testing.M) { os.Exit(pgtest.Run(m)) }
