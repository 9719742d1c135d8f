package policy

import (
	"fmt"
	"strconv"
	"strings"
	"time"
)

// Describe returns one line about a tool's effective retry for lists:
// "GET · 2 attempts", "POST · 1 attempt (not idempotent)",
// "PUT · 3 attempts (idempotency key)", "DELETE · 3 attempts (idempotent)".
func Describe(method string, p Policy) string {
	m := strings.ToUpper(strings.TrimSpace(method))
	e := Effective(method, p)
	line := m + " · " + plural(e.Retry.Attempts, "attempt", "attempts")
	switch {
	case IsSafeMethod(method):
		return line
	case e.IdempotencyKey != nil:
		return line + " (idempotency key)"
	case e.Idempotent:
		return line + " (idempotent)"
	default:
		return line + " (not idempotent)"
	}
}

// Explain returns the sentences of the policy editor's live preview: the
// effective retry, the waits, what is retried, the worst-case duration and
// its warnings, the idempotency caveats, limits and exposure.
func Explain(method string, p Policy) []string {
	m := strings.ToUpper(strings.TrimSpace(method))
	e := Effective(method, p)
	out := []string{retrySentence(m, e)}
	if e.Retry.Attempts > 1 {
		out = append(out, "Retries after connection failures, attempt timeouts and "+statusList(e.Retry.RetryOn)+
			"; a Retry-After from the API can make a wait longer, within the deadline.")
	} else if !Safe(method, e) && p.Retry.Attempts > 1 {
		out = append(out, fmt.Sprintf("The %d stored attempts do not apply: a %s that is not idempotent is sent once.", p.Retry.Attempts, m))
	}
	worst, warnings := WorstCase(method, p)
	out = append(out, fmt.Sprintf("At most %s (deadline %s).", formatDuration(worst), formatDuration(ms(e.DeadlineMS))))
	for _, w := range warnings {
		out = append(out, "Warning: "+w+".")
	}
	if k := e.IdempotencyKey; k != nil {
		out = append(out, keySentence(k), "Sending a key does not make the API idempotent: the API must deduplicate.")
	}
	if e.Idempotent {
		out = append(out, "Idempotent is your assertion about the API; toolgate adds no deduplication.")
	}
	out = append(out,
		fmt.Sprintf("Each attempt: %s timeout including the body; responses over %s are cut off.",
			formatDuration(ms(e.TimeoutMS)), formatBytes(e.MaxResponseBytes)),
		fmt.Sprintf("The circuit opens after %s in a row and lets one probe through after %s.",
			plural(e.Breaker.Threshold, "transient failure", "transient failures"), formatDuration(ms(e.Breaker.ResetMS))))
	if e.Exposed {
		out = append(out, "Exposed: agents can call this tool.")
	} else {
		out = append(out, "Not exposed: agents cannot call this tool.")
	}
	return out
}

// retrySentence is the headline: "GET · up to 2 attempts, waits 150–300 ms"
// or "POST · 1 attempt: retry needs an idempotency key or an idempotency
// assertion".
func retrySentence(m string, e Policy) string {
	n := e.Retry.Attempts
	switch {
	case n == 1 && !Safe(m, e):
		return m + " · 1 attempt: retry needs an idempotency key or an idempotency assertion"
	case n == 1:
		return m + " · 1 attempt: no automatic retry"
	}
	waits := make([]string, 0, n-1)
	for i := 1; i < n; i++ {
		hi := MaxDelay(e.Retry, i)
		lo := hi
		if e.Retry.Jitter {
			lo = Delay(e.Retry, i, func() float64 { return 0 })
		}
		waits = append(waits, formatRange(lo, hi))
	}
	return fmt.Sprintf("%s · up to %d attempts, waits %s", m, n, strings.Join(waits, ", then "))
}

func keySentence(k *IdempotencyKey) string {
	if k.Source == KeyArgument {
		return fmt.Sprintf("Sends the %s header from the %q argument, unchanged on every attempt.", k.Header, k.Argument)
	}
	return fmt.Sprintf("Sends the %s header with a key generated once per call, unchanged on every attempt.", k.Header)
}

// statusList renders "408, 429, 502, 503 and 504", or "no HTTP status".
func statusList(on []int) string {
	if len(on) == 0 {
		return "no HTTP status"
	}
	parts := make([]string, len(on))
	for i, s := range on {
		parts[i] = strconv.Itoa(s)
	}
	if len(parts) == 1 {
		return "HTTP " + parts[0]
	}
	return "HTTP " + strings.Join(parts[:len(parts)-1], ", ") + " and " + parts[len(parts)-1]
}

func ms(n int) time.Duration { return time.Duration(n) * time.Millisecond }
