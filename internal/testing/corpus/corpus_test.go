package corpus

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// recorder is a testing.TB that records how Missing ended it.
type recorder struct {
	testing.TB
	fatal, skip string
}

func (r *recorder) Helper()                      {}
func (r *recorder) Fatalf(f string, args ...any) { r.fatal = fmt.Sprintf(f, args...) }
func (r *recorder) Skipf(f string, args ...any)  { r.skip = fmt.Sprintf(f, args...) }

func TestMissing(t *testing.T) {
	for _, tc := range []struct {
		env       string
		wantFatal bool
	}{{"1", true}, {"", false}, {"0", false}} {
		t.Run("env="+tc.env, func(t *testing.T) {
			t.Setenv(RequireEnv, tc.env)
			r := &recorder{TB: t}
			Missing(r, "corpus not at %s", "/x")
			if (r.fatal != "") != tc.wantFatal || (r.skip != "") == tc.wantFatal {
				t.Errorf("fatal %q skip %q, want fatal=%v", r.fatal, r.skip, tc.wantFatal)
			}
		})
	}
}

func TestFindHonoursDirEnv(t *testing.T) {
	dir := t.TempDir()
	if err := os.MkdirAll(filepath.Join(dir, "fixtures", "openapi"), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv(DirEnv, dir)
	got, err := Find(filepath.Join("fixtures", "openapi"))
	if err != nil || got != filepath.Join(dir, "fixtures", "openapi") {
		t.Errorf("Find = %q, %v; want the folder under %s", got, err, DirEnv)
	}
	if _, err := Find(filepath.Join("labels", "x.tsv")); err == nil || !strings.Contains(err.Error(), DirEnv) {
		t.Errorf("Find of a missing file = %v, want an error naming %s", err, DirEnv)
	}
}

func TestPathSkipsWithTheTierLine(t *testing.T) {
	t.Setenv(DirEnv, t.TempDir())
	t.Setenv(RequireEnv, "")
	r := &recorder{TB: t}
	Path(r, "fixtures/none")
	if !strings.HasPrefix(r.skip, "corpus tier not run: ") {
		t.Errorf("skip message %q does not start with the line make test looks for", r.skip)
	}
}
