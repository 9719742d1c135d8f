package executor

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/toolgate/toolgate/internal/bundle"
	"github.com/toolgate/toolgate/internal/policy"
	"github.com/toolgate/toolgate/internal/risk"
)

// TestCompileToolRefusesWhatNewRefuses: CompileTool and New give the same
// verdict and the same reason (New withholds the tool with it), for a tool the executor accepts and for the
// Idempotency-Key case of R6 and R13 (the header is both a declared
// parameter and the configured key).
func TestCompileToolRefusesWhatNewRefuses(t *testing.T) {
	src := bundle.Source{Name: "shop", Origin: "https://shop.example.com"}
	key := &policy.IdempotencyKey{Header: "Idempotency-Key", Source: policy.KeyGenerated}
	cases := []struct {
		name    string
		params  []bundle.Param
		key     *policy.IdempotencyKey
		refusal string
	}{
		{"plain", []bundle.Param{{Name: "X-Trace", In: "header", Arg: "trace"}}, key, ""},
		{"declared key header", []bundle.Param{{Name: "idempotency-key", In: "header", Arg: "idem"}}, key,
			`tool "createOrder": header parameter "idempotency-key" is reserved`},
		{"declared header, no key", []bundle.Param{{Name: "Idempotency-Key", In: "header", Arg: "idem"}}, nil, ""},
		{"reserved header", []bundle.Param{{Name: "Host", In: "header", Arg: "h"}}, nil,
			`tool "createOrder": header parameter "Host" is reserved`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			in := bundle.ToolInput{Name: "createOrder", Source: "shop", Method: "POST", Path: "/orders",
				Params: c.params, InputSchema: json.RawMessage(`{"type":"object"}`),
				Assessment: risk.Assessment{Class: risk.Write},
				Policy:     policy.Policy{Exposed: true, IdempotencyKey: c.key}}
			bt, err := bundle.BuildTool(in, src)
			if err != nil {
				t.Fatal(err)
			}
			err = CompileTool(src, bt)
			if got := errText(err); got != c.refusal {
				t.Errorf("CompileTool = %q, want %q", got, c.refusal)
			}
			b, err := bundle.Build(bundle.BuildInput{Version: 1, Now: time.Now(), Sources: []bundle.Source{src}, Tools: []bundle.ToolInput{in}})
			if err != nil {
				t.Fatal(err)
			}
			e, err := New(b, Options{})
			if err != nil {
				t.Fatal(err)
			}
			var withheld string
			for _, w := range e.Withheld() {
				withheld = w.Reason
			}
			if c.refusal == "" && withheld != "" || c.refusal != "" && !strings.HasSuffix(withheld, c.refusal) {
				t.Errorf("New withheld %q; want the same verdict as CompileTool (%q)", withheld, c.refusal)
			}
		})
	}
}

func errText(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}
