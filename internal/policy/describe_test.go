package policy

import (
	"testing"
)

func TestDescribe(t *testing.T) {
	key := &IdempotencyKey{Header: DefaultKeyHeader, Source: KeyGenerated}
	for _, tc := range []struct {
		method string
		p      Policy
		want   string
	}{
		{"get", Policy{Retry: Retry{Attempts: 2}}, "GET · 2 attempts"},
		{"GET", Policy{}, "GET · 1 attempt"},
		{"POST", Policy{Retry: Retry{Attempts: 3}}, "POST · 1 attempt (not idempotent)"},
		{"PUT", Policy{Retry: Retry{Attempts: 3}, IdempotencyKey: key}, "PUT · 3 attempts (idempotency key)"},
		{"DELETE", Policy{Retry: Retry{Attempts: 2}, Idempotent: true}, "DELETE · 2 attempts (idempotent)"},
	} {
		t.Run(tc.want, func(t *testing.T) {
			if got := Describe(tc.method, tc.p); got != tc.want {
				t.Errorf("Describe(%s, %+v) = %q, want %q", tc.method, tc.p.Retry, got, tc.want)
			}
		})
	}
}
