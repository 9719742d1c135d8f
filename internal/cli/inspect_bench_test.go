package cli

import (
	"path/filepath"
	"testing"

	"github.com/toolgate/toolgate/internal/openapi"
)

// BenchmarkInspectCorpus runs the whole inspect pipeline (load, classify, default
// policy) over the largest fixtures of both corpus directories and the
// multi-file SendGrid set.
func BenchmarkInspectCorpus(b *testing.B) {
	fx := inspectFixtureDir(b)
	more := filepath.Join(filepath.Dir(fx), "openapi-more")
	cases := []struct{ name, path, root string }{
		{"asana", filepath.Join(fx, "asana-oas.yaml"), ""},
		{"box", filepath.Join(fx, "box-openapi.json"), ""},
		{"sendgrid-dir", filepath.Join(fx, "sendgrid"), "oas_v3.json"},
		{"vault", filepath.Join(more, "hashicorp-vault-openapi.json"), ""},
		{"sentry", filepath.Join(more, "sentry-openapi-derefed.json"), ""},
	}
	for _, c := range cases {
		b.Run(c.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, err := Inspect(c.path, openapi.Options{Root: c.root}); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
