package cli

import (
	"context"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/toolgate/toolgate/internal/config"
	"github.com/toolgate/toolgate/internal/testing/syncbuf"
)

func modeOf(t *testing.T, path string) fs.FileMode {
	t.Helper()
	st, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	return st.Mode().Perm()
}

// TestSecureDataDirTightensLooseModes: a data directory and files left
// readable by others are made private, and each fix is reported once.
func TestSecureDataDirTightensLooseModes(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "data")
	if err := os.Mkdir(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(dir, 0o755); err != nil { // whatever the umask
		t.Fatal(err)
	}
	db := config.DBPath(dir)
	loose := map[string]fs.FileMode{db: 0o644, db + "-wal": 0o664, filepath.Join(dir, "session.keys"): 0o640}
	for p, m := range loose {
		if err := os.WriteFile(p, []byte("x"), m); err != nil {
			t.Fatal(err)
		}
		if err := os.Chmod(p, m); err != nil {
			t.Fatal(err)
		}
	}
	fixes, err := secureDataDir(dir, true)
	if err != nil {
		t.Fatal(err)
	}
	if len(fixes) != 4 {
		t.Errorf("fixes %+v, want the directory and 3 files", fixes)
	}
	if m := modeOf(t, dir); m != 0o700 {
		t.Errorf("data dir mode %#o, want 0700", m)
	}
	for p := range loose {
		if m := modeOf(t, p); m != 0o600 {
			t.Errorf("%s mode %#o, want 0600", filepath.Base(p), m)
		}
	}
	if again, err := secureDataDir(dir, true); err != nil || len(again) != 0 {
		t.Errorf("second run: %+v, %v; want nothing to fix", again, err)
	}
}

// TestNewDataDirIsPrivate: a data directory created by createStore is 0700,
// and the database with its WAL files 0600 (SQLite alone makes them 0644
// under the usual umask).
func TestNewDataDirIsPrivate(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "data")
	db, err := createStore(context.Background(), dir, "", true)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if m := modeOf(t, dir); m != 0o700 {
		t.Errorf("data dir mode %#o, want 0700", m)
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var seen []string
	for _, e := range entries {
		if strings.HasPrefix(e.Name(), "toolgate.db") {
			seen = append(seen, e.Name())
			if m := modeOf(t, filepath.Join(dir, e.Name())); m != 0o600 {
				t.Errorf("%s mode %#o, want 0600", e.Name(), m)
			}
		}
	}
	if len(seen) < 2 {
		t.Errorf("database files %v, want the database and its WAL files", seen)
	}
}

// TestServeLogsTightenedPermissions: serve fixes a loose data directory at
// start and says so in its log.
func TestServeLogsTightenedPermissions(t *testing.T) {
	dir := t.TempDir()
	if err := os.Chmod(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var out, logs syncbuf.Buffer
	done := make(chan error, 1)
	go func() {
		done <- Run(ctx, []string{"serve", "--addr", "127.0.0.1:0"}, envOf(map[string]string{"TOOLGATE_DATA_DIR": dir}),
			strings.NewReader(""), &out, &logs)
	}()
	for deadline := time.Now().Add(10 * time.Second); !strings.Contains(out.String(), "running at") && time.Now().Before(deadline); {
		time.Sleep(20 * time.Millisecond)
	}
	cancel()
	if err := <-done; err != nil {
		t.Fatalf("serve: %v", err)
	}
	if !strings.Contains(logs.String(), "permissions were looser than private; tightened") || !strings.Contains(logs.String(), "was=0755") {
		t.Errorf("no log line about the tightened data dir:\n%s", logs.String())
	}
	if m := modeOf(t, dir); m != 0o700 {
		t.Errorf("data dir mode %#o, want 0700", m)
	}
}
