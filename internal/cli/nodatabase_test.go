package cli

import (
	"context"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/toolgate/toolgate/internal/store"
	"github.com/toolgate/toolgate/internal/testing/pgtest"
)

// migrateCLI creates and migrates the SQLite database in dir, as
// `toolgate migrate --data-dir DIR` does.
func migrateCLI(t *testing.T, dir string) {
	t.Helper()
	if _, _, err := runCmd(t, map[string]string{"TOOLGATE_DATA_DIR": dir}, "", "migrate"); err != nil {
		t.Fatalf("toolgate migrate: %v", err)
	}
}

// commandsOnTheDatabase are commands that open the database, with the
// arguments they need.
var commandsOnTheDatabase = [][]string{
	{"user", "add", "--email", "ada@example.com", "--role", "admin"},
	{"user", "break-glass", "--email", "ada@example.com"},
	{"token", "create", "--name", "edge"},
	{"token", "revoke", "edge"},
	{"publish"},
	{"import", "--source", "shop", "--yes", "DOC"},
	{"keys", "list"},
	{"keys", "rotate"},
	{"bundle", "export", "--out", "bundle.jws"},
	{"audit", "verify"},
}

// TestCommandsRefuseAMissingDatabase: with a --data-dir that holds no
// database (a typo), every command but serve and migrate fails with one
// sentence naming `toolgate migrate`, and creates nothing: no directory,
// no database file. After migrate, the same command works.
func TestCommandsRefuseAMissingDatabase(t *testing.T) {
	for _, args := range commandsOnTheDatabase {
		t.Run(strings.Join(args[:min(2, len(args))], " "), func(t *testing.T) {
			dir := filepath.Join(t.TempDir(), "dta")
			if args[len(args)-1] == "DOC" { // import reads its document first
				doc := filepath.Join(t.TempDir(), "pets.yaml")
				if err := os.WriteFile(doc, []byte(importDoc), 0o600); err != nil {
					t.Fatal(err)
				}
				args = append(args[:len(args)-1:len(args)-1], doc)
			}
			_, _, err := runCmd(t, map[string]string{"TOOLGATE_DATA_DIR": dir}, "", args...)
			if exitCode(err) != 1 || !strings.Contains(err.Error(), "toolgate migrate --data-dir "+dir) || strings.Count(err.Error(), ". ") > 0 {
				t.Fatalf("%v on a missing data directory: %v; want one sentence naming toolgate migrate", args, err)
			}
			if _, err := os.Stat(dir); !os.IsNotExist(err) {
				t.Errorf("the data directory was created (%v)", err)
			}
		})
	}
	t.Run("empty directory", func(t *testing.T) {
		dir := t.TempDir()
		_, _, err := runCmd(t, map[string]string{"TOOLGATE_DATA_DIR": dir}, "", "token", "create", "--name", "edge")
		if exitCode(err) != 1 || !strings.Contains(err.Error(), "toolgate migrate") {
			t.Fatalf("token create in an empty directory: %v", err)
		}
		if entries, _ := os.ReadDir(dir); len(entries) != 0 {
			t.Errorf("left %d entries in the directory", len(entries))
		}
		migrateCLI(t, dir)
		if out, _, err := runCmd(t, map[string]string{"TOOLGATE_DATA_DIR": dir}, "", "token", "create", "--name", "edge"); err != nil || out == "" {
			t.Fatalf("token create after migrate: %q %v", out, err)
		}
	})
}

// TestCommandsRefuseAnUnmigratedPostgresDatabase: a PostgreSQL database
// no migration ever ran on is refused the same way, and left without
// tables.
func TestCommandsRefuseAnUnmigratedPostgresDatabase(t *testing.T) {
	url := pgtest.NewDatabase(t)
	env := map[string]string{"TOOLGATE_DATA_DIR": t.TempDir(), "TOOLGATE_DATABASE_URL": url}
	_, _, err := runCmd(t, env, "", "user", "add", "--email", "ada@example.com", "--role", "admin")
	if exitCode(err) != 1 || !strings.Contains(err.Error(), "toolgate migrate --database-url") {
		t.Fatalf("user add on an empty PostgreSQL database: %v", err)
	}
	db, err := store.OpenURL(context.Background(), url)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if ok, err := db.Initialized(context.Background()); err != nil || ok {
		t.Errorf("after the refusal: initialized %v, %v; want no tables", ok, err)
	}
}

// TestTakenPortLeavesTheDataDirectoryAlone: serve and runtime bind their
// listeners before they create or write anything in the data directory,
// so a port already taken leaves no directory behind.
func TestTakenPortLeavesTheDataDirectoryAlone(t *testing.T) {
	taken, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer taken.Close()
	addr := taken.Addr().String()
	for _, tc := range []struct {
		name string
		args []string
	}{
		{"serve --addr", []string{"serve", "--addr", addr}},
		{"serve --runtime-api-addr", []string{"serve", "--addr", "127.0.0.1:0", "--runtime-api-addr", addr}},
		{"runtime --mcp-addr", []string{"runtime", "--console", "http://127.0.0.1:1", "--trust-on-first-use", "--mcp-addr", addr, "--metrics-addr", ""}},
		{"runtime --metrics-addr", []string{"runtime", "--console", "http://127.0.0.1:1", "--trust-on-first-use", "--mcp-addr", "127.0.0.1:0", "--metrics-addr", addr}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := filepath.Join(t.TempDir(), "data")
			env := map[string]string{"TOOLGATE_DATA_DIR": dir, "TOOLGATE_RUNTIME_TOKEN": "tgr_" + strings.Repeat("x", 40)}
			_, _, err := runCmd(t, env, "", tc.args...)
			if err == nil || !strings.Contains(err.Error(), "address already in use") {
				t.Fatalf("%v on a taken port: %v", tc.args, err)
			}
			if _, err := os.Stat(dir); !os.IsNotExist(err) {
				t.Errorf("the data directory was created (%v)", err)
			}
		})
	}
}
