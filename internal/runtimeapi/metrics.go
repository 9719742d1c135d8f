package runtimeapi

import (
	"net/http"

	"github.com/labstack/echo/v4"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"
)

// apiMetrics are the console's Prometheus metrics for the runtime API, in a
// registry of their own (no global state). They are served at GET
// /api/v1/metrics to any holder of a valid runtime token: a Prometheus
// scrape config sends one as a bearer token, nothing new to deploy, and the
// figures (request counts, the version served, fleet writes) tell a token
// holder nothing the bundle itself does not.
type apiMetrics struct {
	reg           *prometheus.Registry
	handler       http.Handler
	bundleResults *prometheus.CounterVec
	notModified   prometheus.Counter // bundleResults{result="not_modified"}, resolved once
	version       prometheus.GaugeFunc
	fleetWrites   prometheus.Counter
	fleetEvicted  prometheus.Counter
	fleetDropped  prometheus.Counter
	fleetFailures prometheus.Counter
	callRecords   prometheus.Counter
	callSummaries prometheus.Counter
}

// Results of GET /api/v1/bundle and /api/v1/bundles/{version}.
const (
	resultNotModified = "not_modified" // 304: the runtime has it
	resultSent        = "sent"         // 200 with the JWS
	resultRefused     = "refused"      // 401: missing, unknown or revoked token
	resultNone        = "none"         // 404: nothing published (or no such version)
)

func newAPIMetrics(st *apiState) *apiMetrics {
	m := &apiMetrics{reg: prometheus.NewRegistry()}
	m.bundleResults = prometheus.NewCounterVec(prometheus.CounterOpts{Name: "toolgate_console_bundle_requests_total",
		Help: "Bundle API requests by result: not_modified (304), sent (200), refused (401), none (404)."}, []string{"result"})
	for _, r := range []string{resultNotModified, resultSent, resultRefused, resultNone} {
		m.bundleResults.WithLabelValues(r)
	}
	m.notModified = m.bundleResults.WithLabelValues(resultNotModified)
	m.version = prometheus.NewGaugeFunc(prometheus.GaugeOpts{Name: "toolgate_console_bundle_version",
		Help: "Version of the bundle the API serves as current (0: none published)."},
		func() float64 { return float64(st.bundle.Load().version) })
	m.fleetWrites = prometheus.NewCounter(prometheus.CounterOpts{Name: "toolgate_console_fleet_rows_written_total",
		Help: "Runtime fetch records written to the database (batched)."})
	m.fleetEvicted = prometheus.NewCounter(prometheus.CounterOpts{Name: "toolgate_console_fleet_instances_evicted_total",
		Help: "Runtime instance rows deleted to keep a token under its bound."})
	m.fleetDropped = prometheus.NewCounter(prometheus.CounterOpts{Name: "toolgate_console_fleet_records_dropped_total",
		Help: "Runtime fetch records not kept because the pending batch was full."})
	m.fleetFailures = prometheus.NewCounter(prometheus.CounterOpts{Name: "toolgate_console_fleet_flush_failures_total",
		Help: "Batched fleet writes that failed (retried at the next flush)."})
	m.callRecords = prometheus.NewCounter(prometheus.CounterOpts{Name: "toolgate_console_call_records_stored_total",
		Help: "Call records runtimes reported and the console stored."})
	m.callSummaries = prometheus.NewCounter(prometheus.CounterOpts{Name: "toolgate_console_call_summaries_received_total",
		Help: "Per-minute call summaries runtimes reported (a minute sent again counts again)."})
	m.reg.MustRegister(m.bundleResults, m.version, m.fleetWrites, m.fleetEvicted, m.fleetDropped, m.fleetFailures, m.callRecords, m.callSummaries,
		collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	m.handler = promhttp.HandlerFor(m.reg, promhttp.HandlerOpts{Registry: m.reg})
	return m
}

// apiMetricsPage is GET /api/v1/metrics (runtime token).
func (s *Service) apiMetricsPage(c echo.Context) error {
	if _, err := s.runtimeToken(c); err != nil {
		return err
	}
	s.metrics.handler.ServeHTTP(c.Response(), c.Request())
	return nil
}
