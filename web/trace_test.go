package web

import (
	"context"
	"encoding/hex"
	"net/http"
	"testing"

	"github.com/toolgate/toolgate/internal/telemetry"
	"github.com/toolgate/toolgate/internal/testing/otlptest"
)

// With tracing on, a console request is a span named by its route pattern
// (no path values, no query), in the caller's trace, with the status sent,
// the error handler's included.
func TestConsoleRequestsTraced(t *testing.T) {
	rcv := otlptest.Start(t)
	t.Setenv("OTEL_EXPORTER_OTLP_ENDPOINT", rcv.URL)
	shutdown, err := telemetry.Setup(context.Background(), "toolgate-console", "test")
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = shutdown(context.Background()) }()
	a := newTestApp(t, true)
	const traceID = "0af7651916cd43dd8448eb211c80319c"
	rec := a.do(request{method: http.MethodGet, path: "/tools/no_such_tool?q=secret-query", cookie: a.sessionCookie("viewer"),
		header: map[string]string{"traceparent": "00-" + traceID + "-b7ad6b7169203331-01"}})
	wantStatus(t, rec, http.StatusNotFound)
	if err := shutdown(context.Background()); err != nil {
		t.Fatal(err)
	}
	spans := rcv.Spans()
	if len(spans) != 1 {
		t.Fatalf("%d spans exported, want 1", len(spans))
	}
	s := spans[0]
	if s.Name != "GET /tools/:name" || hex.EncodeToString(s.TraceId) != traceID {
		t.Errorf("span %q in trace %x, want \"GET /tools/:name\" in %s", s.Name, s.TraceId, traceID)
	}
	if got := otlptest.Attr(s.Attributes, "http.response.status_code"); got != "404" {
		t.Errorf("span status %s, want the 404 sent", got)
	}
	for _, kv := range s.Attributes {
		if v := kv.Value.GetStringValue(); v == "no_such_tool" || v == "secret-query" {
			t.Errorf("attribute %s carries a request value %q", kv.Key, v)
		}
	}
}
