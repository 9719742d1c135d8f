package runtime

import (
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	dto "github.com/prometheus/client_model/go"

	"github.com/toolgate/toolgate/internal/executor"
)

// Successful calls go through the kept series and failures through the
// vectors: both land in the same children, and a tool that only failed
// has no OK series.
func TestCallMetricsKeptSeriesAndVectorsAgree(t *testing.T) {
	m := newMetrics(&Runtime{})
	fail := &executor.Result{Tool: "deleteThing", Attempts: 2, Duration: time.Second,
		Err: &executor.Error{Class: executor.ClassNetwork}}
	m.call(fail, string(executor.ClassNetwork))
	if n := countSeries(m.calls); n != 1 {
		t.Fatalf("after one failed call: %d call series, want 1 (no OK series for a tool that never succeeded)", n)
	}
	ok := &executor.Result{Tool: "getThing", OK: true, Attempts: 1, Duration: time.Millisecond}
	for range 3 {
		m.call(ok, ClassOK)
	}
	m.call(&executor.Result{Tool: "getThing", Attempts: 3, Duration: time.Second,
		Err: &executor.Error{Class: executor.ClassTimeout}}, string(executor.ClassTimeout))
	for _, c := range []struct {
		got  float64
		want float64
		what string
	}{
		{counterValue(t, m.calls.WithLabelValues("getThing", ClassOK)), 3, "getThing OK calls"},
		{counterValue(t, m.calls.WithLabelValues("getThing", string(executor.ClassTimeout))), 1, "getThing TIMEOUT calls"},
		{counterValue(t, m.attempts.WithLabelValues("getThing")), 6, "getThing attempts (3 OK + 3 failed)"},
		{counterValue(t, m.attempts.WithLabelValues("deleteThing")), 2, "deleteThing attempts"},
	} {
		if c.got != c.want {
			t.Errorf("%s = %v, want %v", c.what, c.got, c.want)
		}
	}
	if n := countSeries(m.duration); n != 2 {
		t.Errorf("%d duration series, want 2", n)
	}
}

// countSeries is how many series c holds.
func countSeries(c prometheus.Collector) int {
	ch := make(chan prometheus.Metric, 64)
	c.Collect(ch)
	close(ch)
	return len(ch)
}

func counterValue(t *testing.T, c prometheus.Counter) float64 {
	t.Helper()
	var out dto.Metric
	if err := c.Write(&out); err != nil {
		t.Fatal(err)
	}
	return out.GetCounter().GetValue()
}
