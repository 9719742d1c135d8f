package policy

import (
	"fmt"
	"slices"
	"testing"

	"github.com/toolgate/toolgate/internal/risk"
)

var mutationMethods = []string{"POST", "PUT", "PATCH", "DELETE", "delete"}

// defaultsGrid enumerates project defaults across every knob a defaults
// page offers, valid or not, plus the zero value.
func defaultsGrid() []ProjectDefaults {
	grid := []ProjectDefaults{{}, {ExposeNewReadTools: true}}
	for attempts := 1; attempts <= MaxAttempts; attempts++ {
		for _, jitter := range []bool{false, true} {
			for _, expose := range []bool{false, true} {
				for _, backoff := range []int{0, 300, MaxBackoffMS} {
					for _, mult := range []float64{1, 2, MaxMultiplier} {
						for _, on := range [][]int{nil, {}, {408, 429, 500, 501, 502, 503, 504}} {
							for _, tm := range [][2]int{{100, 100}, {5000, 8000}, {300000, 300000}} {
								d := BuiltinDefaults()
								d.ExposeNewReadTools = expose
								d.Safe = SafeDefaults{Attempts: attempts, BackoffMS: backoff, Multiplier: mult, Jitter: jitter, RetryOn: on, TimeoutMS: tm[0]}
								d.All.TimeoutMS = tm[1]
								d.All.DeadlineMS = max(tm[0], tm[1]) * (1 + attempts%3)
								grid = append(grid, d)
							}
						}
					}
				}
			}
		}
	}
	return grid
}

// storedPolicies are policies a tool may hold before "apply defaults",
// including explicit, approved mutation retry that defaults must keep.
func storedPolicies() map[string]Policy {
	fresh := NewToolPolicy("POST", risk.Write, BuiltinDefaults())
	exposed := fresh
	exposed.Exposed = true
	keyed := fresh
	keyed.Retry.Attempts = 3
	keyed.IdempotencyKey = &IdempotencyKey{Header: DefaultKeyHeader, Source: KeyGenerated}
	idem := fresh
	idem.Retry.Attempts = 2
	idem.Idempotent = true
	stored3 := fresh
	stored3.Retry.Attempts = 3 // R1: still one attempt
	return map[string]Policy{"fresh": fresh, "exposed": exposed, "keyed": keyed, "idempotent": idem, "attempts-only": stored3, "zero": {}}
}

// TestDefaultsNeverRetryMutations is the decision record's first blocking
// test: DELETE, POST, PATCH and PUT are never retried absent explicit
// per-tool configuration, for every combination of project defaults; and
// neither import nor "apply defaults" exposes a DESTRUCTIVE or PRIVILEGED
// tool or grants anything R2 makes explicit.
func TestDefaultsNeverRetryMutations(t *testing.T) {
	stored := storedPolicies()
	for i, d := range defaultsGrid() {
		for _, m := range mutationMethods {
			for _, c := range append(slices.Clone(risk.Classes), 0) {
				where := fmt.Sprintf("defaults #%d %+v, %s %v", i, d, m, c)
				p := NewToolPolicy(m, c, d)
				e := Effective(m, p)
				if p.Retry.Attempts != 1 || e.Retry.Attempts != 1 || p.Idempotent || p.IdempotencyKey != nil {
					t.Fatalf("NewToolPolicy grants mutation retry: %s: %+v", where, p)
				}
				if p.Exposed && c != risk.Read {
					t.Fatalf("NewToolPolicy exposes a %v tool: %s", c, where)
				}
				checkDeadline(t, m, p, where)
			}
			// The class only matters to ApplyDefaults through exposure;
			// DESTRUCTIVE is the class ApprovalNeeded is strictest about.
			for name, cur := range stored {
				checkApplyDefaults(t, m, risk.Destructive, cur, d, fmt.Sprintf("defaults #%d, %s, stored %s", i, m, name))
			}
		}
		for _, c := range []risk.Class{risk.Destructive, risk.Privileged} {
			if p := NewToolPolicy("GET", c, d); p.Exposed {
				t.Fatalf("NewToolPolicy exposes a %v GET under defaults #%d", c, i)
			}
		}
	}
}

func checkApplyDefaults(t *testing.T, m string, c risk.Class, cur Policy, d ProjectDefaults, where string) {
	t.Helper()
	got := ApplyDefaults(m, c, cur, d)
	if got.Exposed != cur.Exposed || got.Idempotent != cur.Idempotent || !keysEqual(got.IdempotencyKey, cur.IdempotencyKey) {
		t.Fatalf("ApplyDefaults changed exposure or idempotency: %s:\n before %+v\n after  %+v", where, cur, got)
	}
	if diff := Diff(cur.Retry.forDiff(), got.Retry.forDiff()); len(diff) > 0 {
		t.Fatalf("ApplyDefaults changed the retry of a mutation: %s: %v", where, diff)
	}
	if before, after := Effective(m, cur).Retry.Attempts, Effective(m, got).Retry.Attempts; after > before || (!Safe(m, cur) && after != 1) {
		t.Fatalf("ApplyDefaults raised effective attempts %d → %d: %s", before, after, where)
	}
	if x := Explicit(m, cur, got); len(x) > 0 {
		t.Fatalf("ApplyDefaults made explicit changes %v: %s", x, where)
	}
	if a := ApprovalNeeded(m, c, cur, got); len(a) > 0 {
		t.Fatalf("ApplyDefaults made changes needing approval %v: %s", a, where)
	}
	checkDeadline(t, m, got, where)
}

// forDiff wraps a Retry in a policy so Diff can compare just the retry.
func (r Retry) forDiff() Policy { return Policy{Retry: r} }

func checkDeadline(t *testing.T, m string, p Policy, where string) {
	t.Helper()
	if worst, _ := WorstCase(m, p); worst > ms(Effective(m, p).DeadlineMS) {
		t.Fatalf("worst case %v exceeds the deadline: %s: %+v", worst, where, p)
	}
}

func TestApplyDefaultsOnSafeTools(t *testing.T) {
	d := BuiltinDefaults()
	d.Safe.Attempts = 4
	d.Safe.TimeoutMS = 2000
	d.All.DeadlineMS = 20000
	d.All.Breaker = Breaker{Threshold: 9, ResetMS: 5000}
	cur := NewToolPolicy("GET", risk.Read, BuiltinDefaults())
	cur.Exposed = true
	got := ApplyDefaults("GET", risk.Read, cur, d)
	want := cur
	want.TimeoutMS, want.DeadlineMS, want.Breaker = 2000, 20000, Breaker{9, 5000}
	want.Retry.Attempts = 4
	if !Equal(got, want) {
		t.Fatalf("ApplyDefaults(GET) differs from the expected policy: %v", Diff(want, got))
	}
	post := ApplyDefaults("POST", risk.Write, NewToolPolicy("POST", risk.Write, BuiltinDefaults()), d)
	if post.TimeoutMS != d.All.TimeoutMS || post.DeadlineMS != 20000 || post.Retry.Attempts != 1 {
		t.Fatalf("ApplyDefaults(POST) = %+v", post)
	}
}

func TestCountChanged(t *testing.T) {
	b := BuiltinDefaults()
	tools := []ToolState{
		{"GET", risk.Read, NewToolPolicy("GET", risk.Read, b)},
		{"POST", risk.Write, NewToolPolicy("POST", risk.Write, b)},
		{"DELETE", risk.Destructive, NewToolPolicy("DELETE", risk.Destructive, b)},
		{"HEAD", risk.Read, NewToolPolicy("HEAD", risk.Read, b)},
	}
	safeOnly := b
	safeOnly.Safe.Attempts = 3
	allTools := b
	allTools.All.MaxResponseBytes = 2 << 20
	for _, tc := range []struct {
		name string
		d    ProjectDefaults
		want []int
	}{
		{"unchanged defaults", b, nil},
		{"exposing new READ tools changes no existing tool", func() ProjectDefaults { d := b; d.ExposeNewReadTools = true; return d }(), nil},
		{"safe-tool attempts", safeOnly, []int{0, 3}},
		{"response ceiling", allTools, []int{0, 1, 2, 3}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := ChangedByDefaults(tools, tc.d); !slices.Equal(got, tc.want) {
				t.Errorf("ChangedByDefaults = %v, want %v", got, tc.want)
			}
			if got := CountChanged(tools, tc.d); got != len(tc.want) {
				t.Errorf("CountChanged = %d, want %d", got, len(tc.want))
			}
		})
	}
}
