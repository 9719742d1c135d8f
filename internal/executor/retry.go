package executor

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/sony/gobreaker/v2"

	"github.com/toolgate/toolgate/internal/policy"
)

// attempts runs the retry loop of one call (R1, R3, R4, R5, R7). The
// effective policy already holds R1: a tool that is not safe has one
// attempt. A 401 answered by a refreshing credential provider earns one
// extra send outside that budget, since a 401 means nothing was applied.
func (e *Executor) attempts(ctx context.Context, t *tool, p *prepared, deadline time.Time, r *Result) {
	var last *Error
	mayHaveApplied := false
	refreshed := false
	for n := 1; ; n++ {
		if err := ctx.Err(); err != nil {
			r.Err = contextError(err, mayHaveApplied, last)
			return
		}
		// R5: an attempt starts only if its full timeout fits in what is
		// left of the deadline; otherwise the last classified error is the
		// answer, at once.
		timeout := time.Duration(t.policy.TimeoutMS) * time.Millisecond
		if deadline.Sub(e.clock.Now()) < timeout {
			r.Err = orDeadline(last, mayHaveApplied, timeout)
			return
		}
		done, err := t.breaker.Allow()
		if err != nil {
			r.Err = circuitError(t, err, last)
			return
		}
		out := e.attempt(ctx, t, p, timeout)
		done(out.health)
		traceAttempt(ctx, n, t, p, &out)
		if !out.unsent {
			r.Attempts++
		}
		r.Status, r.Body = out.status, out.body
		r.RetryAfter = r.RetryAfter || out.retryAfter > 0
		if out.err == nil {
			return
		}
		mayHaveApplied = mayHaveApplied || out.err.MayHaveApplied
		last = withApplied(out.err, mayHaveApplied)
		if out.status == http.StatusUnauthorized && !refreshed && e.refresh(ctx, t) {
			refreshed = true
			n-- // the resend does not use the retry budget
			continue
		}
		if !out.transient || n >= t.policy.Retry.Attempts {
			r.Err = last
			return
		}
		wait := policy.Delay(t.policy.Retry, n, e.rand)
		if out.retryAfter > wait {
			wait = out.retryAfter
		}
		// R5: never start a wait after which the next attempt could not
		// run to its full timeout; the last classified error is returned
		// at once instead.
		if e.clock.Now().Add(wait + timeout).After(deadline) {
			r.Err = last
			return
		}
		if err := e.clock.Sleep(ctx, wait); err != nil {
			r.Err = contextError(err, mayHaveApplied, last)
			return
		}
	}
}

// refresh asks a refreshing provider for new credentials of the tool's
// source; it reports whether a resend is worth it.
func (e *Executor) refresh(ctx context.Context, t *tool) bool {
	rf, ok := e.creds.(Refresher)
	if !ok {
		return false
	}
	changed, err := rf.Refresh(ctx, t.source.name)
	if err != nil {
		e.logger.LogAttrs(ctx, slog.LevelWarn, "credential refresh failed",
			slog.String("tool", t.name), slog.String("source", t.source.name), slog.String("error", err.Error()))
		return false
	}
	return changed
}

// withApplied returns err with MayHaveApplied raised when an earlier attempt
// of the same call may have applied the operation.
func withApplied(err *Error, mayHaveApplied bool) *Error {
	if err.MayHaveApplied || !mayHaveApplied {
		return err
	}
	c := *err
	c.MayHaveApplied = true
	c.Instruction = instruction(&c)
	return &c
}

func contextError(err error, mayHaveApplied bool, last *Error) *Error {
	if errors.Is(err, context.DeadlineExceeded) {
		if last != nil {
			return last
		}
		return newError(ClassDeadlineExceeded, mayHaveApplied, 0, "the call's deadline passed before a request could be sent")
	}
	return newError(ClassAborted, mayHaveApplied, 0, "the call was cancelled by the caller")
}

// orDeadline is the error when what is left of the deadline cannot hold
// another attempt: the last classified error if there was one (R5; TIMEOUT
// after a timed-out attempt), DEADLINE_EXCEEDED otherwise.
func orDeadline(last *Error, mayHaveApplied bool, timeout time.Duration) *Error {
	if last != nil {
		return last
	}
	return newError(ClassDeadlineExceeded, mayHaveApplied, 0, fmt.Sprintf(
		"the call's deadline leaves less than the %d ms attempt timeout, so no request was sent", timeout.Milliseconds()))
}

func circuitError(t *tool, err error, last *Error) *Error {
	if last != nil {
		// The circuit opened during this call's retries: the upstream's own
		// answer says more than "circuit open".
		return last
	}
	msg := "circuit breaker of tool " + t.name + " is open after repeated transient failures"
	if errors.Is(err, gobreaker.ErrTooManyRequests) {
		msg = "circuit breaker of tool " + t.name + " is letting a single probe call through; this call was not sent"
	}
	return newError(ClassCircuitOpen, false, 0, msg)
}

// retryAfter reads Retry-After as delay-seconds or an HTTP-date (R4).
func retryAfter(h http.Header, now time.Time) time.Duration {
	v := strings.TrimSpace(h.Get("Retry-After"))
	if v == "" {
		return 0
	}
	if secs, err := strconv.ParseInt(v, 10, 64); err == nil {
		if secs <= 0 {
			return 0
		}
		return time.Duration(min(secs, 1<<31)) * time.Second
	}
	if at, err := http.ParseTime(v); err == nil && at.After(now) {
		return at.Sub(now)
	}
	return 0
}
