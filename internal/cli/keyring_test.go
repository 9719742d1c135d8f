package cli

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/toolgate/toolgate/internal/testing/pgtest"
)

func writeTestKEK(t *testing.T, fill byte) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "kek")
	if err := os.WriteFile(p, bytes.Repeat([]byte{fill}, 32), 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

// Moving a single console's key directory into the database: publish with
// the KEK refuses while the database has no key but the directory has,
// keys import moves them (the active one stays active), and from then on
// the commands with the KEK act on the database's keys.
func TestKeysImportMovesAnInstallation(t *testing.T) {
	dir := t.TempDir()
	migrateCLI(t, dir)
	kek := writeTestKEK(t, 5)
	first := strings.TrimSpace(mustPublishCLI(t, dir, "keys", "rotate"))
	active := strings.TrimSpace(mustPublishCLI(t, dir, "keys", "rotate"))
	env := map[string]string{"TOOLGATE_DATA_DIR": dir, "TOOLGATE_KEK_FILE": kek}

	_, _, err := runCmd(t, env, "", "publish")
	if exitCode(err) != 1 || !strings.Contains(err.Error(), "keys import") {
		t.Fatalf("publish with a KEK and the keys still in files: %v; want exit 1 naming keys import", err)
	}
	out, _, err := runCmd(t, env, "", "keys", "import")
	if err != nil || !strings.Contains(out, "imported "+first) || !strings.Contains(out, "imported "+active) {
		t.Fatalf("keys import: %q %v", out, err)
	}
	out, _, err = runCmd(t, env, "", "keys", "list")
	if err != nil || !strings.Contains(out, active+"\tcreated") || !strings.Contains(out, "\tactive") {
		t.Fatalf("keys list from the database: %q %v", out, err)
	}
	if out, _, err = runCmd(t, env, "", "keys", "import"); err != nil || !strings.Contains(out, "nothing to import") {
		t.Errorf("second import: %q %v", out, err)
	}
	// Another KEK is refused before it is used: nothing is signed with it.
	env["TOOLGATE_KEK_FILE"] = writeTestKEK(t, 6)
	if _, _, err := runCmd(t, env, "", "publish"); exitCode(err) != 2 || !strings.Contains(err.Error(), "not the one this database's secrets are sealed with") {
		t.Errorf("publish with another KEK: %v; want the KEK refused", err)
	}
	// A KEK file others can read is refused.
	loose := writeTestKEK(t, 5)
	if err := os.Chmod(loose, 0o644); err != nil {
		t.Fatal(err)
	}
	env["TOOLGATE_KEK_FILE"] = loose
	if _, _, err := runCmd(t, env, "", "keys", "list"); exitCode(err) != 2 || !strings.Contains(err.Error(), "chmod 600") {
		t.Errorf("a group-readable KEK file: %v", err)
	}
}

// On PostgreSQL the keys must be in the database: serve, publish and keys
// refuse to run without a KEK file, naming the flag.
func TestPostgresNeedsAKEK(t *testing.T) {
	env := map[string]string{"TOOLGATE_DATA_DIR": t.TempDir(), "TOOLGATE_DATABASE_URL": pgtest.NewDatabase(t)}
	for _, args := range [][]string{{"serve", "--addr", "127.0.0.1:0"}, {"publish"}, {"keys", "rotate"}} {
		_, _, err := runCmd(t, env, "", args...)
		if exitCode(err) != 2 || !strings.Contains(err.Error(), "--key-encryption-key-file") {
			t.Errorf("%v on PostgreSQL without a KEK: %v; want exit 2 naming the flag", args, err)
		}
	}
	env["TOOLGATE_KEK_FILE"] = writeTestKEK(t, 7)
	if out, _, err := runCmd(t, env, "", "keys", "rotate"); err != nil || len(strings.TrimSpace(out)) != 16 {
		t.Errorf("keys rotate on PostgreSQL with a KEK: %q %v", out, err)
	}
}
