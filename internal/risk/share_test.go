package risk

import (
	"fmt"
	"os"
	"strings"
	"testing"
)

// maxShare is the over-classification bound: no single class may
// hold more than this share of a document's operations unless the
// document really is that (allowedDominant says which and why).
const maxShare = 0.60

// allowedDominant names the documents where one class rightly holds more
// than maxShare of the operations, with the class and the reason.
var allowedDominant = map[string]struct {
	class Class
	why   string
}{
	"ory-hydra-api.json": {Privileged, "Ory Hydra is an OAuth2/OpenID Connect server: its API manages OAuth clients " +
		"(with secrets and JWKs), signing keys, trusted issuers, login/consent/logout sessions and token " +
		"issuance and revocation — access itself. The dev labels put 18 of its 28 rows at PRIVILEGED."},
}

// minShareOps: a share says nothing about a document this small (one
// operation is always 100 % of something).
const minShareOps = 5

// TestClassShare checks every document of both fixture corpora against
// maxShare: calling everything PRIVILEGED would pass the safety metric,
// so over-classification is a defect too.
func TestClassShare(t *testing.T) {
	for _, corpus := range []string{corpusMain, corpusMore} {
		dir := fixtureDir(t, corpus)
		for _, fx := range readIndex(t, dir) {
			if fx.Operations < minShareOps {
				continue
			}
			t.Run(corpus+"/"+fx.File, func(t *testing.T) {
				doc := loadFixture(t, dir, fx)
				counts := map[Class]int{}
				for i := range doc.Operations {
					counts[Classify(&doc.Operations[i]).Class]++
				}
				n := len(doc.Operations)
				var parts []string
				top, topN := Read, 0
				for _, c := range Classes {
					parts = append(parts, fmt.Sprintf("%s %d", c, counts[c]))
					if counts[c] > topN {
						top, topN = c, counts[c]
					}
				}
				share := float64(topN) / float64(n)
				t.Logf("%s: %d operations: %s; max %s %.0f %%", fx.File, n, strings.Join(parts, " · "), top, 100*share)
				allowed, ok := allowedDominant[fx.File]
				if share > maxShare && (!ok || allowed.class != top) {
					t.Errorf("%s holds %.0f %% of %s's operations (> %.0f %%) and the document is not listed as really being %s",
						top, 100*share, fx.File, 100*maxShare, top)
				}
			})
		}
	}
}

// TestGoldenAgreement summarises the goldens as the labels are summarised:
// a confusion matrix of the reviewed golden class (rows) against the
// engine (columns) per corpus, for `make risk-report`. TestGolden lists the
// differing lines; this fails on the same differences with the matrix.
func TestGoldenAgreement(t *testing.T) {
	for _, corpus := range []string{corpusMain, corpusMore} {
		dir := fixtureDir(t, corpus)
		var all tally
		for _, fx := range readIndex(t, dir) {
			want, err := os.ReadFile(goldenPath(corpus, fx.File))
			if err != nil {
				t.Errorf("%s: %v", fx.File, err)
				continue
			}
			golden := map[string]Class{}
			for _, l := range strings.Split(strings.TrimSpace(string(want)), "\n") {
				cls, rest, _ := strings.Cut(l, " ")
				c, err := ParseClass(cls)
				if err != nil {
					continue
				}
				golden[opKey(rest)] = c
			}
			doc := loadFixture(t, dir, fx)
			for _, l := range goldenLines(doc) {
				cls, rest, _ := strings.Cut(l, " ")
				got, _ := ParseClass(cls)
				if w, ok := golden[opKey(rest)]; ok {
					all.add(w, got)
				} else {
					t.Errorf("%s: %s is not in the golden", fx.File, opKey(rest))
				}
			}
		}
		t.Logf("goldens of %s (rows: golden, columns: engine):\n%s", corpus, &all)
		if n, exact, _, _, _, _ := all.total(); exact != n {
			t.Errorf("%s: %d of %d operations differ from their golden class", corpus, n-exact, n)
		}
	}
}

// opKey is "METHOD PATHKEY tool" of a golden line without its class.
func opKey(rest string) string {
	f := strings.SplitN(rest, " ", 4)
	return strings.Join(f[:min(3, len(f))], " ")
}
