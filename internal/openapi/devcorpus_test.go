package openapi

import (
	"bufio"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/toolgate/toolgate/internal/testing/corpus"
)

// devDocument is one row of the development corpus's INDEX.tsv
// (fixtures/apisguru-dev; its README.md describes the columns).
type devDocument struct {
	file string
	ops  int
	// readable is true when the reference parser could read the document
	// (validate "valid" or dereference "ok"): those must import.
	readable bool
}

// devCorpus reads the development corpus's INDEX.tsv, columns found by
// name so a new column does not shift them.
func devCorpus(tb testing.TB) (string, []devDocument) {
	tb.Helper()
	index := corpus.Path(tb, "fixtures/apisguru-dev/INDEX.tsv")
	f, err := os.Open(index)
	if err != nil {
		tb.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	if !sc.Scan() {
		tb.Fatalf("%s: no header", index)
	}
	col := map[string]int{}
	for i, name := range strings.Split(sc.Text(), "\t") {
		col[name] = i
	}
	for _, name := range []string{"file", "ops", "ref_validate", "ref_dereference"} {
		if _, ok := col[name]; !ok {
			tb.Fatalf("%s: no column %q", index, name)
		}
	}
	var docs []devDocument
	for sc.Scan() {
		cells := strings.Split(sc.Text(), "\t")
		ops, err := strconv.Atoi(cells[col["ops"]])
		if err != nil {
			tb.Fatalf("%s: ops of %s: %v", index, cells[col["file"]], err)
		}
		docs = append(docs, devDocument{
			file:     cells[col["file"]],
			ops:      ops,
			readable: cells[col["ref_validate"]] == "valid" || cells[col["ref_dereference"]] == "ok",
		})
	}
	if err := sc.Err(); err != nil {
		tb.Fatal(err)
	}
	return filepath.Dir(index), docs
}

// TestDevCorpusImportsWithIndexCounts imports every document of the
// development corpus (a random sample of public descriptions nobody here
// tuned for) that the reference parser could read, and wants exactly the
// operation count of its INDEX.tsv, and the same Document from the model
// walk and from batches. A failure ends with one report line per
// document that did not: name, expected, got, error. It is 91 MB of YAML,
// so -short leaves it to the plain go test of make unit.
func TestDevCorpusImportsWithIndexCounts(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: the development corpus runs in the plain go test of make unit")
	}
	dir, docs := devCorpus(t)
	var (
		mu     sync.Mutex
		report []string
		ok     int
	)
	t.Run("documents", func(t *testing.T) {
		for _, d := range docs {
			if !d.readable {
				continue
			}
			t.Run(d.file, func(t *testing.T) {
				t.Parallel()
				got, errText := "-", ""
				doc, err := LoadPath(filepath.Join(dir, d.file), Options{})
				if err != nil {
					errText = firstLine(err)
				} else {
					got = strconv.Itoa(len(doc.Operations))
				}
				mu.Lock()
				defer mu.Unlock()
				if got != strconv.Itoa(d.ops) {
					report = append(report, fmt.Sprintf("%s\t%d\t%s\t%s", d.file, d.ops, got, errText))
					t.Errorf("operations = %s, want %d (INDEX.tsv); error: %s", got, d.ops, errText)
					return
				}
				// The shortcuts change no Document: the node-tree response
				// walk against the model's, batches (with their narrowed
				// components) against the default build.
				for _, alt := range []struct {
					name string
					opts Options
				}{{"the model walk", Options{modelWalk: true}}, {"batches of 5 operations", Options{batchSize: 5}}} {
					other, err := LoadPath(filepath.Join(dir, d.file), alt.opts)
					if err != nil || !reflect.DeepEqual(doc, other) {
						report = append(report, fmt.Sprintf("%s\t%d\t%s\tthe Document differs with %s (%v)", d.file, d.ops, got, alt.name, err))
						t.Errorf("the Document differs with %s (err %v)", alt.name, err)
						return
					}
				}
				ok++
			})
		}
	})
	// The group returns once all its parallel subtests have finished.
	slices.Sort(report)
	t.Logf("%d of %d readable documents import with their INDEX.tsv count", ok, ok+len(report))
	if len(report) > 0 {
		t.Errorf("documents that did not import with their count (name, expected, got, error):\n%s", strings.Join(report, "\n"))
	}
}
