package policy

import (
	"reflect"
	"testing"
)

func TestIsSafeMethod(t *testing.T) {
	for _, tc := range []struct {
		method string
		want   bool
	}{
		{"GET", true}, {"get", true}, {"Head", true}, {"OPTIONS", true}, {" GET ", true},
		{"POST", false}, {"PUT", false}, {"PATCH", false}, {"DELETE", false}, {"TRACE", false}, {"", false},
	} {
		t.Run(tc.method, func(t *testing.T) {
			if got := IsSafeMethod(tc.method); got != tc.want {
				t.Errorf("IsSafeMethod(%q) = %v, want %v", tc.method, got, tc.want)
			}
		})
	}
}

func TestSafe(t *testing.T) {
	key := &IdempotencyKey{Header: DefaultKeyHeader, Source: KeyGenerated}
	for _, tc := range []struct {
		name   string
		method string
		p      Policy
		want   bool
	}{
		{"GET bare", "GET", Policy{}, true},
		{"POST bare", "POST", Policy{}, false},
		{"POST attempts alone", "POST", Policy{Retry: Retry{Attempts: 3}}, false},
		{"POST idempotent", "POST", Policy{Idempotent: true}, true},
		{"DELETE with key", "DELETE", Policy{IdempotencyKey: key}, true},
		{"PATCH with empty key struct", "PATCH", Policy{IdempotencyKey: &IdempotencyKey{}}, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := Safe(tc.method, tc.p); got != tc.want {
				t.Errorf("Safe(%s, %+v) = %v, want %v", tc.method, tc.p, got, tc.want)
			}
		})
	}
}

func TestEffective(t *testing.T) {
	full := func(attempts int) Policy {
		return Policy{
			TimeoutMS: 5000, DeadlineMS: 20000, MaxResponseBytes: 4096,
			Retry:   Retry{Attempts: attempts, BackoffMS: 300, Multiplier: 3, Jitter: false, RetryOn: []int{503}},
			Breaker: Breaker{Threshold: 3, ResetMS: 10000},
		}
	}
	defaults := Policy{
		TimeoutMS: DefaultTimeoutMS, DeadlineMS: DefaultDeadlineMS, MaxResponseBytes: DefaultMaxResponseBytes,
		Retry:   DefaultRetry(),
		Breaker: Breaker{Threshold: DefaultBreakerThreshold, ResetMS: DefaultBreakerResetMS},
	}
	with := func(p Policy, f func(*Policy)) Policy { f(&p); return p }
	for _, tc := range []struct {
		name   string
		method string
		in     Policy
		want   Policy
	}{
		{"zero policy takes every default", "GET", Policy{}, defaults},
		{"zero policy on POST", "POST", Policy{}, defaults},
		{"GET keeps its attempts", "GET", full(3), full(3)},
		{"HEAD keeps its attempts", "head", full(4), full(4)},
		{"POST attempts forced to 1", "POST", full(3), full(1)},
		{"PUT attempts forced to 1", "PUT", full(5), full(1)},
		{"PATCH attempts forced to 1", "PATCH", full(2), full(1)},
		{"DELETE attempts forced to 1", "DELETE", full(5), full(1)},
		{"idempotent POST keeps attempts", "POST",
			with(full(3), func(p *Policy) { p.Idempotent = true }),
			with(full(3), func(p *Policy) { p.Idempotent = true })},
		{"DELETE with key keeps attempts and gets key defaults", "DELETE",
			with(full(3), func(p *Policy) { p.IdempotencyKey = &IdempotencyKey{} }),
			with(full(3), func(p *Policy) {
				p.IdempotencyKey = &IdempotencyKey{Header: DefaultKeyHeader, Source: KeyGenerated}
			})},
		{"argument key gets the default argument name", "POST",
			with(full(2), func(p *Policy) { p.IdempotencyKey = &IdempotencyKey{Source: KeyArgument} }),
			with(full(2), func(p *Policy) {
				p.IdempotencyKey = &IdempotencyKey{Header: DefaultKeyHeader, Source: KeyArgument, Argument: DefaultKeyArgument}
			})},
		{"attempts above the cap are clamped", "GET", full(9), full(MaxAttempts)},
		{"negative attempts become 1", "GET", full(-2), full(1)},
		{"partly set retry keeps zero backoff and no jitter", "GET",
			Policy{Retry: Retry{Attempts: 2}},
			with(defaults, func(p *Policy) { p.Retry = Retry{Attempts: 2, Multiplier: 2, RetryOn: DefaultRetryOn()} })},
		{"empty retry_on stays empty", "GET",
			with(full(2), func(p *Policy) { p.Retry.RetryOn = []int{} }),
			with(full(2), func(p *Policy) { p.Retry.RetryOn = []int{} })},
		{"multiplier below 1 becomes 1", "GET",
			with(full(2), func(p *Policy) { p.Retry.Multiplier = 0.5 }),
			with(full(2), func(p *Policy) { p.Retry.Multiplier = 1 })},
		{"timeout and deadline clamped to their maximums", "GET",
			with(full(1), func(p *Policy) { p.TimeoutMS = 1 << 50; p.DeadlineMS = 1 << 60 }),
			with(full(1), func(p *Policy) { p.TimeoutMS = MaxTimeoutMS; p.DeadlineMS = MaxDeadlineMS })},
		{"unset deadline covers a long timeout", "GET",
			Policy{TimeoutMS: 45000},
			with(defaults, func(p *Policy) { p.TimeoutMS = 45000; p.DeadlineMS = 45000 })},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := Effective(tc.method, tc.in)
			if !reflect.DeepEqual(got, tc.want) {
				t.Errorf("Effective(%s)\n got %+v\nwant %+v", tc.method, got, tc.want)
			}
		})
	}
}

func TestEffectiveDoesNotAliasInput(t *testing.T) {
	in := Policy{
		Retry:          Retry{Attempts: 2, RetryOn: []int{503}},
		IdempotencyKey: &IdempotencyKey{Header: "X-Key", Source: KeyGenerated},
	}
	e := Effective("POST", in)
	e.Retry.RetryOn[0] = 429
	e.IdempotencyKey.Header = "Changed"
	if in.Retry.RetryOn[0] != 503 || in.IdempotencyKey.Header != "X-Key" {
		t.Fatalf("Effective shares memory with its input: %+v %+v", in.Retry, in.IdempotencyKey)
	}
}
