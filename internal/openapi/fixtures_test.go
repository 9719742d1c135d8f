package openapi

import (
	"bufio"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"testing"
)

// fixtureDir finds ../shared/fixtures/openapi relative to the module root,
// skipping the test when the shared fixtures are not on this machine.
func fixtureDir(tb testing.TB) string {
	tb.Helper()
	_, file, _, _ := runtime.Caller(0)
	dir := filepath.Dir(file)
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			break
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			tb.Skip("module root not found")
		}
		dir = parent
	}
	fx := filepath.Join(dir, "..", "shared", "fixtures", "openapi")
	if _, err := os.Stat(filepath.Join(fx, "INDEX.tsv")); err != nil {
		tb.Skipf("fixtures not present at %s: skipping corpus tests", fx)
	}
	return fx
}

type fixture struct {
	name string // INDEX.tsv file column
	path string // what to pass to LoadPath: a file or, for multi-file sets, the directory
	root string // Options.Root for multi-file sets
	ops  int
}

// fixtures reads INDEX.tsv. Multi-file sets load as their top directory.
func fixtures(tb testing.TB) []fixture {
	tb.Helper()
	dir := fixtureDir(tb)
	f, err := os.Open(filepath.Join(dir, "INDEX.tsv"))
	if err != nil {
		tb.Fatal(err)
	}
	defer f.Close()
	var out []fixture
	sc := bufio.NewScanner(f)
	sc.Scan() // header
	for sc.Scan() {
		cols := strings.Split(sc.Text(), "\t")
		ops, err := strconv.Atoi(cols[7])
		if err != nil {
			tb.Fatalf("INDEX.tsv: operations of %s: %v", cols[0], err)
		}
		fx := fixture{name: cols[0], path: filepath.Join(dir, cols[0]), ops: ops}
		if top, rest, ok := strings.Cut(cols[0], "/"); ok {
			fx.path, fx.root = filepath.Join(dir, top), rest
		}
		out = append(out, fx)
	}
	return out
}

func TestFixturesLoadWithIndexCounts(t *testing.T) {
	for _, fx := range fixtures(t) {
		t.Run(fx.name, func(t *testing.T) {
			doc, err := LoadPath(fx.path, Options{})
			if err != nil {
				t.Fatalf("LoadPath: %v", err)
			}
			if got := len(doc.Operations); got != fx.ops {
				t.Errorf("operations = %d, want %d (INDEX.tsv)", got, fx.ops)
			}
			t.Logf("%d ops, %d skipped, warnings %q", len(doc.Operations), len(doc.Skipped), doc.Warnings)
		})
	}
}
