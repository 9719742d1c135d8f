package store

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/toolgate/toolgate/internal/openapi"
	"github.com/toolgate/toolgate/internal/testing/corpus"
)

// fixtureDir is the corpus's first fixture set (fixtures/openapi); it
// skips the test when the corpus is missing (see internal/testing/corpus).
func fixtureDir(tb testing.TB) string {
	tb.Helper()
	return filepath.Dir(corpus.Path(tb, filepath.Join("fixtures", "openapi", "INDEX.tsv")))
}

func loadFixture(tb testing.TB, name string) *openapi.Document {
	tb.Helper()
	doc, err := openapi.LoadPath(filepath.Join(fixtureDir(tb), name), openapi.Options{})
	if err != nil {
		tb.Fatalf("load %s: %v", name, err)
	}
	return doc
}

// TestImportFixturesIntoOneProject imports the largest real documents into
// one database: every operation becomes a tool, names stay unique across
// sources, and a second import of each changes nothing.
func TestImportFixturesIntoOneProject(t *testing.T) {
	if testing.Short() {
		t.Skip("imports 800 operations")
	}
	db := MustOpen(t)
	for _, fx := range []struct{ source, file, origin string }{
		{"box", "box-openapi.json", ""},
		{"asana", "asana-oas.yaml", ""},
		{"petstore", "swagger-petstore-oas30.yaml", "https://petstore3.swagger.io"},
		{"petstore-v2", "swagger-petstore-v2.json", ""},
	} {
		doc := loadFixture(t, fx.file)
		res, err := db.ImportSource(context.Background(), "tester", SourceImport{Name: fx.source, Origin: fx.origin, Doc: doc})
		if err != nil {
			t.Fatalf("%s: %v", fx.file, err)
		}
		if res.Source.Total() != len(doc.Operations) {
			t.Errorf("%s: %d tools, document has %d operations", fx.file, res.Source.Total(), len(doc.Operations))
		}
		if again := mustImport(t, db, fx.source, doc); !again.Plan.Empty() {
			t.Errorf("%s: second import changes %d", fx.file, len(again.Plan.Changes)-again.Plan.Count("unchanged"))
		}
	}
	page, err := db.ListTools(context.Background(), ToolQuery{Source: "petstore-v2", Text: "petstore-v2_"})
	if err != nil || page.Total == 0 {
		t.Errorf("the v2 petstore's colliding names were not prefixed: %d, %v", page.Total, err)
	}
}

// BenchmarkImportSource measures a whole first import (parse excluded: the
// document is loaded once) into a fresh SQLite database.
func BenchmarkImportSource(b *testing.B) {
	for _, name := range []string{"asana-oas.yaml", "box-openapi.json"} {
		doc := loadFixture(b, name)
		b.Run(name, func(b *testing.B) {
			for b.Loop() {
				b.StopTimer()
				db := MustOpen(b)
				b.StartTimer()
				if _, err := db.ImportSource(context.Background(), "bench", SourceImport{Name: "bench", Doc: doc}); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkLoadAndImport is the admin's wait: parse the file and import it.
func BenchmarkLoadAndImport(b *testing.B) {
	for _, name := range []string{"asana-oas.yaml", "box-openapi.json"} {
		path := filepath.Join(fixtureDir(b), name)
		b.Run(name, func(b *testing.B) {
			for b.Loop() {
				b.StopTimer()
				db := MustOpen(b)
				b.StartTimer()
				doc, err := openapi.LoadPath(path, openapi.Options{})
				if err != nil {
					b.Fatal(err)
				}
				if _, err := db.ImportSource(context.Background(), "bench", SourceImport{Name: "bench", Doc: doc}); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
