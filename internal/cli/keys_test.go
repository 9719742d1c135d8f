package cli

import (
	"context"
	"database/sql"
	"strings"
	"testing"

	"github.com/toolgate/toolgate/internal/config"
	"github.com/toolgate/toolgate/internal/store"
)

// TestKeysRetireRefusesWhenTheCurrentBundleCannotBeRead: only "nothing
// published yet" lets retire skip its check that the key does not sign the
// current bundle; any other failure to read it refuses, key untouched.
func TestKeysRetireRefusesWhenTheCurrentBundleCannotBeRead(t *testing.T) {
	dir := t.TempDir()
	migrateCLI(t, dir)
	kid := strings.TrimSpace(mustPublishCLI(t, dir, "keys", "rotate"))
	mustPublishCLI(t, dir, "keys", "rotate") // kid is no longer the active key
	// A store that answers "no such table" instead of "no bundle yet".
	raw, err := sql.Open("sqlite", store.DSN(config.DBPath(dir)))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := raw.ExecContext(context.Background(), `ALTER TABLE bundles RENAME TO bundles_unreadable`); err != nil {
		t.Fatal(err)
	}
	raw.Close()

	if _, err := publishCLI(t, dir, "keys", "retire", "--", kid); err == nil {
		t.Fatal("retire succeeded although the current bundle could not be read")
	}
	if out := mustPublishCLI(t, dir, "keys", "export"); !strings.Contains(out, kid) {
		t.Errorf("key %s is no longer published after a refused retire: %s", kid, out)
	}
}
