package policy

import (
	"errors"
	"math"
	"slices"
	"strings"
	"testing"
)

// validPolicy is a complete stored policy that passes Validate.
func validPolicy() Policy {
	return NewToolPolicy("GET", 0, BuiltinDefaults())
}

// invalidFields returns the sorted field names err reports, failing the
// test when err is not a *ValidationError.
func invalidFields(t *testing.T, err error) []string {
	t.Helper()
	if err == nil {
		return nil
	}
	var ve *ValidationError
	if !errors.As(err, &ve) {
		t.Fatalf("error %v is %T, want *ValidationError", err, err)
	}
	var fields []string
	for f, msg := range ve.Fields {
		if msg == "" {
			t.Errorf("field %s has an empty message", f)
		}
		fields = append(fields, f)
	}
	slices.Sort(fields)
	return fields
}

func TestPolicyValidate(t *testing.T) {
	with := func(f func(*Policy)) Policy { p := validPolicy(); f(&p); return p }
	key := func(k IdempotencyKey) Policy { return with(func(p *Policy) { p.IdempotencyKey = &k }) }
	for _, tc := range []struct {
		name string
		p    Policy
		want []string
	}{
		{"builtin GET policy", validPolicy(), nil},
		{"builtin POST policy", NewToolPolicy("POST", 0, BuiltinDefaults()), nil},
		{"zero policy", Policy{}, []string{FieldBreakerResetMS, FieldBreakerThreshold, FieldMaxResponseBytes, FieldAttempts, FieldMultiplier, FieldTimeoutMS}},
		{"attempts 6", with(func(p *Policy) { p.Retry.Attempts = 6 }), []string{FieldAttempts}},
		{"attempts 5", with(func(p *Policy) { p.Retry.Attempts = 5 }), nil},
		{"timeout 99", with(func(p *Policy) { p.TimeoutMS = 99 }), []string{FieldTimeoutMS}},
		{"timeout 300001", with(func(p *Policy) { p.TimeoutMS = 300001; p.DeadlineMS = 400000 }), []string{FieldTimeoutMS}},
		{"deadline below timeout", with(func(p *Policy) { p.DeadlineMS = p.TimeoutMS - 1 }), []string{FieldDeadlineMS}},
		{"deadline equal to timeout", with(func(p *Policy) { p.DeadlineMS = p.TimeoutMS }), nil},
		{"deadline over an hour", with(func(p *Policy) { p.DeadlineMS = 3600001 }), []string{FieldDeadlineMS}},
		{"ceiling 1023", with(func(p *Policy) { p.MaxResponseBytes = 1023 }), []string{FieldMaxResponseBytes}},
		{"ceiling 64 MiB", with(func(p *Policy) { p.MaxResponseBytes = 64 << 20 }), nil},
		{"ceiling over 64 MiB", with(func(p *Policy) { p.MaxResponseBytes = 64<<20 + 1 }), []string{FieldMaxResponseBytes}},
		{"backoff 0", with(func(p *Policy) { p.Retry.BackoffMS = 0 }), nil},
		{"backoff negative", with(func(p *Policy) { p.Retry.BackoffMS = -1 }), []string{FieldBackoffMS}},
		{"backoff 60001", with(func(p *Policy) { p.Retry.BackoffMS = 60001 }), []string{FieldBackoffMS}},
		{"multiplier 0.9", with(func(p *Policy) { p.Retry.Multiplier = 0.9 }), []string{FieldMultiplier}},
		{"multiplier 10.5", with(func(p *Policy) { p.Retry.Multiplier = 10.5 }), []string{FieldMultiplier}},
		{"multiplier NaN", with(func(p *Policy) { p.Retry.Multiplier = math.NaN() }), []string{FieldMultiplier}},
		{"retry_on with 500", with(func(p *Policy) { p.Retry.RetryOn = []int{500, 503} }), nil},
		{"retry_on with 409", with(func(p *Policy) { p.Retry.RetryOn = []int{409, 503} }), []string{FieldRetryOn}},
		{"retry_on empty", with(func(p *Policy) { p.Retry.RetryOn = []int{} }), nil},
		{"key generated", key(IdempotencyKey{Header: "Idempotency-Key", Source: KeyGenerated}), nil},
		{"key argument", key(IdempotencyKey{Header: "X-Request-Id", Source: KeyArgument, Argument: "request_id"}), nil},
		{"key without header", key(IdempotencyKey{Source: KeyGenerated}), []string{FieldKeyHeader}},
		{"key header with space", key(IdempotencyKey{Header: "Idem Key", Source: KeyGenerated}), []string{FieldKeyHeader}},
		{"key header Authorization", key(IdempotencyKey{Header: "authorization", Source: KeyGenerated}), []string{FieldKeyHeader}},
		{"key header Host", key(IdempotencyKey{Header: "Host", Source: KeyGenerated}), []string{FieldKeyHeader}},
		{"key header Content-Length", key(IdempotencyKey{Header: "Content-Length", Source: KeyGenerated}), []string{FieldKeyHeader}},
		{"key header Cookie", key(IdempotencyKey{Header: "Cookie", Source: KeyGenerated}), []string{FieldKeyHeader}},
		{"key source unknown", key(IdempotencyKey{Header: "Idempotency-Key", Source: "random"}), []string{FieldKeySource}},
		{"argument with generated key", key(IdempotencyKey{Header: "Idempotency-Key", Source: KeyGenerated, Argument: "x"}), []string{FieldKeyArgument}},
		{"bad argument name", key(IdempotencyKey{Header: "Idempotency-Key", Source: KeyArgument, Argument: "a b"}), []string{FieldKeyArgument}},
		{"breaker threshold 0", with(func(p *Policy) { p.Breaker.Threshold = 0 }), []string{FieldBreakerThreshold}},
		{"breaker threshold 101", with(func(p *Policy) { p.Breaker.Threshold = 101 }), []string{FieldBreakerThreshold}},
		{"breaker reset 999", with(func(p *Policy) { p.Breaker.ResetMS = 999 }), []string{FieldBreakerResetMS}},
		{"breaker reset over an hour", with(func(p *Policy) { p.Breaker.ResetMS = 3600001 }), []string{FieldBreakerResetMS}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			want := slices.Clone(tc.want)
			slices.Sort(want)
			if got := invalidFields(t, tc.p.Validate()); !slices.Equal(got, want) {
				t.Errorf("Validate() fields = %v, want %v", got, want)
			}
		})
	}
}

func TestValidationErrorMessage(t *testing.T) {
	p := validPolicy()
	p.Retry.Attempts = 9
	p.TimeoutMS = 50
	err := p.Validate()
	want := "invalid policy: retry.attempts: must be between 1 and 5 attempts in total (got 9); timeout_ms: must be between 100 and 300000 ms (got 50)"
	if err == nil || err.Error() != want {
		t.Fatalf("Validate() = %v, want %q", err, want)
	}
}

func TestProjectDefaultsValidate(t *testing.T) {
	with := func(f func(*ProjectDefaults)) ProjectDefaults { d := BuiltinDefaults(); f(&d); return d }
	for _, tc := range []struct {
		name string
		d    ProjectDefaults
		want []string
	}{
		{"builtin", BuiltinDefaults(), nil},
		{"safe attempts 0", with(func(d *ProjectDefaults) { d.Safe.Attempts = 0 }), []string{"safe.attempts"}},
		{"safe attempts 6", with(func(d *ProjectDefaults) { d.Safe.Attempts = 6 }), []string{"safe.attempts"}},
		{"safe retry_on 404", with(func(d *ProjectDefaults) { d.Safe.RetryOn = []int{404} }), []string{"safe.retry_on"}},
		{"safe multiplier 11", with(func(d *ProjectDefaults) { d.Safe.Multiplier = 11 }), []string{"safe.multiplier"}},
		{"safe timeout over deadline", with(func(d *ProjectDefaults) { d.Safe.TimeoutMS = 40000 }), []string{"all.deadline_ms"}},
		{"all timeout 0", with(func(d *ProjectDefaults) { d.All.TimeoutMS = 0 }), []string{"all.timeout_ms"}},
		{"deadline over an hour", with(func(d *ProjectDefaults) { d.All.DeadlineMS = 3600001 }), []string{"all.deadline_ms"}},
		{"ceiling 0", with(func(d *ProjectDefaults) { d.All.MaxResponseBytes = 0 }), []string{"all.max_response_bytes"}},
		{"breaker", with(func(d *ProjectDefaults) { d.All.Breaker = Breaker{} }), []string{"all.circuit_breaker.reset_ms", "all.circuit_breaker.threshold"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := invalidFields(t, tc.d.Validate())
			if !slices.Equal(got, tc.want) {
				t.Errorf("Validate() fields = %v, want %v", got, tc.want)
			}
			if err := tc.d.Validate(); err != nil && !strings.HasPrefix(err.Error(), "invalid project defaults: ") {
				t.Errorf("message %q lacks its prefix", err)
			}
		})
	}
}
