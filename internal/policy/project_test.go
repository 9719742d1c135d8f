package policy

import (
	"reflect"
	"testing"

	"github.com/toolgate/toolgate/internal/risk"
)

func TestBuiltinDefaultsSeedValues(t *testing.T) {
	d := BuiltinDefaults()
	want := ProjectDefaults{
		Safe: SafeDefaults{Attempts: 2, BackoffMS: 300, Multiplier: 2, Jitter: true, RetryOn: []int{408, 429, 502, 503, 504}, TimeoutMS: 5000},
		All:  AllDefaults{TimeoutMS: 8000, DeadlineMS: 30000, MaxResponseBytes: 1 << 20, Breaker: Breaker{Threshold: 5, ResetMS: 30000}},
	}
	if !reflect.DeepEqual(d, want) {
		t.Fatalf("BuiltinDefaults() = %+v, want %+v", d, want)
	}
}

func TestNewToolPolicy(t *testing.T) {
	d := BuiltinDefaults()
	expose := d
	expose.ExposeNewReadTools = true
	for _, tc := range []struct {
		name         string
		method       string
		class        risk.Class
		d            ProjectDefaults
		wantAttempts int
		wantTimeout  int
		wantExposed  bool
	}{
		{"GET read, not exposing", "GET", risk.Read, d, 2, 5000, false},
		{"GET read, exposing", "GET", risk.Read, expose, 2, 5000, true},
		{"GET privileged never exposed", "GET", risk.Privileged, expose, 2, 5000, false},
		{"DELETE destructive never exposed", "DELETE", risk.Destructive, expose, 1, 8000, false},
		{"POST write not exposed", "POST", risk.Write, expose, 1, 8000, false},
		{"POST classified READ may be exposed", "POST", risk.Read, expose, 1, 8000, true},
		{"unknown class not exposed", "GET", 0, expose, 2, 5000, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := NewToolPolicy(tc.method, tc.class, tc.d)
			if p.Retry.Attempts != tc.wantAttempts || p.TimeoutMS != tc.wantTimeout || p.Exposed != tc.wantExposed {
				t.Errorf("NewToolPolicy(%s, %v) = attempts %d timeout %d exposed %v, want %d %d %v",
					tc.method, tc.class, p.Retry.Attempts, p.TimeoutMS, p.Exposed, tc.wantAttempts, tc.wantTimeout, tc.wantExposed)
			}
			if p.Idempotent || p.IdempotencyKey != nil {
				t.Errorf("NewToolPolicy(%s) granted idempotency: %+v", tc.method, p)
			}
			if p.DeadlineMS != 30000 || p.MaxResponseBytes != 1<<20 || p.Breaker != (Breaker{5, 30000}) {
				t.Errorf("NewToolPolicy(%s) did not take the all-tools defaults: %+v", tc.method, p)
			}
		})
	}
}

func TestNewToolPolicyFromZeroDefaultsIsComplete(t *testing.T) {
	for _, m := range []string{"GET", "POST"} {
		p := NewToolPolicy(m, risk.Read, ProjectDefaults{})
		if !reflect.DeepEqual(p, Effective(m, p)) {
			t.Errorf("NewToolPolicy(%s, zero defaults) left fields unset: %+v", m, p)
		}
	}
}
