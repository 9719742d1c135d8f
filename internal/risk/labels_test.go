package risk

import (
	"bufio"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/toolgate/toolgate/internal/openapi"
	"github.com/toolgate/toolgate/internal/testing/corpus"
)

var labelsFile = flag.String("labels", "", "score against this labels TSV instead of ../shared/labels/dev-risk-labels.tsv")

// label is one row of a labels TSV (header: file method path operationId
// label confidence rationale; see ../shared/labels/README.md).
type label struct {
	File, Method, Path, OperationID string
	Class                           Class
	High                            bool
	Rationale                       string
}

func readLabels(t *testing.T, path string) []label {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatalf("reading labels: %v", err)
	}
	defer f.Close()
	var out []label
	sc := bufio.NewScanner(f)
	for line := 1; sc.Scan(); line++ {
		cols := strings.Split(sc.Text(), "\t")
		if line == 1 {
			continue
		}
		if len(cols) < 6 {
			t.Fatalf("%s:%d: %d columns, want 7", path, line, len(cols))
		}
		c, err := ParseClass(cols[4])
		if err != nil {
			t.Fatalf("%s:%d: %v", path, line, err)
		}
		l := label{File: cols[0], Method: cols[1], Path: cols[2], OperationID: cols[3], Class: c, High: cols[5] == "high"}
		if len(cols) > 6 {
			l.Rationale = cols[6]
		}
		out = append(out, l)
	}
	if err := sc.Err(); err != nil {
		t.Fatalf("reading %s: %v", path, err)
	}
	return out
}

// scored is one label with the engine's classification of its operation.
type scored struct {
	label
	Got   Class
	Codes []string
}

// tally is a confusion matrix (rows: label, columns: prediction) with the
// headline numbers derived from it.
type tally struct {
	m [5][5]int
}

func (t *tally) add(want, got Class) { t.m[want][got]++ }

func (t *tally) total() (n, exact, under, over, risky, riskyUnder int) {
	for w := Read; w <= Privileged; w++ {
		for g := Read; g <= Privileged; g++ {
			c := t.m[w][g]
			n += c
			switch {
			case g == w:
				exact += c
			case g < w:
				under += c
			default:
				over += c
			}
			if w >= Destructive {
				risky += c
				if g < w {
					riskyUnder += c
				}
			}
		}
	}
	return
}

func (t *tally) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "  %-12s %6s %6s %6s %6s   (rows: label, columns: engine)\n", "", "READ", "WRITE", "DESTR", "PRIV")
	for w := Read; w <= Privileged; w++ {
		fmt.Fprintf(&b, "  %-12s", w)
		for g := Read; g <= Privileged; g++ {
			fmt.Fprintf(&b, " %6d", t.m[w][g])
		}
		b.WriteString("\n")
	}
	n, exact, under, over, risky, riskyUnder := t.total()
	fmt.Fprintf(&b, "  exact %d/%d = %.1f %% · under %d · over %d · risky under-classified %d/%d\n",
		exact, n, pct(exact, n), under, over, riskyUnder, risky)
	raised, base := t.raisedToPrivileged()
	fmt.Fprintf(&b, "  over-classified: READ/WRITE rows raised to PRIVILEGED %d/%d = %.1f %% (goal under 3 %%)\n",
		raised, base, pct(raised, base))
	return b.String()
}

// raisedToPrivileged counts the READ and WRITE rows the engine calls
// PRIVILEGED, out of all READ and WRITE rows: over-classification that
// sends a harmless tool to a security approver.
func (t *tally) raisedToPrivileged() (raised, base int) {
	for w := Read; w <= Write; w++ {
		for g := Read; g <= Privileged; g++ {
			base += t.m[w][g]
		}
		raised += t.m[w][Privileged]
	}
	return raised, base
}

func pct(a, b int) float64 {
	if b == 0 {
		return 0
	}
	return 100 * float64(a) / float64(b)
}

// scoreLabels classifies the operation of every label row; rows whose
// operation is not in the document are reported as errors.
func scoreLabels(t *testing.T, labels []label) []scored {
	t.Helper()
	dir := fixtureDir(t, corpusMore)
	docs := map[string]*openapi.Document{}
	var out []scored
	for _, l := range labels {
		doc, ok := docs[l.File]
		if !ok {
			var err error
			doc, err = loadCached(filepath.Join(dir, l.File), openapi.Options{})
			if err != nil {
				t.Errorf("loading %s: %v (its label rows count as unscored)", l.File, err)
			}
			docs[l.File] = doc
		}
		if doc == nil {
			continue
		}
		i := slices.IndexFunc(doc.Operations, func(op openapi.Operation) bool {
			return op.Method == l.Method && op.PathKey == l.Path
		})
		if i < 0 {
			t.Errorf("%s %s %s: no such operation", l.File, l.Method, l.Path)
			continue
		}
		a := Classify(&doc.Operations[i])
		out = append(out, scored{label: l, Got: a.Class, Codes: a.Codes()})
	}
	return out
}

// TestDevLabels scores the engine against the hand-labelled development set
// and holds it to the goals: no high-confidence DESTRUCTIVE or
// PRIVILEGED row under-classified, and at least 92 % exact agreement on
// high-confidence rows. Run with -v (make risk-report) for the report.
func TestDevLabels(t *testing.T) {
	path := *labelsFile
	if path == "" {
		path = corpus.Path(t, filepath.Join("labels", "dev-risk-labels.tsv"))
	}
	rows := scoreLabels(t, readLabels(t, path))
	var high, all tally
	perDoc := map[string]*tally{}
	var docs []string
	var misses []string
	for _, r := range rows {
		all.add(r.Class, r.Got)
		if !r.High {
			continue
		}
		high.add(r.Class, r.Got)
		if perDoc[r.File] == nil {
			perDoc[r.File] = &tally{}
			docs = append(docs, r.File)
		}
		perDoc[r.File].add(r.Class, r.Got)
	}
	for _, r := range rows {
		if r.Got != r.Class {
			conf := "low "
			if r.High {
				conf = "HIGH"
			}
			misses = append(misses, fmt.Sprintf("  %s %-11s got %-11s %s %s %s  [%s]  %s", conf, r.Class, r.Got,
				r.File, r.Method, r.Path, strings.Join(r.Codes, ","), r.Rationale))
		}
	}
	t.Logf("labels %s: %d rows scored\n\nhigh-confidence rows:\n%s\nall rows:\n%s", path, len(rows), &high, &all)
	for _, d := range docs {
		n, exact, _, _, risky, riskyUnder := perDoc[d].total()
		t.Logf("  %-30s high rows %3d  exact %5.1f %%  risky under-classified %d/%d", d, n, pct(exact, n), riskyUnder, risky)
	}
	t.Logf("disagreements (label, engine):\n%s", strings.Join(misses, "\n"))
	n, exact, _, _, _, riskyUnder := high.total()
	if riskyUnder > 0 {
		t.Errorf("%d high-confidence DESTRUCTIVE/PRIVILEGED rows under-classified, want 0", riskyUnder)
	}
	if pct(exact, n) < 92 {
		t.Errorf("exact agreement on high-confidence rows %.1f %%, want ≥ 92 %%", pct(exact, n))
	}
	// The goals hold on every row too, low confidence included:
	// ≥ 92 % exact, and under 3 % of READ/WRITE rows raised to PRIVILEGED.
	if n, exact, _, _, _, _ := all.total(); pct(exact, n) < 92 {
		t.Errorf("exact agreement on all rows %.1f %% (%d/%d), want ≥ 92 %%", pct(exact, n), exact, n)
	}
	if raised, base := all.raisedToPrivileged(); pct(raised, base) >= 3 {
		t.Errorf("%d/%d READ/WRITE rows raised to PRIVILEGED (%.1f %%), want under 3 %%", raised, base, pct(raised, base))
	}
}
