// Package telemetry sets up OpenTelemetry tracing for the console and the
// runtime: spans exported over OTLP/HTTP to a collector, W3C trace context
// propagated to and from callers. It is off unless the standard
// environment names an OTLP endpoint (OTEL_EXPORTER_OTLP_ENDPOINT or
// OTEL_EXPORTER_OTLP_TRACES_ENDPOINT); OTEL_SDK_DISABLED=true or
// OTEL_TRACES_EXPORTER=none keep it off. Every other OTEL_* variable the
// SDK and the exporter read (headers, timeout, compression, service name,
// resource attributes, sampler) works as documented by OpenTelemetry.
//
// Spans carry what a call was (tool, source, risk class, outcome class,
// attempts, status, may_have_applied, whether an idempotency key was sent),
// never arguments, bodies, tokens or credentials.
package telemetry

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strings"
	"sync/atomic"

	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/exporters/otlp/otlptrace/otlptracehttp"
	"go.opentelemetry.io/otel/propagation"
	"go.opentelemetry.io/otel/sdk/resource"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	semconv "go.opentelemetry.io/otel/semconv/v1.43.0"
)

// on is set once Setup installed a tracer provider.
var on atomic.Bool

// On reports whether Setup turned tracing on in this process, so callers
// skip building spans (and their contexts) when it is off.
func On() bool { return on.Load() }

// Enabled reports whether the environment asks for traces (see the
// package doc); getenv is os.Getenv outside tests.
func Enabled(getenv func(string) string) bool {
	if strings.EqualFold(strings.TrimSpace(getenv("OTEL_SDK_DISABLED")), "true") {
		return false
	}
	if strings.EqualFold(strings.TrimSpace(getenv("OTEL_TRACES_EXPORTER")), "none") {
		return false
	}
	return getenv("OTEL_EXPORTER_OTLP_ENDPOINT") != "" || getenv("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT") != ""
}

// Setup installs the global tracer provider and the W3C trace-context
// propagator when Enabled; service names the process ("toolgate-console",
// "toolgate-runtime") unless OTEL_SERVICE_NAME does. The returned shutdown
// flushes the spans still buffered; it is a no-op when tracing is off.
func Setup(ctx context.Context, service, version string) (shutdown func(context.Context) error, err error) {
	if !Enabled(os.Getenv) {
		return func(context.Context) error { return nil }, nil
	}
	exp, err := otlptracehttp.New(ctx)
	if err != nil {
		return nil, fmt.Errorf("telemetry: OTLP exporter: %w", err)
	}
	res, err := resource.Merge(resource.Default(), resource.NewWithAttributes(semconv.SchemaURL,
		semconv.ServiceName(service), semconv.ServiceVersion(version)))
	if err != nil && !errors.Is(err, resource.ErrSchemaURLConflict) {
		return nil, fmt.Errorf("telemetry: resource: %w", err)
	}
	// The environment (OTEL_SERVICE_NAME, OTEL_RESOURCE_ATTRIBUTES) wins
	// over the built-in name.
	if env, err := resource.New(ctx, resource.WithFromEnv()); err == nil {
		if merged, err := resource.Merge(res, env); err == nil {
			res = merged
		}
	}
	tp := sdktrace.NewTracerProvider(sdktrace.WithBatcher(exp), sdktrace.WithResource(res))
	otel.SetTracerProvider(tp)
	on.Store(true)
	// Trace context only: baggage would carry a caller's key-value pairs
	// to every upstream unread.
	otel.SetTextMapPropagator(propagation.TraceContext{})
	return func(ctx context.Context) error {
		on.Store(false)
		return tp.Shutdown(ctx)
	}, nil
}
