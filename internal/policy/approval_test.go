package policy

import (
	"slices"
	"testing"

	"github.com/toolgate/toolgate/internal/risk"
)

func TestApprovalNeeded(t *testing.T) {
	base := NewToolPolicy("POST", risk.Write, BuiltinDefaults())
	with := func(p Policy, f func(*Policy)) Policy {
		p.Retry.RetryOn = slices.Clone(p.Retry.RetryOn)
		if p.IdempotencyKey != nil {
			k := *p.IdempotencyKey
			p.IdempotencyKey = &k
		}
		f(&p)
		return p
	}
	keyed := with(base, func(p *Policy) {
		p.IdempotencyKey = &IdempotencyKey{Header: DefaultKeyHeader, Source: KeyGenerated}
		p.Retry.Attempts = 3
	})
	idem := with(base, func(p *Policy) { p.Idempotent = true; p.Retry.Attempts = 2 })
	get := NewToolPolicy("GET", risk.Read, BuiltinDefaults())
	for _, tc := range []struct {
		name          string
		method        string
		class         risk.Class
		before, after Policy
		want          []Action
	}{
		{"no change", "POST", risk.Write, base, base, nil},
		{"timeout edit", "POST", risk.Write, base, with(base, func(p *Policy) { p.TimeoutMS = 2000 }), nil},
		{"expose WRITE", "POST", risk.Write, base, with(base, func(p *Policy) { p.Exposed = true }), nil},
		{"expose READ", "GET", risk.Read, get, with(get, func(p *Policy) { p.Exposed = true }), nil},
		{"expose DESTRUCTIVE", "DELETE", risk.Destructive, base, with(base, func(p *Policy) { p.Exposed = true }), []Action{ExposeRisky}},
		{"expose PRIVILEGED GET", "GET", risk.Privileged, get, with(get, func(p *Policy) { p.Exposed = true }), []Action{ExposeRisky}},
		{"unexpose DESTRUCTIVE", "DELETE", risk.Destructive, with(base, func(p *Policy) { p.Exposed = true }), base, nil},
		{"edit an exposed DESTRUCTIVE tool", "DELETE", risk.Destructive,
			with(base, func(p *Policy) { p.Exposed = true }), with(base, func(p *Policy) { p.Exposed = true; p.TimeoutMS = 3000 }), nil},
		{"POST attempts alone stay one attempt", "POST", risk.Write, base, with(base, func(p *Policy) { p.Retry.Attempts = 3 }), nil},
		{"assert idempotency", "POST", risk.Write, base, with(base, func(p *Policy) { p.Idempotent = true }), []Action{EnableMutationRetry}},
		{"configure a key", "PUT", risk.Write, base, keyed, []Action{EnableMutationRetry}},
		{"change the key header", "PUT", risk.Write, keyed,
			with(keyed, func(p *Policy) { p.IdempotencyKey.Header = "X-Request-Id" }), []Action{EnableMutationRetry}},
		{"change the key source", "PUT", risk.Write, keyed,
			with(keyed, func(p *Policy) { p.IdempotencyKey.Source = KeyArgument }), []Action{EnableMutationRetry}},
		{"remove the key", "PUT", risk.Write, keyed, with(keyed, func(p *Policy) { p.IdempotencyKey = nil }), nil},
		{"withdraw idempotency", "POST", risk.Write, idem, with(idem, func(p *Policy) { p.Idempotent = false }), nil},
		{"raise attempts of an approved retry", "POST", risk.Write, idem, with(idem, func(p *Policy) { p.Retry.Attempts = 4 }), []Action{EnableMutationRetry}},
		{"lower attempts of an approved retry", "POST", risk.Write, idem, with(idem, func(p *Policy) { p.Retry.Attempts = 1 }), nil},
		{"backoff edit on an approved retry", "POST", risk.Write, idem, with(idem, func(p *Policy) { p.Retry.BackoffMS = 900 }), nil},
		{"retry an approved POST on 500 too", "POST", risk.Write, idem,
			with(idem, func(p *Policy) { p.Retry.RetryOn = append(p.Retry.RetryOn, 500) }), []Action{EnableMutationRetry}},
		{"retry an approved POST on fewer statuses", "POST", risk.Write, idem,
			with(idem, func(p *Policy) { p.Retry.RetryOn = []int{503} }), nil},
		{"500 on a POST that does not retry", "POST", risk.Write, base,
			with(base, func(p *Policy) { p.Retry.RetryOn = append(p.Retry.RetryOn, 500) }), nil},
		{"GET retry on 500", "GET", risk.Read, get, with(get, func(p *Policy) { p.Retry.RetryOn = append(p.Retry.RetryOn, 500) }), nil},
		{"idempotent on top of a key", "POST", risk.Write, keyed, with(keyed, func(p *Policy) { p.Idempotent = true }), []Action{EnableMutationRetry}},
		{"GET attempts", "GET", risk.Read, get, with(get, func(p *Policy) { p.Retry.Attempts = 5 }), nil},
		{"GET key", "GET", risk.Read, get, with(get, func(p *Policy) { p.IdempotencyKey = &IdempotencyKey{Header: "K", Source: KeyGenerated} }), nil},
		// A query-only POST is READ (risk "query-post"), but retrying it
		// is still a mutation's retry: the method decides, not the class.
		{"assert idempotency on a READ POST", "POST", risk.Read, base, with(base, func(p *Policy) { p.Idempotent = true }), []Action{EnableMutationRetry}},
		{"a key on a READ POST", "POST", risk.Read, base, keyed, []Action{EnableMutationRetry}},
		{"expose a READ POST", "POST", risk.Read, base, with(base, func(p *Policy) { p.Exposed = true }), nil},
		{"expose and enable retry on DELETE", "delete", risk.Destructive, base,
			with(base, func(p *Policy) { p.Exposed = true; p.Idempotent = true }), []Action{ExposeRisky, EnableMutationRetry}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := ApprovalNeeded(tc.method, tc.class, tc.before, tc.after)
			if !slices.Equal(got, tc.want) {
				t.Errorf("ApprovalNeeded = %v, want %v", got, tc.want)
			}
		})
	}
}

func TestLowerRisk(t *testing.T) {
	for _, tc := range []struct {
		from, to risk.Class
		want     bool
	}{
		{risk.Destructive, risk.Write, true},
		{risk.Privileged, risk.Read, true},
		{risk.Write, risk.Read, true},
		{risk.Read, risk.Write, false},
		{risk.Write, risk.Write, false},
		{0, risk.Read, false},
		{risk.Write, 0, false},
	} {
		t.Run(tc.from.String()+"→"+tc.to.String(), func(t *testing.T) {
			if got := LowerRisk(tc.from, tc.to); got != tc.want {
				t.Errorf("LowerRisk(%v, %v) = %v, want %v", tc.from, tc.to, got, tc.want)
			}
		})
	}
}

func TestExplicit(t *testing.T) {
	base := NewToolPolicy("PATCH", risk.Write, BuiltinDefaults())
	with := func(f func(*Policy)) Policy { p := base; f(&p); return p }
	key := &IdempotencyKey{Header: DefaultKeyHeader, Source: KeyGenerated}
	for _, tc := range []struct {
		name          string
		method        string
		before, after Policy
		want          []string
	}{
		{"no change", "PATCH", base, base, nil},
		{"timeout", "PATCH", base, with(func(p *Policy) { p.TimeoutMS = 1000 }), nil},
		{"idempotent", "PATCH", base, with(func(p *Policy) { p.Idempotent = true }), []string{FieldIdempotent}},
		{"key", "DELETE", base, with(func(p *Policy) { p.IdempotencyKey = key }), []string{FieldKey}},
		{"attempts", "POST", base, with(func(p *Policy) { p.Retry.Attempts = 2 }), []string{FieldAttempts}},
		{"attempts lowered", "POST", with(func(p *Policy) { p.Retry.Attempts = 3 }), with(func(p *Policy) { p.Retry.Attempts = 2 }), nil},
		{"all three", "PUT", base, with(func(p *Policy) { p.Idempotent = true; p.IdempotencyKey = key; p.Retry.Attempts = 5 }),
			[]string{FieldIdempotent, FieldKey, FieldAttempts}},
		{"GET is never explicit", "GET", base, with(func(p *Policy) { p.Idempotent = true; p.Retry.Attempts = 5 }), nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := Explicit(tc.method, tc.before, tc.after); !slices.Equal(got, tc.want) {
				t.Errorf("Explicit = %v, want %v", got, tc.want)
			}
		})
	}
}

func TestDiffAndEqual(t *testing.T) {
	a := NewToolPolicy("POST", risk.Write, BuiltinDefaults())
	b := a
	b.Retry.RetryOn = []int{504, 503, 502, 429, 408, 408} // same set, other order
	if !Equal(a, b) {
		t.Errorf("Equal should compare retry_on as a set: %v", Diff(a, b))
	}
	b.Exposed = true
	b.Retry.Multiplier = 2.5
	b.Retry.RetryOn = nil
	b.IdempotencyKey = &IdempotencyKey{Header: "Idempotency-Key", Source: KeyArgument, Argument: "key"}
	want := []FieldChange{
		{FieldExposed, "false", "true"},
		{FieldMultiplier, "2", "2.5"},
		{FieldRetryOn, "408,429,502,503,504", "default"},
		{FieldKey, "off", "on"},
		{FieldKeyHeader, "", "Idempotency-Key"},
		{FieldKeySource, "", "argument"},
		{FieldKeyArgument, "", "key"},
	}
	if got := Diff(a, b); !slices.Equal(got, want) {
		t.Errorf("Diff =\n%v\nwant\n%v", got, want)
	}
	if Equal(a, b) {
		t.Error("Equal reports different policies as equal")
	}
	empty := a
	empty.Retry.RetryOn = []int{}
	if got := Diff(a, empty); len(got) != 1 || got[0].After != "none" {
		t.Errorf("an empty retry_on must differ from the default set: %v", got)
	}
}
