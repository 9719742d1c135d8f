package executor

import (
	"context"
	"net/http"
	"testing"

	"github.com/toolgate/toolgate/internal/policy"
	"github.com/toolgate/toolgate/internal/risk"
)

// TestMutationsAreNeverRetriedWithoutExplicitConfiguration is the blocking
// test of ADR-0008 and R1: POST, PUT, PATCH and DELETE get exactly one
// request for every transient failure unless the tool itself is marked
// idempotent or has an idempotency key, whatever attempts says and whatever
// the project defaults are.
func TestMutationsAreNeverRetriedWithoutExplicitConfiguration(t *testing.T) {
	failures := []struct {
		name           string
		step           http.HandlerFunc
		class          Class
		mayHaveApplied bool
	}{
		{"503", status(503), ClassServerError, true},
		{"502", status(502), ClassServerError, true},
		{"504", status(504), ClassServerError, true},
		{"408", status(408), ClassRejected, false},
		{"429", retryAfterStep("1"), ClassRateLimited, false},
		{"connection reset", reset, ClassOutcomeUnknown, true},
		{"attempt timeout", hang, ClassOutcomeUnknown, true},
	}
	policies := map[string]func(method string) policy.Policy{
		"attempts 5 alone": func(string) policy.Policy {
			p := retrying(5)
			p.TimeoutMS = 150
			return p
		},
		"project defaults": func(method string) policy.Policy {
			p := policy.NewToolPolicy(method, risk.Write, policy.BuiltinDefaults())
			p.TimeoutMS = 150
			return p
		},
		"every status listed": func(string) policy.Policy {
			p := retrying(5)
			p.TimeoutMS = 150
			p.Retry.RetryOn = []int{408, 429, 500, 501, 502, 503, 504}
			return p
		},
	}
	for _, method := range []string{"POST", "PUT", "PATCH", "DELETE"} {
		for pname, mk := range policies {
			for _, f := range failures {
				t.Run(method+"/"+pname+"/"+f.name, func(t *testing.T) {
					up := newUpstream(t, f.step, status(200))
					e := newExecutor(t, testBundle(up.URL, testTool("m", method, "/orders", mk(method))), Options{})
					r := e.Call(context.Background(), "m", nil)
					wantClass(t, r, f.class)
					if got := up.count.Load(); got != 1 || r.Attempts != 1 {
						t.Fatalf("upstream saw %d requests (attempts %d), want exactly 1", got, r.Attempts)
					}
					if r.Err.MayHaveApplied != f.mayHaveApplied {
						t.Errorf("may_have_applied = %v, want %v", r.Err.MayHaveApplied, f.mayHaveApplied)
					}
				})
			}
		}
	}
}

func retryAfterStep(v string) http.HandlerFunc {
	return func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Retry-After", v)
		w.WriteHeader(429)
	}
}

// TestExplicitlySafeMutationsRetryWithTheSameKey: an idempotency key (R6)
// or the idempotent assertion makes a mutation retryable (R1), and the key
// is identical on every attempt of one call and different across calls.
func TestExplicitlySafeMutationsRetryWithTheSameKey(t *testing.T) {
	keyed := func(src string) policy.Policy {
		p := retrying(3)
		p.TimeoutMS = 150
		p.IdempotencyKey = &policy.IdempotencyKey{Source: src}
		return p
	}
	idempotent := retrying(3)
	idempotent.TimeoutMS = 150
	idempotent.Idempotent = true
	tests := []struct {
		name    string
		p       policy.Policy
		args    map[string]any
		step    http.HandlerFunc
		wantKey string // "" = generated, must just be constant
	}{
		{"generated key after reset", keyed(policy.KeyGenerated), nil, reset, ""},
		{"generated key after 503", keyed(policy.KeyGenerated), nil, status(503), ""},
		{"generated key after timeout", keyed(policy.KeyGenerated), nil, hang, ""},
		{"argument key after reset", keyed(policy.KeyArgument), map[string]any{"idempotency_key": "order-42"}, reset, "order-42"},
		{"idempotent without key after 503", idempotent, nil, status(503), "-"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			up := newUpstream(t, tc.step, tc.step, status(201))
			e := newExecutor(t, testBundle(up.URL, testTool("m", "POST", "/orders", tc.p)), Options{})
			for call := range 2 {
				r := e.Call(context.Background(), "m", tc.args)
				if call == 0 {
					wantClass(t, r, "")
					if r.Attempts != 3 {
						t.Fatalf("attempts = %d, want 3", r.Attempts)
					}
				}
			}
			reqs := up.Requests()
			keys := map[string]bool{}
			for i, req := range reqs[:3] {
				k := req.Header.Get("Idempotency-Key")
				keys[k] = true
				if req.URL.Query().Has("idempotency_key") {
					t.Errorf("attempt %d: the key argument leaked into the query", i+1)
				}
			}
			switch {
			case tc.wantKey == "-":
				if !keys[""] || len(keys) != 1 {
					t.Errorf("keys = %v, want none sent", keys)
				}
			case len(keys) != 1 || keys[""]:
				t.Errorf("keys over three attempts = %v, want one non-empty key", keys)
			case tc.wantKey != "" && !keys[tc.wantKey]:
				t.Errorf("keys = %v, want %q", keys, tc.wantKey)
			case tc.wantKey == "" && len(reqs) > 3 && keys[reqs[3].Header.Get("Idempotency-Key")]:
				t.Errorf("a second call reused the first call's generated key")
			}
		})
	}
}

func TestKeyArgumentMustBeUsable(t *testing.T) {
	up := newUpstream(t, status(200))
	p := retrying(1)
	p.IdempotencyKey = &policy.IdempotencyKey{Source: policy.KeyArgument}
	e := newExecutor(t, testBundle(up.URL, testTool("m", "POST", "/orders", p)), Options{})
	for _, bad := range []any{"", 42, "has space", "line\nbreak"} {
		r := e.Call(context.Background(), "m", map[string]any{"idempotency_key": bad})
		wantClass(t, r, ClassInvalidArguments)
	}
	if up.count.Load() != 0 {
		t.Errorf("upstream saw %d requests", up.count.Load())
	}
}
