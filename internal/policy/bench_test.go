package policy

import (
	"encoding/json"
	"reflect"
	"testing"

	"github.com/toolgate/toolgate/internal/risk"
)

func TestProjectDefaultsJSON(t *testing.T) {
	d := BuiltinDefaults()
	d.ExposeNewReadTools = true
	b, err := json.Marshal(d)
	if err != nil {
		t.Fatalf("marshal project defaults: %v", err)
	}
	want := `{"safe":{"attempts":2,"backoff_ms":300,"multiplier":2,"jitter":true,"retry_on":[408,429,502,503,504],"timeout_ms":5000},` +
		`"all":{"timeout_ms":8000,"deadline_ms":30000,"max_response_bytes":1048576,"circuit_breaker":{"threshold":5,"reset_ms":30000}},` +
		`"expose_new_read_tools":true}`
	if string(b) != want {
		t.Fatalf("project defaults JSON\n got %s\nwant %s", b, want)
	}
	var back ProjectDefaults
	if err := json.Unmarshal(b, &back); err != nil || !reflect.DeepEqual(back, d) {
		t.Fatalf("round trip = %+v, %v", back, err)
	}
}

func benchTools(n int) []ToolState {
	methods := []string{"GET", "POST", "PUT", "DELETE", "PATCH"}
	tools := make([]ToolState, n)
	for i := range tools {
		m := methods[i%len(methods)]
		c := risk.Classes[i%len(risk.Classes)]
		tools[i] = ToolState{Method: m, Class: c, Policy: NewToolPolicy(m, c, BuiltinDefaults())}
	}
	return tools
}

func BenchmarkEffective(b *testing.B) {
	p := NewToolPolicy("POST", risk.Write, BuiltinDefaults())
	for b.Loop() {
		_ = Effective("POST", p)
	}
}

func BenchmarkWorstCase(b *testing.B) {
	p := NewToolPolicy("GET", risk.Read, BuiltinDefaults())
	p.Retry.Attempts = 5
	for b.Loop() {
		_, _ = WorstCase("GET", p)
	}
}

func BenchmarkExplain(b *testing.B) {
	p := NewToolPolicy("GET", risk.Read, BuiltinDefaults())
	for b.Loop() {
		_ = Explain("GET", p)
	}
}

func BenchmarkApprovalNeeded(b *testing.B) {
	before := NewToolPolicy("DELETE", risk.Destructive, BuiltinDefaults())
	after := before
	after.Exposed, after.Idempotent = true, true
	for b.Loop() {
		_ = ApprovalNeeded("DELETE", risk.Destructive, before, after)
	}
}

// BenchmarkCountChanged1000 is the defaults page's "this change affects N
// tools" over a 1000-tool project.
func BenchmarkCountChanged1000(b *testing.B) {
	tools := benchTools(1000)
	d := BuiltinDefaults()
	d.Safe.Attempts = 3
	for b.Loop() {
		_ = CountChanged(tools, d)
	}
}
