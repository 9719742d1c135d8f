package openapi

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/pb33f/go-yaml"
	"github.com/pb33f/libopenapi/datamodel"
)

// BenchmarkLoad compares a full import of the two largest fixtures with the
// floor of decoding the same bytes into `any` with the YAML decoder
// libopenapi itself uses (for JSON too).
func BenchmarkLoad(b *testing.B) {
	dir := fixtureDir(b)
	for _, name := range []string{"asana-oas.yaml", "box-openapi.json"} {
		data, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil {
			b.Fatal(err)
		}
		b.Run("import/"+name, func(b *testing.B) {
			b.ReportAllocs()
			b.SetBytes(int64(len(data)))
			for b.Loop() {
				if _, err := LoadBytes(name, data, Options{}); err != nil {
					b.Fatal(err)
				}
			}
		})
		// The node tree libopenapi decodes before building its model (for
		// JSON with its own decoder, faster than yaml's): the part of an
		// import no change on our side can remove.
		b.Run("decode-nodes/"+name, func(b *testing.B) {
			b.ReportAllocs()
			b.SetBytes(int64(len(data)))
			cfg := &datamodel.DocumentConfiguration{BypassDocumentCheck: true, SkipJSONConversion: true}
			for b.Loop() {
				if _, err := datamodel.ExtractSpecInfoWithConfig(data, cfg); err != nil {
					b.Fatal(err)
				}
			}
		})
		b.Run("decode-floor/"+name, func(b *testing.B) {
			b.ReportAllocs()
			b.SetBytes(int64(len(data)))
			for b.Loop() {
				var v any
				if err := yaml.Unmarshal(data, &v); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkLoadFileSet imports the largest multi-file fixture (SendGrid: 63
// JSON files, 2.3 MB, 1,510 cross-file $refs) from memory, so the figure is
// parsing and resolving, not disk reads.
func BenchmarkLoadFileSet(b *testing.B) {
	fx := fixtureByName(b, "sendgrid/oas_v3.json")
	set, err := readDir(os.DirFS(fx.path), DefaultMaxBytes)
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Load(set, Options{Root: fx.root}); err != nil {
			b.Fatal(err)
		}
	}
}
