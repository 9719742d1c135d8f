package web

import (
	"github.com/labstack/echo/v4"
	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/propagation"
	"go.opentelemetry.io/otel/trace"

	"github.com/toolgate/toolgate/internal/telemetry"
)

var tracer = otel.Tracer("github.com/toolgate/toolgate/web")

// traceRequests gives each console request a span named by its route
// pattern ("GET /tools/:name", never the path with its values or the query)
// when tracing is on (internal/telemetry), continuing a caller's W3C trace
// context. It runs first, outside the access log.
func traceRequests(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		if !telemetry.On() {
			return next(c)
		}
		req := c.Request()
		ctx := otel.GetTextMapPropagator().Extract(req.Context(), propagation.HeaderCarrier(req.Header))
		route := c.Path()
		ctx, span := tracer.Start(ctx, req.Method+" "+route, trace.WithSpanKind(trace.SpanKindServer),
			trace.WithAttributes(attribute.String("http.request.method", req.Method), attribute.String("http.route", route)))
		defer span.End()
		c.SetRequest(req.WithContext(ctx))
		err := next(c)
		// Outside the access log, which has the error handler write the
		// answer: the status is the one sent.
		status := c.Response().Status
		span.SetAttributes(attribute.Int("http.response.status_code", status))
		if status >= 500 {
			span.SetStatus(codes.Error, "")
		}
		return err
	}
}
