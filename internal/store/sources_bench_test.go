package store

import (
	"fmt"
	"testing"

	"github.com/toolgate/toolgate/internal/openapi"
)

// BenchmarkReimport measures re-importing a 200-operation source on both
// engines, engine after engine (compare as ratios; repeat with -count):
// "changed" alternates between two documents whose every summary differs,
// so each import changes and audits all 200 tools; "unchanged" imports the
// same document again, which still refreshes every tool row and its tags.
//
//	go test -run '^$' -bench BenchmarkReimport -benchtime 20x -count 3 ./internal/store
func BenchmarkReimport(b *testing.B) {
	docs := [2][]testOp{}
	for v := range docs {
		docs[v] = make([]testOp, 200)
		for i := range docs[v] {
			docs[v][i] = testOp{"GET", fmt.Sprintf("/things%d/{id}", i), fmt.Sprintf("getThing%d", i), fmt.Sprintf("Show a thing (%d)", v), nil}
		}
	}
	for _, kind := range []string{"changed", "unchanged"} {
		for _, engine := range []Engine{SQLite, Postgres} {
			b.Run(kind+"/"+string(engine), func(b *testing.B) {
				db := MustOpenEngine(b, engine)
				parsed := [2]*openapi.Document{testDoc(b, "https://things.example.com", docs[0]), testDoc(b, "https://things.example.com", docs[1])}
				mustImport(b, db, "things", parsed[0])
				for i := 0; b.Loop(); i++ {
					v := 0
					if kind == "changed" {
						v = (i + 1) % 2
					}
					mustImport(b, db, "things", parsed[v])
				}
			})
		}
	}
}
