package policy

import (
	"slices"
	"strings"
	"testing"
	"time"
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

func TestExplain(t *testing.T) {
	keyed := Policy{DeadlineMS: 20000, Exposed: true, IdempotencyKey: &IdempotencyKey{Source: KeyArgument},
		Retry: Retry{Attempts: 4, BackoffMS: 800, Multiplier: 2, Jitter: true}}
	for _, tc := range []struct {
		name   string
		method string
		p      Policy
		want   []string // sentences that must appear, in this order
		absent []string
	}{
		{"GET with two attempts", "GET", Policy{Retry: Retry{Attempts: 2, BackoffMS: 300, Multiplier: 2, Jitter: true}},
			[]string{
				"GET · up to 2 attempts, waits 150–300 ms",
				"Retries after connection failures, attempt timeouts and HTTP 408, 429, 502, 503 and 504; a Retry-After from the API can make a wait longer, within the deadline.",
				"At most 16.3 s (deadline 30 s).",
				"Each attempt: 8 s timeout including the body; responses over 1 MiB are cut off.",
				"The circuit opens after 5 transient failures in a row and lets one probe through after 30 s.",
				"Not exposed: agents cannot call this tool.",
			}, nil},
		{"POST with stored attempts", "POST", Policy{Retry: Retry{Attempts: 3}},
			[]string{
				"POST · 1 attempt: retry needs an idempotency key or an idempotency assertion",
				"The 3 stored attempts do not apply: a POST that is not idempotent is sent once.",
				"At most 8 s (deadline 30 s).",
			}, []string{"Sending a key does not make the API idempotent: the API must deduplicate."}},
		{"GET without retry", "head", Policy{}, []string{"HEAD · 1 attempt: no automatic retry"}, nil},
		{"PUT with a key and a tight deadline", "PUT", keyed,
			[]string{
				"PUT · up to 4 attempts, waits 400–800 ms, then 800 ms–1.6 s, then 1.6–3.2 s",
				"At most 16.8 s (deadline 20 s).",
				"Warning: only 2 of 4 attempts fit in the 20 s deadline: the call returns the last error instead of starting an attempt that would end past it.",
				`Sends the Idempotency-Key header from the "idempotency_key" argument, unchanged on every attempt.`,
				"Sending a key does not make the API idempotent: the API must deduplicate.",
				"Exposed: agents can call this tool.",
			}, nil},
		{"idempotent DELETE without jitter", "DELETE", Policy{Idempotent: true, MaxResponseBytes: 262144,
			Retry: Retry{Attempts: 2, BackoffMS: 1500, Multiplier: 2, RetryOn: []int{503}}},
			[]string{
				"DELETE · up to 2 attempts, waits 1.5 s",
				"Retries after connection failures, attempt timeouts and HTTP 503; a Retry-After from the API can make a wait longer, within the deadline.",
				"Idempotent is your assertion about the API; toolgate adds no deduplication.",
				"Each attempt: 8 s timeout including the body; responses over 256 KiB are cut off.",
			}, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := Explain(tc.method, tc.p)
			at := 0
			for _, w := range tc.want {
				i := slices.Index(got[at:], w)
				if i < 0 {
					t.Fatalf("Explain lacks %q after sentence %d:\n%s", w, at, strings.Join(got, "\n"))
				}
				at += i + 1
			}
			for _, a := range tc.absent {
				if slices.Contains(got, a) {
					t.Errorf("Explain has %q:\n%s", a, strings.Join(got, "\n"))
				}
			}
		})
	}
}

func TestFormatting(t *testing.T) {
	for _, tc := range []struct{ got, want string }{
		{formatDuration(16300 * time.Millisecond), "16.3 s"},
		{formatDuration(999 * time.Millisecond), "999 ms"},
		{formatDuration(60 * time.Second), "60 s"},
		{formatRange(150*time.Millisecond, 300*time.Millisecond), "150–300 ms"},
		{formatRange(600*time.Millisecond, 1200*time.Millisecond), "600 ms–1.2 s"},
		{formatRange(30*time.Second, 60*time.Second), "30–60 s"},
		{formatRange(time.Second, time.Second), "1 s"},
		{formatBytes(1 << 20), "1 MiB"},
		{formatBytes(1536), "1536 bytes"},
		{formatBytes(64 << 10), "64 KiB"},
	} {
		if tc.got != tc.want {
			t.Errorf("got %q, want %q", tc.got, tc.want)
		}
	}
}
