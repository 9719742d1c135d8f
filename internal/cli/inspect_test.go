package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pb33f/go-yaml"

	"github.com/toolgate/toolgate/internal/openapi"
	"github.com/toolgate/toolgate/internal/risk"
	"github.com/toolgate/toolgate/internal/testing/corpus"
)

// inspectFixtureDir is the corpus's first fixture set (fixtures/openapi);
// it skips the test when the corpus is missing (see internal/testing/corpus).
func inspectFixtureDir(tb testing.TB) string {
	tb.Helper()
	return filepath.Dir(corpus.Path(tb, filepath.Join("fixtures", "openapi", "INDEX.tsv")))
}

// runInspect runs `toolgate inspect args...` and returns stdout, the one
// line main would print on stderr, and the exit status.
func runInspect(t *testing.T, args ...string) (stdout, stderr string, code int) {
	t.Helper()
	var out, errOut bytes.Buffer
	err := Run(context.Background(), append([]string{"inspect"}, args...), func(string) string { return "" },
		strings.NewReader(""), &out, &errOut)
	code = ExitCode(err, &errOut)
	return out.String(), errOut.String(), code
}

func TestInspectJSONOnFixtures(t *testing.T) {
	fx := inspectFixtureDir(t)
	tests := []struct {
		file          string
		operations    int
		withKeyHeader int // operations declaring an idempotency-key header
	}{
		{"swagger-petstore-oas30.yaml", 19, 0},
		{"adyen-checkout-v71.json", 28, 22},
		{"oai-webhook-example.json", 0, 0},
	}
	for _, tt := range tests {
		t.Run(tt.file, func(t *testing.T) {
			stdout, stderr, code := runInspect(t, filepath.Join(fx, tt.file), "--json")
			if code != 0 || stderr != "" {
				t.Fatalf("exit %d, stderr %q", code, stderr)
			}
			rep := decodeOneObject(t, stdout)
			if len(rep.Operations) != tt.operations {
				t.Errorf("%d operations, INDEX.tsv says %d", len(rep.Operations), tt.operations)
			}
			total, keys := 0, 0
			for _, n := range rep.Counts {
				total += n
			}
			if total != len(rep.Operations) || len(rep.Counts) != len(risk.Classes) {
				t.Errorf("counts %v do not add up to %d operations over four classes", rep.Counts, len(rep.Operations))
			}
			for _, op := range rep.Operations {
				if !op.Risk.Valid() || len(op.Reasons) == 0 || op.DefaultPolicySummary == "" || len(op.InputSchema) == 0 {
					t.Errorf("incomplete operation %s: %+v", op.Tool, op)
				}
				if (op.Risk == risk.Destructive || op.Risk == risk.Privileged) && op.DefaultPolicy.Exposed {
					t.Errorf("%s is %v but exposed by default (R10)", op.Tool, op.Risk)
				}
				if op.IdempotencyKeyHeader != nil {
					keys++
				}
			}
			if keys != tt.withKeyHeader {
				t.Errorf("%d operations with an idempotency key header, want %d", keys, tt.withKeyHeader)
			}
			if rep.Skipped == nil || rep.Warnings == nil {
				t.Error("skipped and warnings must be arrays, not null")
			}
		})
	}
}

// decodeOneObject checks stdout holds exactly one JSON object and decodes it.
func decodeOneObject(t *testing.T, stdout string) InspectReport {
	t.Helper()
	dec := json.NewDecoder(strings.NewReader(stdout))
	var raw map[string]json.RawMessage
	if err := dec.Decode(&raw); err != nil {
		t.Fatalf("stdout is not a JSON object: %v\n%.300s", err, stdout)
	}
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		t.Fatalf("stdout holds more than one JSON value (next: %v)", err)
	}
	for _, k := range []string{"source", "operations", "skipped", "warnings", "counts"} {
		if _, ok := raw[k]; !ok {
			t.Errorf("JSON lacks %q", k)
		}
	}
	var rep InspectReport
	if err := json.Unmarshal([]byte(stdout), &rep); err != nil {
		t.Fatalf("decoding the report: %v", err)
	}
	return rep
}

func TestInspectBadInput(t *testing.T) {
	dir := t.TempDir()
	write := func(name, body string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	tests := []struct {
		name string
		args []string
		want string // in the error line
	}{
		{"invalid YAML", []string{write("bad.yaml", "openapi: [3.0.0\n  paths: {"), "--json"}, "bad.yaml"},
		{"not OpenAPI", []string{write("x.json", `{"hello":"world"}`), "--json"}, "x.json"},
		{"missing file", []string{filepath.Join(dir, "nope.yaml")}, "nope.yaml"},
		{"over the size limit", []string{write("big.json", `{"openapi":"3.0.0","info":{"title":"t","version":"1"},"paths":{}}`),
			"--max-bytes", "10", "--json"}, "big.json"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			stdout, stderr, code := runInspect(t, tt.args...)
			if code != 1 {
				t.Errorf("exit status %d, want 1", code)
			}
			if stdout != "" {
				t.Errorf("stdout not empty: %q", stdout)
			}
			if strings.Count(stderr, "\n") != 1 || !strings.HasSuffix(stderr, "\n") || !strings.Contains(stderr, tt.want) {
				t.Errorf("stderr is not one line naming %q: %q", tt.want, stderr)
			}
		})
	}
}

// TestInspectTable reads the sample API's own description (the project's
// file, so the test runs without the corpus).
func TestInspectTable(t *testing.T) {
	stdout, _, code := runInspect(t, filepath.Join("..", "sampleapi", "openapi.yaml"))
	if code != 0 {
		t.Fatalf("exit %d", code)
	}
	for _, want := range []string{"RISK", "DEFAULT RETRY", "deleteOrder", "DELETE · 1 attempt (not idempotent)",
		"11 operations: READ 3 · WRITE 2 · DESTRUCTIVE 2 · PRIVILEGED 4"} {
		if !strings.Contains(stdout, want) {
			t.Errorf("table lacks %q:\n%s", want, stdout)
		}
	}
}

func TestInspectTableEscapesControlCharacters(t *testing.T) {
	rep := &InspectReport{
		Source:     InspectSource{Title: "evil\x1b[2J title"},
		Operations: []InspectOperation{{Tool: "t", Method: "GET", PathKey: "/x\r/y", Risk: risk.Read}},
		Counts:     map[string]int{"READ": 1},
	}
	var b bytes.Buffer
	if err := writeInspectTable(&b, rep); err != nil {
		t.Fatal(err)
	}
	if strings.ContainsAny(b.String(), "\x1b\r") {
		t.Errorf("control characters reached the terminal: %q", b.String())
	}
}

// The benchmarks compare the whole inspect pipeline (load, input schemas,
// classify, default policy) with the floor of decoding the same bytes into
// `any` with the importer's YAML decoder (and encoding/json for JSON).
var inspectBenchFiles = []string{"asana-oas.yaml", "box-openapi.json"}

func BenchmarkInspect(b *testing.B) {
	fx := inspectFixtureDir(b)
	for _, name := range inspectBenchFiles {
		path := filepath.Join(fx, name)
		b.Run(name, func(b *testing.B) {
			setBytes(b, path)
			for b.Loop() {
				if _, err := Inspect(path, openapi.Options{}); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

func BenchmarkDecodeFloor(b *testing.B) {
	fx := inspectFixtureDir(b)
	for _, name := range inspectBenchFiles {
		data := setBytes(b, filepath.Join(fx, name))
		b.Run("yaml/"+name, func(b *testing.B) {
			b.SetBytes(int64(len(data)))
			for b.Loop() {
				var v any
				if err := yaml.Unmarshal(data, &v); err != nil {
					b.Fatal(err)
				}
			}
		})
		if strings.HasSuffix(name, ".json") {
			b.Run("json/"+name, func(b *testing.B) {
				b.SetBytes(int64(len(data)))
				for b.Loop() {
					var v any
					if err := json.Unmarshal(data, &v); err != nil {
						b.Fatal(err)
					}
				}
			})
		}
	}
}

func setBytes(b *testing.B, path string) []byte {
	b.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(len(data)))
	return data
}
