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
	"sync"
	"testing"

	"github.com/toolgate/toolgate/internal/openapi"
	"github.com/toolgate/toolgate/internal/testing/corpus"
)

var update = flag.Bool("update", false, "rewrite testdata/golden from the current classification")

// fixture is one row of the fixture corpus' INDEX.tsv.
type fixture struct {
	File       string // path relative to the fixture folder, e.g. "sendgrid/oas_v3.json"
	Operations int
	MultiFile  bool
}

// Where the shared fixture corpora live, relative to the module root.
const (
	corpusMain = "openapi"      // ../shared/fixtures/openapi: the first 14 documents
	corpusMore = "openapi-more" // ../shared/fixtures/openapi-more: the labelled vendor documents
)

var moreDir = flag.String("fixtures-more", "", "read the openapi-more corpus from this folder instead of ../shared/fixtures/openapi-more")

// fixtureDir finds one fixture corpus. Under -short the corpus may be
// missing (the test skips, and under -race -short it always skips: the
// corpus runs in the separate plain `go test` of `make unit`); a run
// without -short FAILS when it is missing, so `make unit` cannot pass
// without checking the goldens.
func fixtureDir(t testing.TB, set string) string {
	t.Helper()
	// `go test -race -short` leaves the corpus to a run without -race:
	// parsing 8 MB under the race detector costs about three times its CPU,
	// and the classification rules have no concurrency to check.
	if raceDetector && testing.Short() {
		t.Skip("-short under -race: the fixture corpus runs in a separate go test without -race")
	}
	if set == corpusMore && *moreDir != "" {
		return *moreDir
	}
	return filepath.Dir(corpus.Path(t, filepath.Join("fixtures", set, "INDEX.tsv")))
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
	doc, err := loadCached(path, opts)
	if err != nil {
		t.Fatalf("loading %s: %v", fx.File, err)
	}
	return doc
}

// docCache keeps each parsed fixture for the whole test binary: the golden,
// label and share tests read the same 20 MB of documents, and nothing
// changes a loaded document.
var docCache sync.Map // path+root → *cachedDoc

type cachedDoc struct {
	once sync.Once
	doc  *openapi.Document
	err  error
}

func loadCached(path string, opts openapi.Options) (*openapi.Document, error) {
	v, _ := docCache.LoadOrStore(path+"\x00"+opts.Root, &cachedDoc{})
	c := v.(*cachedDoc)
	c.once.Do(func() { c.doc, c.err = openapi.LoadPath(path, opts) })
	return c.doc, c.err
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

// goldenPath keeps the first corpus' goldens where they always were and the
// second corpus' in a folder of its own.
func goldenPath(corpus, file string) string {
	dir := filepath.Join("testdata", "golden")
	if corpus != corpusMain {
		dir = filepath.Join(dir, corpus)
	}
	return filepath.Join(dir, strings.ReplaceAll(file, "/", "_")+".golden")
}

// TestGolden compares the classification of every operation of every
// fixture with the hand-reviewed files in testdata/golden. Run with -update
// to rewrite them, then review the diff line by line: the files are the
// specification of the engine.
func TestGolden(t *testing.T) {
	for _, corpus := range []string{corpusMain, corpusMore} {
		t.Run(corpus, func(t *testing.T) { checkGoldens(t, corpus) })
	}
}

func checkGoldens(t *testing.T, corpus string) {
	dir := fixtureDir(t, corpus)
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
			path := goldenPath(corpus, fx.File)
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
	dir := fixtureDir(b, corpusMain)
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
