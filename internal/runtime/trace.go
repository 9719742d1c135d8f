package runtime

import (
	"context"

	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/trace"

	"github.com/toolgate/toolgate/internal/executor"
	"github.com/toolgate/toolgate/internal/telemetry"
)

var tracer = otel.Tracer("github.com/toolgate/toolgate/internal/runtime")

// metaCarrier reads a W3C trace context from an MCP request's _meta
// ("traceparent", "tracestate"), where MCP clients put it.
type metaCarrier map[string]any

func (m metaCarrier) Get(key string) string { v, _ := m[key].(string); return v }
func (m metaCarrier) Set(string, string)    {}
func (m metaCarrier) Keys() []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	return keys
}

// withCallerTrace continues the caller's trace when its request's _meta
// carries one and tracing is on.
func withCallerTrace(ctx context.Context, meta map[string]any) context.Context {
	if len(meta) == 0 || !telemetry.On() {
		return ctx
	}
	return otel.GetTextMapPropagator().Extract(ctx, metaCarrier(meta))
}

// startCallSpan starts the span of one tools/call when tracing is on (nil
// otherwise): tool, source and risk class, never arguments.
func startCallSpan(ctx context.Context, s *snapshot, name string) (context.Context, trace.Span) {
	if !telemetry.On() {
		return ctx, nil
	}
	attrs := []attribute.KeyValue{attribute.String("toolgate.tool", name)}
	if s != nil {
		if t, ok := s.tools[name]; ok {
			attrs = append(attrs, attribute.String("toolgate.source", t.Source),
				attribute.String("toolgate.risk_class", t.Risk.String()),
				attribute.Int64("toolgate.bundle_version", s.bundle.Version))
		}
	}
	return tracer.Start(ctx, "tools/call "+name, trace.WithSpanKind(trace.SpanKindServer), trace.WithAttributes(attrs...))
}

// endCallSpan records the call's outcome on its span and ends it.
func endCallSpan(span trace.Span, res *executor.Result, class string) {
	if span == nil {
		return
	}
	span.SetAttributes(attribute.String("toolgate.outcome_class", class),
		attribute.Int("toolgate.attempts", res.Attempts),
		attribute.Int("http.response.status_code", res.Status),
		attribute.Bool("toolgate.may_have_applied", res.Err != nil && res.Err.MayHaveApplied))
	if res.Err != nil {
		span.SetStatus(codes.Error, class)
	}
	span.End()
}
