package executor

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"math/rand/v2"
	"net"
	"net/http"
	"sync"
	"time"

	"github.com/google/uuid"

	"github.com/toolgate/toolgate/internal/bundle"
	"github.com/toolgate/toolgate/internal/principal"
)

// Options are the runtime's choices for an Executor. Every field may be
// left zero.
type Options struct {
	// Credentials supplies each source's secrets; nil sends none. When it
	// also implements Refresher, a 401 triggers one refresh and resend.
	Credentials CredentialProvider
	// Transport sends the requests; nil means a clone of
	// http.DefaultTransport with its own connection pool.
	Transport http.RoundTripper
	// Clock measures deadlines and performs backoff waits; nil is the wall
	// clock.
	Clock Clock
	// Rand returns values in [0, 1) for backoff jitter; nil is math/rand/v2.
	Rand func() float64
	// AllowInsecureCredentials lets credentials go to http:// origins. For
	// local development only (R8).
	AllowInsecureCredentials bool
	// Logger receives one debug line per call (tool, status, attempts,
	// class). Bodies and credentials are never logged.
	Logger *slog.Logger
	// NewIdempotencyKey generates keys for policies with source
	// "generated"; nil is a random UUID.
	NewIdempotencyKey func() string
	// Breakers carries circuit breakers over from the previous executor
	// built with the same registry (see Breakers); nil gives this executor
	// breakers of its own, all closed.
	Breakers *Breakers
	// Schemas caches compiled input schemas by digest across executors
	// (see Schemas); nil compiles every schema of the bundle afresh.
	Schemas *Schemas
	// Previous is the executor this one replaces, if any: each tool whose
	// definition and source are unchanged is taken over as compiled there
	// instead of being compiled again. Previous is only read.
	Previous *Executor
}

// Executor performs tool calls of one verified bundle under its policies.
// It is safe for concurrent use. Its circuit breakers live as long as it
// does, or longer when they come from an Options.Breakers registry.
type Executor struct {
	tools         map[string]*tool
	transport     http.RoundTripper
	creds         CredentialProvider
	clock         Clock
	rand          func() float64
	allowInsecure bool
	logger        *slog.Logger
	breakers      *Breakers
	bufs          sync.Pool // *bytes.Buffer for response bodies

	sources  map[string]*source
	withheld map[string]string // tool name → why it cannot be run
}

// Result is the outcome of one tool call. On failure Err is set and OK is
// false; Status and Body may still describe the last response.
type Result struct {
	Tool string
	OK   bool
	// Status is the HTTP status of the last response, 0 when there was none.
	Status int
	// Body is the response: a validated JSON value as json.RawMessage (the
	// upstream's exact bytes, trimmed), a string for text, or nil (204/205,
	// HEAD, empty, no response).
	Body any
	// Attempts counts the HTTP requests sent; each is one budget unit.
	Attempts int
	// RetryAfter reports that an attempt's answer carried Retry-After.
	RetryAfter bool
	Duration   time.Duration
	Err        *Error
	// Ask is set when the call was not run because a person must decide
	// it first (R16) and the context carried no grant (WithGrant); Err
	// then says so.
	Ask *Ask
}

// resultJSON is the wire form of a Result (toolgate call, MCP).
type resultJSON struct {
	Tool       string `json:"tool"`
	OK         bool   `json:"ok"`
	Status     *int   `json:"status"`
	Attempts   int    `json:"attempts"`
	DurationMS int64  `json:"duration_ms"`
	Result     any    `json:"result"`
	Error      *Error `json:"error"`
}

// MarshalJSON writes {"tool","ok","status"|null,"attempts","duration_ms",
// "result","error"|null}.
func (r *Result) MarshalJSON() ([]byte, error) {
	out := resultJSON{Tool: r.Tool, OK: r.OK, Attempts: r.Attempts,
		DurationMS: r.Duration.Milliseconds(), Result: r.Body, Error: r.Err}
	if r.Status != 0 {
		out.Status = &r.Status
	}
	return json.Marshal(out)
}

// New compiles every tool of a verified bundle: effective policies, path
// templates, input schemas, breakers. A tool that cannot be executed safely
// (bad origin, bad template, uncompilable schema, reserved header) is
// withheld with its reason (see Withheld) and the others are served: one
// bad tool does not take the rest of the bundle away from the agents.
// New fails only without a bundle.
func New(b *bundle.Bundle, opts Options) (*Executor, error) {
	if b == nil {
		return nil, fmt.Errorf("new executor: nil bundle")
	}
	e := &Executor{
		tools: make(map[string]*tool, len(b.Tools)), creds: opts.Credentials,
		clock: opts.Clock, rand: opts.Rand, allowInsecure: opts.AllowInsecureCredentials, logger: opts.Logger,
		breakers: opts.Breakers,
	}
	if e.clock == nil {
		e.clock = realClock{}
	}
	if e.rand == nil {
		e.rand = rand.Float64
	}
	if e.logger == nil {
		e.logger = slog.New(slog.DiscardHandler)
	}
	if e.breakers == nil {
		e.breakers = NewBreakers()
	}
	newKey := opts.NewIdempotencyKey
	if newKey == nil {
		newKey = uuid.NewString
	}
	e.transport = opts.Transport
	if e.transport == nil {
		e.transport = NewTransport()
	}
	schemas := opts.Schemas
	if schemas == nil {
		schemas = NewSchemas()
	}
	e.compileTools(b, opts.Previous, newKey, schemas)
	e.breakers.adopt(e.tools)
	return e, nil
}

// NewTransport returns the transport settings an executor uses when
// Options.Transport is nil: a clone of http.DefaultTransport with its own
// connection pool, compression off (the executor decompresses itself, so
// the response ceiling counts decoded bytes and a gzip bomb stays bounded),
// and 64 idle connections per host. A runtime builds one and passes it to
// every executor so that bundle swaps keep the pool.
func NewTransport() *http.Transport {
	tr := http.DefaultTransport.(*http.Transport).Clone()
	tr.DisableCompression = true
	tr.MaxIdleConnsPerHost = 64
	tr.DialContext = (&net.Dialer{Timeout: 30 * time.Second, KeepAlive: 30 * time.Second}).DialContext
	return tr
}

// BreakerState reports the circuit breaker state of a tool of this
// executor's bundle (exposed or not): BreakerClosed, BreakerHalfOpen or
// BreakerOpen. It reads the breaker itself, so an open circuit whose reset
// time has passed reads half-open. ok is false for a tool not in the bundle.
func (e *Executor) BreakerState(name string) (state string, ok bool) {
	t, ok := e.tools[name]
	if !ok {
		return "", false
	}
	return t.breaker.State().String(), true
}

// Call performs one tool call: arguments checked, request built once, then
// attempts under the tool's effective policy until success, a non-transient
// failure, the attempt budget, or the deadline. It never returns nil.
func (e *Executor) Call(ctx context.Context, name string, args map[string]any) *Result {
	start := e.clock.Now()
	r := &Result{Tool: name}
	e.call(ctx, r, start, args)
	r.Duration = e.clock.Now().Sub(start)
	r.OK = r.Err == nil
	if e.logger.Enabled(ctx, slog.LevelDebug) {
		attrs := []slog.Attr{slog.String("tool", name), slog.Int("status", r.Status),
			slog.Int("attempts", r.Attempts), slog.Duration("duration", r.Duration)}
		if r.Err != nil {
			attrs = append(attrs, slog.String("class", string(r.Err.Class)))
		}
		e.logger.LogAttrs(ctx, slog.LevelDebug, "tool call", attrs...)
	}
	return r
}

func (e *Executor) call(ctx context.Context, r *Result, start time.Time, args map[string]any) {
	t, ok := e.tools[r.Tool]
	if !ok || !t.exposed {
		r.Err = e.notExposed(r.Tool)
		return
	}
	p, err := t.prepare(args)
	if err != nil {
		if !isInvalid(err) {
			err = fmt.Errorf("building the request: %w", err)
		}
		r.Err = newError(ClassInvalidArguments, false, 0, err.Error())
		return
	}
	// The arguments are valid against the schema the conditions were
	// typed from; a refusal leaves the prepared request unsent (R15).
	d := t.conditions.Evaluate(args, principal.FromContext(ctx)).WithPerCall(t.policy.PerCall)
	if !d.Allowed() {
		r.Err = newError(ClassPolicyDenied, false, 0, d.Message)
		return
	}
	// A call a person must decide runs only under a grant (R16).
	if d.Ask != "" && !granted(ctx, t.name, d.Ask) {
		r.Ask = &Ask{Mode: d.Ask, Reason: d.AskMessage}
		r.Err = askError(t.name, r.Ask)
		return
	}
	injectTrace(ctx, p.header)
	deadline := start.Add(time.Duration(t.policy.DeadlineMS) * time.Millisecond)
	if d, ok := ctx.Deadline(); ok {
		// The caller's deadline is on the wall clock; carry it over to the
		// executor's clock as "time left".
		if cd := start.Add(time.Until(d)); cd.Before(deadline) {
			deadline = cd
		}
	}
	e.attempts(ctx, t, p, deadline, r)
}
