package cli

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/pb33f/go-yaml"

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

// BenchmarkInspectFloorRatio puts the whole inspect pipeline of each
// single-file fixture and its decode floor (encoding/json into `any` for
// JSON, the importer's YAML decoder for YAML: what any reader of these
// bytes must do at least) in one loop, the order alternating every
// iteration so a shared machine's load weighs on both alike, and reports
// each mean and their ratio (goal ≤ 5).
func BenchmarkInspectFloorRatio(b *testing.B) {
	fx := inspectFixtureDir(b)
	more := filepath.Join(filepath.Dir(fx), "openapi-more")
	for _, path := range []string{
		filepath.Join(fx, "asana-oas.yaml"), filepath.Join(fx, "box-openapi.json"),
		filepath.Join(fx, "discord-openapi.json"), filepath.Join(fx, "slack-web-openapi-v2.json"),
		filepath.Join(fx, "netlify-swagger.yml"), filepath.Join(fx, "adyen-checkout-v71.json"),
		filepath.Join(more, "hashicorp-vault-openapi.json"), filepath.Join(more, "square-connect-api.json"),
		filepath.Join(more, "sentry-openapi-derefed.json"), filepath.Join(more, "svix-lib-openapi.json"),
		filepath.Join(more, "docker-engine-swagger.yaml"), filepath.Join(more, "coolify-openapi.yaml"),
	} {
		b.Run(filepath.Base(path), func(b *testing.B) {
			data := setBytes(b, path)
			floor := func() {
				var v any
				var err error
				if strings.HasSuffix(path, ".json") {
					err = json.Unmarshal(data, &v)
				} else {
					err = yaml.Unmarshal(data, &v)
				}
				if err != nil {
					b.Fatal(err)
				}
			}
			inspect := func() {
				if _, err := Inspect(path, openapi.Options{}); err != nil {
					b.Fatal(err)
				}
			}
			var tFloor, tInspect time.Duration
			i := 0
			for b.Loop() {
				steps := [2]struct {
					run func()
					sum *time.Duration
				}{{floor, &tFloor}, {inspect, &tInspect}}
				for j := range steps {
					s := steps[(i+j)%2]
					t0 := time.Now()
					s.run()
					*s.sum += time.Since(t0)
				}
				i++
			}
			b.ReportMetric(float64(tFloor.Microseconds())/float64(i)/1000, "floor-ms")
			b.ReportMetric(float64(tInspect.Microseconds())/float64(i)/1000, "inspect-ms")
			b.ReportMetric(float64(tInspect)/float64(tFloor), "inspect/floor")
		})
	}
}
