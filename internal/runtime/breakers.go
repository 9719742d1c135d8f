package runtime

import (
	"github.com/prometheus/client_golang/prometheus"

	"github.com/toolgate/toolgate/internal/executor"
)

// breakerCollector reports the circuit breakers of the executor in force
// at scrape time. Reading the breakers themselves, rather than what the
// last call saw, is what makes the gauge true: an open circuit turns
// half-open when its reset time passes without any call, and a tool never
// called since a swap still shows the state carried over (R7).
type breakerCollector struct {
	r           *Runtime
	open, state *prometheus.Desc
}

func newBreakerCollector(r *Runtime) *breakerCollector {
	return &breakerCollector{r: r,
		open: prometheus.NewDesc("toolgate_runtime_breaker_open",
			"1 while the tool's circuit breaker is open (calls refused with CIRCUIT_OPEN, no network), 0 when closed or half-open.",
			[]string{"tool"}, nil),
		state: prometheus.NewDesc("toolgate_runtime_breaker_state",
			"State of the tool's circuit breaker: 0 closed, 1 half-open (one probe call let through), 2 open.",
			[]string{"tool"}, nil),
	}
}

// breakerStateValue maps executor.BreakerState to the state gauge.
var breakerStateValue = map[string]float64{executor.BreakerClosed: 0, executor.BreakerHalfOpen: 1, executor.BreakerOpen: 2}

// Describe implements prometheus.Collector.
func (c *breakerCollector) Describe(ch chan<- *prometheus.Desc) {
	ch <- c.open
	ch <- c.state
}

// Collect implements prometheus.Collector: one pair of samples per tool of
// the bundle in force, none before the first bundle.
func (c *breakerCollector) Collect(ch chan<- prometheus.Metric) {
	s := c.r.snap.Load()
	if s == nil {
		return
	}
	for name := range s.tools {
		state, ok := s.exec.BreakerState(name)
		if !ok {
			continue
		}
		open := 0.0
		if state == executor.BreakerOpen {
			open = 1
		}
		ch <- prometheus.MustNewConstMetric(c.open, prometheus.GaugeValue, open, name)
		ch <- prometheus.MustNewConstMetric(c.state, prometheus.GaugeValue, breakerStateValue[state], name)
	}
}
