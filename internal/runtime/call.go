package runtime

import (
	"context"
	"fmt"
	"log/slog"
	"time"

	"github.com/toolgate/toolgate/internal/bundle"
	"github.com/toolgate/toolgate/internal/callrecord"
	"github.com/toolgate/toolgate/internal/executor"
	"github.com/toolgate/toolgate/internal/principal"
	"github.com/toolgate/toolgate/internal/risk"
)

// ClassOK is the class label of a successful call in logs and metrics (the
// executor's classes name failures only).
const ClassOK = "OK"

// Call runs one tool call under the bundle in force: refusal first (groups,
// exposure, staleness), then the executor, which evaluates the tool's
// argument conditions for the principal of ctx before it sends anything. Every call is logged (tool, class, status,
// attempts, duration; never arguments, bodies or credentials) and counted.
// It never returns nil.
func (r *Runtime) Call(ctx context.Context, name string, args map[string]any) *executor.Result {
	s := r.snap.Load()
	p := principal.FromContext(ctx)
	ctx, span := startCallSpan(ctx, s, name)
	var res *executor.Result
	decision := "" // the call record's, when the class alone does not say it
	if err := r.refusal(s, name, p, r.opts.Now()); err != nil {
		res = &executor.Result{Tool: name, Err: err}
		// The agent reads "not in bundle"; the operator (log line, call
		// record) reads why.
		if t := s.toolNamed(name); t != nil && !allowedFor(t, p) {
			decision = callrecord.DeniedGroup
		}
	} else if res = s.exec.Call(ctx, name, args); res.Ask != nil {
		// A person must decide this call first (R16, percall.go).
		if res, decision = r.perCall(ctx, s, name, args, res.Ask); decision == decisionInClient {
			endCallSpan(span, res, decisionInClient)
			return res
		}
	}
	endCallSpan(span, res, r.observe(ctx, res, args, decision))
	return res
}

// toolNamed is the bundle tool called name, nil when there is none (or no
// bundle).
func (s *snapshot) toolNamed(name string) *bundle.Tool {
	if s == nil {
		return nil
	}
	return s.tools[name]
}

// refusal returns the error for a tool the runtime must not call now for
// principal p: no bundle, not in the bundle, outside the tool's groups
// (R15), withheld, bundle expired, or a DESTRUCTIVE/PRIVILEGED tool while
// the bundle is stale (R11). It is the one decision behind tools/list
// (filterList) and tools/call. The class is TOOL_NOT_EXPOSED — nothing was
// sent — with a message saying which rule applied.
//
// A principal outside a tool's groups gets exactly the answer of a tool
// that is not in the bundle, and gets it before any other rule: the tool
// is hidden from its list, so a call by name must not confirm that the
// tool exists, nor which groups or what state it has. Operators see the
// real reason in the console's policy and in the runtime's log line
// (refused_by=groups).
func (r *Runtime) refusal(s *snapshot, name string, p principal.Principal, now time.Time) *executor.Error {
	if s == nil {
		return notExposed("no verified bundle yet: the runtime has not received one from the console",
			"Wait for the runtime to fetch a bundle, then list the tools again.")
	}
	t, ok := s.tools[name]
	if !ok || !allowedFor(t, p) {
		return notInBundle(s, name)
	}
	return r.exposure(s, t, now)
}

// allowedFor reports whether p may call t by its groups (R15): a tool
// without groups is open to every caller the endpoint admits; a tool with
// groups only to a principal in one of them, so never to the anonymous
// principal of an unauthenticated endpoint.
func allowedFor(t *bundle.Tool, p principal.Principal) bool {
	return len(t.Policy.Groups) == 0 || p.InAny(t.Policy.Groups)
}

func notInBundle(s *snapshot, name string) *executor.Error {
	return notExposed(fmt.Sprintf("tool %q is not in bundle v%d", name, s.bundle.Version),
		"List the tools again and use one of those.")
}

// exposure is the principal-independent part of refusal for a tool of
// the bundle in force: withheld, expired, or risky while stale.
func (r *Runtime) exposure(s *snapshot, t *bundle.Tool, now time.Time) *executor.Error {
	name := t.Name
	if reason, ok := s.withheld[name]; ok {
		return notExposed(fmt.Sprintf("tool %q of bundle v%d is withheld by this runtime because it cannot be served safely: %s",
			name, s.bundle.Version, reason),
			"The operation was not sent. Use another tool or ask an operator to fix this tool's definition in the toolgate console.")
	}
	if !now.Before(s.bundle.ExpiresAt) {
		return notExposed(fmt.Sprintf("bundle v%d expired at %s; every tool is disabled until a fresh bundle arrives",
			s.bundle.Version, s.bundle.ExpiresAt.Format(time.RFC3339)),
			"Do not retry now; ask an operator to check the runtime's connection to the toolgate console.")
	}
	if risky(t) && r.staleAt(now) {
		return notExposed(fmt.Sprintf("tool %q is %s and %s; DESTRUCTIVE and PRIVILEGED tools are disabled until a fresh bundle arrives",
			name, t.Risk, r.whyStale(s, now)),
			"The operation was not sent. Do not retry now; ask an operator to check the runtime's connection to the toolgate console.")
	}
	return nil
}

func risky(t *bundle.Tool) bool { return t.Risk == risk.Destructive || t.Risk == risk.Privileged }

func notExposed(msg, instruction string) *executor.Error {
	return &executor.Error{Class: executor.ClassToolNotExposed, Message: msg, Instruction: instruction}
}

// visible reports whether the server's tool list holds t now, for some
// principal: the principal-independent part of refusal (filterList removes
// per request what one principal may not call).
func (r *Runtime) visible(s *snapshot, t *bundle.Tool, now time.Time) bool {
	return r.exposure(s, t, now) == nil
}

// nextBoundary is how long until the visible tool set changes by the
// passing of time alone (staleness reached, or expiry); ok is false when
// no such moment lies ahead.
func (r *Runtime) nextBoundary() (time.Duration, bool) {
	s := r.snap.Load()
	if s == nil {
		return 0, false
	}
	now := r.opts.Now()
	var next time.Duration
	ok := false
	consider := func(at time.Time) {
		if d := at.Sub(now); d > 0 && (!ok || d < next) {
			next, ok = d, true
		}
	}
	consider(time.Unix(0, r.confirmedAt.Load()).Add(r.opts.MaxStaleness + time.Millisecond))
	consider(s.bundle.ExpiresAt)
	return next, ok
}

// observe logs, counts and records (records.go) one finished call and
// returns its class label; decision is the call record's when the class
// alone does not say it (a refusal by groups, a per-call decision), "" otherwise.
func (r *Runtime) observe(ctx context.Context, res *executor.Result, args map[string]any, decision string) string {
	r.recordCall(ctx, res, args, decision)
	class := ClassOK
	if res.Err != nil {
		class = string(res.Err.Class)
	}
	r.metrics.call(res, class)
	level := slog.LevelInfo
	if res.Err != nil {
		level = slog.LevelWarn
	}
	attrs := []slog.Attr{slog.String("tool", res.Tool), slog.String("class", class),
		slog.Int("status", res.Status), slog.Int("attempts", res.Attempts),
		slog.Int64("duration_ms", res.Duration.Milliseconds())}
	if p := principal.FromContext(ctx); p.Authenticated() {
		attrs = append(attrs, slog.String("principal", string(p.Kind)+":"+p.Subject), slog.Any("groups", p.Groups))
	}
	switch decision {
	case callrecord.DeniedGroup:
		attrs = append(attrs, slog.String("refused_by", "groups"))
	case callrecord.DeniedPerCall, callrecord.AwaitingDecision:
		attrs = append(attrs, slog.String("per_call", decision))
	}
	// The handler directly: Logger.LogAttrs would also walk the stack for
	// a source position the text handler does not print, on every call.
	if h := r.log.Handler(); h.Enabled(ctx, level) {
		rec := slog.NewRecord(time.Now(), level, "tool call", 0)
		rec.AddAttrs(attrs...)
		_ = h.Handle(ctx, rec)
	}
	return class
}
