package runtime

import (
	"bytes"
	"context"
	"strings"
	"testing"
	"time"

	"github.com/toolgate/toolgate/internal/testing/syncbuf"
)

// TestExpiryIsLoggedReportedAndInMetrics: a bundle that expires while the
// console keeps confirming it (nobody published for its whole lifetime)
// drops every tool; that is logged once at ERROR, the expired gauge says
// so, and the next fetch tells the console's fleet view. Turning stale is
// logged too, and so is a fresh bundle afterwards.
func TestExpiryIsLoggedReportedAndInMetrics(t *testing.T) {
	k := testKey(t, 1)
	_, up := upstream(t)
	con := newFakeConsole(t, keySet(k))
	clk := newClock()
	con.publish(signBundle(t, k, 1, clk.Now(), time.Hour, up.URL, getOrderTool(), deleteOrderTool()))
	logs := &syncbuf.Buffer{}
	r := newRuntime(t, rtOpts{keys: keySet(k), clock: clk, console: con.URL, logs: logs})
	mustSync(t, r)
	wantMetrics(t, scrape(t, r), "toolgate_runtime_bundle_expired 0", "toolgate_runtime_bundle_stale 0")

	con.setDown(true)
	clk.Advance(11 * time.Minute)
	r.reconcile() // what Run does when the staleness boundary passes
	if got := logs.String(); !strings.Contains(got, `"level":"WARN","msg":"bundle stale`) || !strings.Contains(got, "maximum staleness") {
		t.Errorf("turning stale is not logged with its reason:\n%s", got)
	}
	con.setDown(false)
	clk.Advance(time.Hour)
	mustSync(t, r) // a 304: confirmed, but expired all the same
	r.reconcile()
	r.reconcile()
	if n := bytes.Count([]byte(logs.String()), []byte(`"level":"ERROR","msg":"bundle expired`)); n != 1 {
		t.Errorf("expiry logged %d times at ERROR, want once:\n%s", n, logs.String())
	}
	wantMetrics(t, scrape(t, r), "toolgate_runtime_bundle_expired 1", "toolgate_runtime_bundle_version 1")
	if st := r.Status(); !st.Expired {
		t.Errorf("status = %+v, want expired", st)
	}
	wantWithdrawn(t, r, "getOrder", "expired")
	mustSync(t, r)
	reqs := con.requests()
	if got := reqs[len(reqs)-1].Get(HeaderRefused); !strings.Contains(got, "expired: bundle v1 expired at 2025-06-01T13:00:00Z") {
		t.Errorf("fleet report = %q, want the expiry", got)
	}

	con.publish(signBundle(t, k, 2, clk.Now(), time.Hour, up.URL, getOrderTool()))
	mustSync(t, r)
	if !strings.Contains(logs.String(), "bundle fresh again") {
		t.Errorf("the fresh bundle is not logged:\n%s", logs.String())
	}
	wantMetrics(t, scrape(t, r), "toolgate_runtime_bundle_expired 0")
	if res := r.Call(context.Background(), "getOrder", map[string]any{"order_id": "ord_0001"}); res.Attempts != 1 {
		t.Errorf("getOrder of the fresh bundle not sent: %+v", res.Err)
	}
}
