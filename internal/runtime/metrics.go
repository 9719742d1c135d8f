package runtime

import (
	"errors"
	"net/http"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promhttp"

	"github.com/toolgate/toolgate/internal/bundle"
	"github.com/toolgate/toolgate/internal/executor"
)

// metrics are the runtime's Prometheus metrics, in a registry of their own
// (no global registration: two runtimes in one test process must not clash).
type metrics struct {
	reg      *prometheus.Registry
	calls    *prometheus.CounterVec
	attempts *prometheus.CounterVec
	duration *prometheus.HistogramVec
	fetches  *prometheus.CounterVec
	refusals *prometheus.CounterVec
	version  prometheus.Gauge
	tools    prometheus.Gauge
	withheld prometheus.Gauge
	// byTool holds the series a successful call of each tool updates, so
	// the call path does not hash label values three times per call.
	byTool sync.Map // tool name → *toolSeries
}

// toolSeries are one tool's series that every successful call updates.
type toolSeries struct {
	ok       prometheus.Counter
	attempts prometheus.Counter
	duration prometheus.Observer
}

func (m *metrics) seriesOf(tool string) *toolSeries {
	if v, ok := m.byTool.Load(tool); ok {
		return v.(*toolSeries)
	}
	v, _ := m.byTool.LoadOrStore(tool, &toolSeries{ok: m.calls.WithLabelValues(tool, ClassOK),
		attempts: m.attempts.WithLabelValues(tool), duration: m.duration.WithLabelValues(tool)})
	return v.(*toolSeries)
}

func newMetrics(r *Runtime) *metrics {
	m := &metrics{
		reg: prometheus.NewRegistry(),
		calls: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "toolgate_runtime_calls_total",
			Help: "Tool calls by tool and outcome class (OK or the R9 error class)."}, []string{"tool", "class"}),
		attempts: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "toolgate_runtime_call_attempts_total",
			Help: "HTTP requests sent to upstreams by tool (retries included)."}, []string{"tool"}),
		duration: prometheus.NewHistogramVec(prometheus.HistogramOpts{Name: "toolgate_runtime_call_duration_seconds",
			Help: "Duration of tool calls, all attempts and waits included.", Buckets: prometheus.DefBuckets}, []string{"tool"}),
		fetches: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "toolgate_runtime_bundle_fetches_total",
			Help: "Bundle fetches by result: accepted, not_modified, refused, error."}, []string{"result"}),
		refusals: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "toolgate_runtime_bundle_refusals_total",
			Help: "Bundles refused by reason: unsigned, algorithm, unknown_key, tampered, schema, stale_version, expired, not_yet_valid, other; registry timestamps refused as timestamp_<reason>."}, []string{"reason"}),
		version: prometheus.NewGauge(prometheus.GaugeOpts{Name: "toolgate_runtime_bundle_version",
			Help: "Version of the bundle in force (0: none)."}),
		tools: prometheus.NewGauge(prometheus.GaugeOpts{Name: "toolgate_runtime_tools_listed",
			Help: "Tools currently listed to MCP clients (after the staleness rule)."}),
		withheld: prometheus.NewGauge(prometheus.GaugeOpts{Name: "toolgate_runtime_tools_withheld",
			Help: "Tools of the bundle in force this runtime withholds because it cannot compile or list them."}),
	}
	age := prometheus.NewGaugeFunc(prometheus.GaugeOpts{Name: "toolgate_runtime_bundle_age_seconds",
		Help: "Seconds since the console last confirmed the bundle in force is current (-1: no bundle)."},
		func() float64 {
			if r.snap.Load() == nil {
				return -1
			}
			return r.opts.Now().Sub(time.Unix(0, r.confirmedAt.Load())).Seconds()
		})
	stale := flagGauge("toolgate_runtime_bundle_stale",
		"1 while the bundle is older than the maximum staleness, or older than the registry's timestamp names (DESTRUCTIVE and PRIVILEGED tools refused).",
		func() bool { return r.Status().Stale })
	expired := flagGauge("toolgate_runtime_bundle_expired", "1 while the bundle in force has expired (every tool refused).",
		func() bool { return r.Status().Expired })
	m.reg.MustRegister(m.calls, m.attempts, m.duration, m.fetches, m.refusals, m.version, m.tools, m.withheld, age, stale,
		expired, newBreakerCollector(r))
	return m
}

// flagGauge is a gauge that reads 1 while on() holds, 0 otherwise.
func flagGauge(name, help string, on func() bool) prometheus.GaugeFunc {
	return prometheus.NewGaugeFunc(prometheus.GaugeOpts{Name: name, Help: help}, func() float64 {
		if on() {
			return 1
		}
		return 0
	})
}

// call counts one finished call. A successful one goes through the tool's
// kept series (the same children the vectors hold); a failure through the
// vectors, so a tool that never succeeded shows no OK series.
func (m *metrics) call(res *executor.Result, class string) {
	if class != ClassOK {
		m.calls.WithLabelValues(res.Tool, class).Inc()
		m.attempts.WithLabelValues(res.Tool).Add(float64(res.Attempts))
		m.duration.WithLabelValues(res.Tool).Observe(res.Duration.Seconds())
		return
	}
	ts := m.seriesOf(res.Tool)
	ts.ok.Inc()
	ts.attempts.Add(float64(res.Attempts))
	ts.duration.Observe(res.Duration.Seconds())
}

func (m *metrics) fetch(result string) { m.fetches.WithLabelValues(result).Inc() }

func (m *metrics) listed(n int) { m.tools.Set(float64(n)) }

func (m *metrics) installed(b *bundle.Bundle, withheld int) {
	m.version.Set(float64(b.Version))
	m.withheld.Set(float64(withheld))
}

// refusalReasons maps bundle.Verify's sentinels to metric labels.
var refusalReasons = []struct {
	err    error
	reason string
}{
	{bundle.ErrUnsigned, "unsigned"}, {bundle.ErrAlgorithm, "algorithm"}, {bundle.ErrUnknownKey, "unknown_key"},
	{bundle.ErrTampered, "tampered"}, {bundle.ErrSchema, "schema"}, {bundle.ErrUnknownSchema, "unknown_schema"},
	{bundle.ErrStaleVersion, "stale_version"},
	{bundle.ErrExpired, "expired"}, {bundle.ErrNotYetValid, "not_yet_valid"},
}

func (m *metrics) refused(err error) {
	m.fetch("refused")
	reason := "other"
	for _, rr := range refusalReasons {
		if errors.Is(err, rr.err) {
			reason = rr.reason
			break
		}
	}
	m.refusals.WithLabelValues(reason).Inc()
}

// MetricsHandler serves the runtime's metrics in the Prometheus text format.
func (r *Runtime) MetricsHandler() http.Handler {
	return promhttp.HandlerFor(r.metrics.reg, promhttp.HandlerOpts{Registry: r.metrics.reg})
}
