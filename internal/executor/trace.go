package executor

import (
	"context"
	"net/http"

	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/propagation"
	"go.opentelemetry.io/otel/trace"
)

// injectTrace writes the call's W3C trace context (traceparent) into the
// request headers every attempt sends, when the call is traced; the
// upstream's own spans then join the caller's trace. Untraced calls send
// nothing extra.
func injectTrace(ctx context.Context, h http.Header) {
	if !trace.SpanContextFromContext(ctx).IsValid() {
		return
	}
	otel.GetTextMapPropagator().Inject(ctx, propagation.HeaderCarrier(h))
}

// traceAttempt adds one attempt's event to the call's span, when it is
// recorded: the attempt number, the status, the outcome class and whether
// it may have applied, never arguments or bodies.
func traceAttempt(ctx context.Context, n int, t *tool, p *prepared, out *outcome) {
	span := trace.SpanFromContext(ctx)
	if !span.IsRecording() {
		return
	}
	class, applied := "OK", false
	if out.err != nil {
		class, applied = string(out.err.Class), out.err.MayHaveApplied
	}
	span.AddEvent("attempt", trace.WithAttributes(
		attribute.Int("toolgate.attempt", n),
		attribute.Int("http.response.status_code", out.status),
		attribute.String("toolgate.outcome_class", class),
		attribute.Bool("toolgate.may_have_applied", applied),
		attribute.Bool("toolgate.transient", out.transient),
		attribute.Bool("toolgate.idempotency_key", p.idempotency != ""),
		attribute.Bool("toolgate.sent", !out.unsent),
		attribute.String("toolgate.method", t.method)))
}
