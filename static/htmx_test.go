package static

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"testing"
)

// TestHTMXMatchesLock checks that the committed htmx.min.js is the version
// package-lock.json pins, and, where `npm ci` has filled node_modules, that
// it is byte for byte the file npm installed.
func TestHTMXMatchesLock(t *testing.T) {
	committed, err := FS.ReadFile("htmx.min.js")
	if err != nil {
		t.Fatalf("htmx.min.js is not embedded: %v", err)
	}
	lockVersion := htmxLockVersion(t, filepath.Join("..", "package-lock.json"))
	m := regexp.MustCompile(`version:"([0-9.]+)"`).FindSubmatch(committed)
	if m == nil {
		t.Fatal(`htmx.min.js carries no version:"…" string`)
	}
	if got := string(m[1]); got != lockVersion {
		t.Errorf("static/htmx.min.js is htmx %s, package-lock.json pins %s: run `make htmx` and commit", got, lockVersion)
	}

	installed, err := os.ReadFile(filepath.Join("..", "node_modules", "htmx.org", "dist", "htmx.min.js"))
	if os.IsNotExist(err) {
		t.Log("node_modules/htmx.org absent: checked the version string only")
		return
	}
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(installed, committed) {
		t.Error("static/htmx.min.js differs from node_modules/htmx.org/dist/htmx.min.js: run `make htmx` and commit")
	}
}

func htmxLockVersion(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var lock struct {
		Packages map[string]struct {
			Version string `json:"version"`
		} `json:"packages"`
	}
	if err := json.Unmarshal(b, &lock); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	v := lock.Packages["node_modules/htmx.org"].Version
	if v == "" {
		t.Fatalf("%s pins no node_modules/htmx.org version", path)
	}
	return v
}
