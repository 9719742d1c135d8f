package openapi

import (
	"bufio"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/toolgate/toolgate/internal/testing/corpus"
)

// corpusDir finds the fixture corpus's first set (fixtures/openapi).
func corpusDir() (string, error) { return sharedFixtures("openapi") }

// sharedFixtures finds fixtures/NAME of the corpus, with its INDEX.tsv.
func sharedFixtures(name string) (string, error) {
	index, err := corpus.Find(filepath.Join("fixtures", name, "INDEX.tsv"))
	return filepath.Dir(index), err
}

// fixtureDir is corpusDir for tests. A missing corpus fails the test: a
// corpus test that skips when its data is gone would pass having checked
// nothing (only -short under -race leaves it to the plain run).
func fixtureDir(tb testing.TB) string {
	tb.Helper()
	if corpusLeftToPlainRun() {
		tb.Skip("-short under -race: the fixture corpus runs in a separate go test without -race")
	}
	dir, err := corpusDir()
	if err != nil {
		corpus.Missing(tb, "skipping corpus test: %v", err)
	}
	return dir
}

// corpusLeftToPlainRun is true for `go test -race -short`: parsing the 8 MB
// corpus under the race detector costs about three times its CPU, and the
// small documents of the other tests drive the same code under -race, so a
// build can run the corpus once without -race instead (see the package
// tests' use of fixtureDir). Without -short nothing is skipped.
func corpusLeftToPlainRun() bool { return raceDetector && testing.Short() }

type fixture struct {
	name string // INDEX.tsv file column
	path string // what to pass to LoadPath: a file or, for multi-file sets, the directory
	root string // Options.Root for multi-file sets
	ops  int
}

// fixtures reads INDEX.tsv. Multi-file sets load as their top directory.
func fixtures(tb testing.TB) []fixture {
	tb.Helper()
	return fixturesIn(tb, fixtureDir(tb))
}

func fixturesIn(tb testing.TB, dir string) []fixture {
	tb.Helper()
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

// corpusDocs caches each fixture's Document for the whole test binary. The
// corpus is 8 MB and parsing it under -race was most of this package's test
// time, paid once per test that reads it; tests only read the documents.
var corpusDocs sync.Map // fixture path+root -> *corpusEntry

type corpusEntry struct {
	once sync.Once
	doc  *Document
	err  error
}

// loadFixture returns the fixture's Document, parsing it on first use.
// Callers must not modify it: other tests share it.
func loadFixture(tb testing.TB, fx fixture) *Document {
	tb.Helper()
	v, _ := corpusDocs.LoadOrStore(fx.path+"\x00"+fx.root, &corpusEntry{})
	e := v.(*corpusEntry)
	e.once.Do(func() { e.doc, e.err = LoadPath(fx.path, Options{Root: fx.root}) })
	if e.err != nil {
		tb.Fatalf("LoadPath %s: %v", fx.name, e.err)
	}
	return e.doc
}

// fixtureByName returns the INDEX.tsv row of one fixture file.
func fixtureByName(tb testing.TB, name string) fixture {
	tb.Helper()
	for _, fx := range fixtures(tb) {
		if fx.name == name {
			return fx
		}
	}
	tb.Fatalf("fixture %s is not in INDEX.tsv", name)
	return fixture{}
}

func TestFixturesLoadWithIndexCounts(t *testing.T) {
	for _, fx := range fixtures(t) {
		t.Run(fx.name, func(t *testing.T) {
			t.Parallel()
			doc := loadFixture(t, fx)
			if got := len(doc.Operations); got != fx.ops {
				t.Errorf("operations = %d, want %d (INDEX.tsv)", got, fx.ops)
			}
			t.Logf("%d ops, %d skipped, warnings %q", len(doc.Operations), len(doc.Skipped), doc.Warnings)
		})
	}
}

// TestFixtureSetsImportAsFileAndDirectory imports every document of both
// fixture directories the two ways an admin can: as its root file (the set
// is then read from the file's directory tree) and as a directory with the
// root named. Each must give the operation count of its INDEX.tsv. A
// missing fixture directory fails the test; -short leaves the corpus to the
// plain `go test` of make unit.
func TestFixtureSetsImportAsFileAndDirectory(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: the fixture corpus runs in the plain go test of make unit")
	}
	for _, set := range []string{"openapi", "openapi-more"} {
		dir, err := sharedFixtures(set)
		if err != nil {
			corpus.Missing(t, "fixture set %s: %v", set, err)
		}
		for _, fx := range fixturesIn(t, dir) {
			rootFile, dirPath, root := fx.path, dir, fx.name
			if fx.root != "" {
				rootFile, dirPath, root = filepath.Join(fx.path, fx.root), fx.path, fx.root
			}
			for _, c := range []struct {
				how  string
				path string
				opts Options
			}{{"file", rootFile, Options{}}, {"directory", dirPath, Options{Root: root}}} {
				t.Run(set+"/"+fx.name+"/"+c.how, func(t *testing.T) {
					doc, err := LoadPath(c.path, c.opts)
					if err != nil {
						t.Fatalf("import: %v", err)
					}
					if got := len(doc.Operations); got != fx.ops {
						t.Errorf("operations = %d, want %d (INDEX.tsv)", got, fx.ops)
					}
				})
			}
		}
	}
}
