package risk

import (
	"bufio"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/toolgate/toolgate/internal/corpus"
	"github.com/toolgate/toolgate/internal/openapi"
)

var update = flag.Bool("update", false, "rewrite testdata/golden from the current classification")

// fixture is one row of the fixture corpus' INDEX.tsv.
type fixture struct {
	File       string // path relative to the fixture folder, e.g. "sendgrid/oas_v3.json"
	Operations int
	MultiFile  bool
}

// fixtureDir finds ../shared/fixtures/openapi relative to the module root,
// wherever the test runs from; it skips the test when the folder is missing.
func fixtureDir(t testing.TB) string {
	t.Helper()
	// `go test -race -short` leaves the corpus to a run without -race:
	// parsing 8 MB under the race detector costs about three times its CPU,
	// and the classification rules have no concurrency to check.
	if raceDetector && testing.Short() {
		t.Skip("-short under -race: the fixture corpus runs in a separate go test without -race")
	}
	dir, err := os.Getwd()
	if err != nil {
		t.Fatalf("finding the module root: %v", err)
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			break
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			t.Fatal("finding the module root: no go.mod above the test directory")
		}
		dir = parent
	}
	fx := filepath.Join(dir, "..", "shared", "fixtures", "openapi")
	if _, err := os.Stat(filepath.Join(fx, "INDEX.tsv")); err != nil {
		corpus.Missing(t, "fixture corpus not found at %s (%v); golden classification not checked", fx, err)
	}
	return fx
}

func readIndex(t *testing.T, dir string) []fixture {
	t.Helper()
	f, err := os.Open(filepath.Join(dir, "INDEX.tsv"))
	if err != nil {
		t.Fatalf("reading INDEX.tsv: %v", err)
	}
	defer f.Close()
	var out []fixture
	sc := bufio.NewScanner(f)
	for line := 0; sc.Scan(); line++ {
		cols := strings.Split(sc.Text(), "\t")
		if line == 0 || len(cols) < 10 {
			continue
		}
		n, err := strconv.Atoi(cols[7])
		if err != nil {
			t.Fatalf("INDEX.tsv line %d: operations %q: %v", line+1, cols[7], err)
		}
		out = append(out, fixture{File: cols[0], Operations: n, MultiFile: strings.HasPrefix(cols[9], "yes")})
	}
	if err := sc.Err(); err != nil {
		t.Fatalf("reading INDEX.tsv: %v", err)
	}
	return out
}

// loadFixture loads a fixture; a multi-file set is loaded as the directory
// it lives in (its first path element) with the root named explicitly.
func loadFixture(t *testing.T, dir string, fx fixture) *openapi.Document {
	t.Helper()
	path, opts := filepath.Join(dir, fx.File), openapi.Options{}
	if fx.MultiFile {
		top, rest, _ := strings.Cut(fx.File, "/")
		path, opts.Root = filepath.Join(dir, top), rest
	}
	doc, err := openapi.LoadPath(path, opts)
	if err != nil {
		t.Fatalf("loading %s: %v", fx.File, err)
	}
	return doc
}

// goldenLines renders one sorted line per operation:
// CLASS METHOD PATHKEY tool reason-codes.
func goldenLines(doc *openapi.Document) []string {
	lines := make([]string, 0, len(doc.Operations))
	for i := range doc.Operations {
		op := &doc.Operations[i]
		a := Classify(op)
		lines = append(lines, fmt.Sprintf("%s %s %s %s %s", a.Class, op.Method, op.PathKey, op.Tool, strings.Join(a.Codes(), ",")))
	}
	slices.Sort(lines)
	return lines
}

func goldenName(file string) string {
	return strings.ReplaceAll(file, "/", "_") + ".golden"
}

// TestGolden compares the classification of every operation of every
// fixture with the hand-reviewed files in testdata/golden. Run with -update
// to rewrite them, then review the diff line by line: the files are the
// specification of the engine.
func TestGolden(t *testing.T) {
	dir := fixtureDir(t)
	for _, fx := range readIndex(t, dir) {
		t.Run(fx.File, func(t *testing.T) {
			t.Parallel() // each fixture is independent; this halves the wall time on 2 cores
			doc := loadFixture(t, dir, fx)
			if len(doc.Operations) != fx.Operations {
				t.Errorf("%d operations, INDEX.tsv says %d", len(doc.Operations), fx.Operations)
			}
			got := strings.Join(goldenLines(doc), "\n")
			if got != "" {
				got += "\n"
			}
			path := filepath.Join("testdata", "golden", goldenName(fx.File))
			if *update {
				if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
					t.Fatalf("writing golden: %v", err)
				}
				if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
					t.Fatalf("writing golden: %v", err)
				}
				return
			}
			want, err := os.ReadFile(path)
			if err != nil {
				t.Fatalf("reading golden (run with -update to create it): %v", err)
			}
			if got != string(want) {
				t.Errorf("classification of %s differs from %s:\n%s", fx.File, path, lineDiff(string(want), got))
			}
		})
	}
}

// lineDiff lists the lines only in want (-) and only in got (+); both are
// sorted line sets, so this is the whole difference.
func lineDiff(want, got string) string {
	w, g := strings.Split(want, "\n"), strings.Split(got, "\n")
	var b strings.Builder
	for _, l := range w {
		if !slices.Contains(g, l) {
			b.WriteString("- " + l + "\n")
		}
	}
	for _, l := range g {
		if !slices.Contains(w, l) {
			b.WriteString("+ " + l + "\n")
		}
	}
	return b.String()
}

// BenchmarkClassify measures the engine alone over every operation of the
// largest fixtures (loading is excluded), to show its share of `inspect`.
func BenchmarkClassify(b *testing.B) {
	dir := fixtureDir(b)
	for _, name := range []string{"asana-oas.yaml", "box-openapi.json"} {
		doc, err := openapi.LoadPath(filepath.Join(dir, name), openapi.Options{})
		if err != nil {
			b.Fatalf("loading %s: %v", name, err)
		}
		b.Run(name, func(b *testing.B) {
			for b.Loop() {
				for i := range doc.Operations {
					Classify(&doc.Operations[i])
				}
			}
		})
	}
}
