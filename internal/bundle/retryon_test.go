package bundle

import (
	"bytes"
	"errors"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/toolgate/toolgate/internal/policy"
)

// TestRetryOnIsNeverSilentlyFlipped: a stored policy's nil retry_on means
// the R3 default set and [] means "no status retried". Build writes the
// filled list either way, the list survives sign and verify unchanged, and a
// null list is kept as null by Canonical and refused by Validate, Sign and
// Verify instead of being read as one or the other.
func TestRetryOnIsNeverSilentlyFlipped(t *testing.T) {
	k := testKey(t, 1)
	opts := VerifyOptions{Now: issued.Add(time.Hour)}
	tests := []struct {
		name   string
		stored []int
		want   []int
	}{
		{"nil means the R3 default set", nil, policy.DefaultRetryOn()},
		{"empty means none", []int{}, []int{}},
		{"an explicit list is kept", []int{503, 500}, []int{503, 500}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			in := smallInput()
			in.Tools[1].Policy.Retry.RetryOn = tc.stored // getOrder
			b := mustBuild(t, in)
			got, _, err := Verify(mustSign(t, b, k), keySet(k), opts)
			if err != nil {
				t.Fatalf("Verify: %v", err)
			}
			r := got.Tools[0].Policy.Retry.RetryOn
			if r == nil || !slices.Equal(r, tc.want) {
				t.Errorf("verified retry_on = %#v, want %#v", r, tc.want)
			}
		})
	}
}

func TestNullRetryOnIsRefused(t *testing.T) {
	k := testKey(t, 1)
	b := mustBuild(t, smallInput())
	b.Tools[0].Policy.Retry.RetryOn = nil

	payload, err := Canonical(b)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Contains(payload, []byte(`"retry_on":null`)) {
		t.Fatalf("Canonical did not keep the null retry_on: %s", payload)
	}
	if err := b.Validate(); err == nil || !strings.Contains(err.Error(), "retry_on is null") {
		t.Errorf("Validate = %v, want a retry_on refusal", err)
	}
	if _, err := Sign(b, k); err == nil || !strings.Contains(err.Error(), "retry_on is null") {
		t.Errorf("Sign = %v, want a retry_on refusal", err)
	}
	// A bundle signed elsewhere with a null list is refused on arrival.
	_, _, err = Verify(handSign(t, header(k), payload, k.Private), keySet(k), VerifyOptions{Now: issued})
	if !errors.Is(err, ErrSchema) || !strings.Contains(err.Error(), "retry_on is null") {
		t.Errorf("Verify = %v, want ErrSchema about retry_on", err)
	}
}

// TestValidateRefusesNonEffectivePolicies: a bundle carries exactly the
// effective policy, so a runtime never re-derives a default.
func TestValidateRefusesNonEffectivePolicies(t *testing.T) {
	tests := []struct {
		name   string
		tool   int // index in the built small bundle: 0 getOrder (GET), 1 placeOrder (POST)
		change func(p *policy.Policy)
	}{
		{"unset timeout", 0, func(p *policy.Policy) { p.TimeoutMS = 0 }},
		{"unset deadline", 0, func(p *policy.Policy) { p.DeadlineMS = 0 }},
		{"attempts above the cap", 0, func(p *policy.Policy) { p.Retry.Attempts = 9 }},
		{"multiplier below 1", 0, func(p *policy.Policy) { p.Retry.Multiplier = 0.5 }},
		{"retries on an unsafe tool (R1)", 1, func(p *policy.Policy) { p.Retry.Attempts = 3 }},
		{"key without its header", 1, func(p *policy.Policy) {
			p.IdempotencyKey = &policy.IdempotencyKey{Source: policy.KeyGenerated}
		}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			b := mustBuild(t, smallInput())
			if err := b.Validate(); err != nil {
				t.Fatalf("built bundle invalid: %v", err)
			}
			tc.change(&b.Tools[tc.tool].Policy)
			err := b.Validate()
			if err == nil || !strings.Contains(err.Error(), "not the effective policy") {
				t.Errorf("Validate = %v, want an effective-policy refusal", err)
			}
		})
	}
}
