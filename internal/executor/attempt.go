package executor

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptrace"
	"net/url"
	"sync/atomic"
	"time"

	"github.com/toolgate/toolgate/internal/policy"
)

// outcome is what one attempt produced.
type outcome struct {
	status     int
	body       any
	err        *Error
	transient  bool          // R3: may be retried (subject to R1 and the budget)
	retryAfter time.Duration // upstream's Retry-After, 0 when absent
	health     error         // what the circuit breaker records: nil, errFailure or errExcluded
	unsent     bool          // refused before the request left: not an attempt of the budget
}

// attempt sends the prepared request once, with a timeout that covers
// connecting, headers and reading the body (R5), and classifies the result.
// The caller starts an attempt only when its whole timeout fits before the
// call's deadline (R5), so an attempt timeout is always TIMEOUT.
func (e *Executor) attempt(ctx context.Context, t *tool, p *prepared, timeout time.Duration) outcome {
	actx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	// For a mutation, whether a connection was obtained decides between
	// NETWORK (nothing sent, nothing applied) and OUTCOME_UNKNOWN.
	var sent *atomic.Bool
	if t.mutation {
		sent = new(atomic.Bool)
		actx = httptrace.WithClientTrace(actx, &httptrace.ClientTrace{
			GotConn: func(httptrace.GotConnInfo) { sent.Store(true) },
		})
	}
	req := p.newRequest(actx, t.method, e.creds != nil)
	if e.creds != nil {
		applied, err := e.creds.Apply(actx, t.source.name, req)
		if err != nil {
			return outcome{health: errExcluded, unsent: true, err: newError(ClassAuthRejected, false, 0,
				fmt.Sprintf("credentials of source %q could not be applied: %v", t.source.name, err))}
		}
		if applied && t.source.scheme != "https" && !e.allowInsecure {
			return outcome{health: errExcluded, unsent: true, err: newError(ClassAuthRejected, false, 0,
				fmt.Sprintf("refusing to send credentials of source %q over %s (allowed only with the local-development switch)", t.source.name, t.source.scheme))}
		}
		hideReplayHeaders(req.Header) // the credentials may name such a header too
	}
	// RoundTrip, not http.Client.Do: there is no redirect machinery at all,
	// so a 3xx comes back as it is and its Location is never requested
	// (R8), and the client's per-request header and URL copies are saved.
	resp, err := e.transport.RoundTrip(req)
	if err != nil {
		return e.failure(ctx, t, err, sent == nil || sent.Load())
	}
	defer resp.Body.Close()
	return e.response(ctx, t, p, resp)
}

// failure classifies an attempt that got no usable response: the caller
// cancelled (ABORTED), the attempt or call timed out, or the connection
// failed. A mutation that may have reached the upstream is OUTCOME_UNKNOWN
// with may_have_applied (R3).
func (e *Executor) failure(ctx context.Context, t *tool, err error, sent bool) outcome {
	unknown := t.mutation && sent
	switch {
	case errors.Is(ctx.Err(), context.Canceled):
		return outcome{health: errExcluded, err: newError(ClassAborted, unknown, 0, "the call was cancelled by the caller")}
	case ctx.Err() != nil:
		o := outcome{health: errExcluded}
		if unknown {
			o.err = newError(ClassOutcomeUnknown, true, 0, "the call's deadline passed after the request was sent")
		} else {
			o.err = newError(ClassDeadlineExceeded, false, 0, "the call's deadline passed before a response arrived")
		}
		return o
	case isTimeout(err):
		o := outcome{transient: true, health: errFailure}
		if unknown {
			o.err = newError(ClassOutcomeUnknown, true, 0, fmt.Sprintf("no response within the %d ms attempt timeout after the request was sent", t.policy.TimeoutMS))
		} else {
			o.err = newError(ClassTimeout, false, 0, fmt.Sprintf("no response within the %d ms attempt timeout", t.policy.TimeoutMS))
		}
		return o
	}
	o := outcome{transient: true, health: errFailure}
	if unknown {
		o.err = newError(ClassOutcomeUnknown, true, 0, "the connection failed after the request was sent: "+netMessage(err))
	} else {
		o.err = newError(ClassNetwork, false, 0, "the upstream could not be reached: "+netMessage(err))
	}
	return o
}

// response classifies a response by status (R9), reading its body under the
// tool's ceiling.
func (e *Executor) response(ctx context.Context, t *tool, p *prepared, resp *http.Response) outcome {
	o := outcome{status: resp.StatusCode}
	readBody := t.method != http.MethodHead && resp.StatusCode != http.StatusNoContent && resp.StatusCode != http.StatusResetContent
	if readBody {
		body, berr, err := e.readResponse(resp, t.policy.MaxResponseBytes)
		if err != nil {
			// The body failed mid-stream: a timeout or a broken connection.
			f := e.failure(ctx, t, err, true)
			f.status = resp.StatusCode
			return f
		}
		o.body = body
		if berr != nil && resp.StatusCode < 300 {
			// The upstream answered (and, for a mutation, applied) but the
			// body is unusable.
			o.err = newError(berr.class, t.mutation, resp.StatusCode, berr.msg)
			o.body = nil
			return o
		}
	}
	if resp.StatusCode >= 200 && resp.StatusCode < 300 {
		return o
	}
	class := statusClass(resp.StatusCode)
	// 4xx means the request was refused; a 3xx or 5xx after a mutation
	// leaves the outcome open (a 503 may come after the change was made).
	mayHaveApplied := t.mutation && (resp.StatusCode < 400 || resp.StatusCode >= 500)
	o.err = newError(class, mayHaveApplied, resp.StatusCode, statusMessage(resp.StatusCode, http.StatusText(resp.StatusCode)))
	o.transient = policy.RetryableStatus(t.policy.Retry, resp.StatusCode)
	o.retryAfter = retryAfter(resp.Header, e.clock.Now())
	if o.retryAfter > 0 {
		o.err.RetryAfterSeconds = int((o.retryAfter + time.Second - 1) / time.Second)
		o.err.Instruction = instruction(o.err)
	}
	switch {
	case o.transient || resp.StatusCode >= 500:
		o.health = errFailure
	default:
		o.health = errExcluded // R7: 3xx and 4xx are not server instability
	}
	return o
}

func isTimeout(err error) bool {
	if errors.Is(err, context.DeadlineExceeded) {
		return true
	}
	var te interface{ Timeout() bool }
	return errors.As(err, &te) && te.Timeout()
}

// netMessage keeps the cause of a transport error without the URL that
// *url.Error adds (it may carry query-string credentials).
func netMessage(err error) string {
	var ue *url.Error
	if errors.As(err, &ue) {
		return ue.Err.Error()
	}
	return err.Error()
}
