package runtime

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/toolgate/toolgate/internal/bundle"
	"github.com/toolgate/toolgate/internal/executor"
)

// wantWithdrawn checks a call of tool was refused before anything was
// sent, with a message containing want.
func wantWithdrawn(t *testing.T, rt *Runtime, tool, want string) {
	t.Helper()
	res := rt.Call(context.Background(), tool, map[string]any{"order_id": "ord_0001"})
	if res.Err == nil || res.Err.Class != executor.ClassToolNotExposed || res.Attempts != 0 || !strings.Contains(res.Err.Message, want) {
		t.Fatalf("%s = %+v (attempts %d), want TOOL_NOT_EXPOSED mentioning %q, nothing sent", tool, res.Err, res.Attempts, want)
	}
}

// TestFrozenRegistryWithdrawsRiskyToolsAtOnce: the console publishes v2,
// which withdraws the DESTRUCTIVE deleteOrder, and its timestamp reaches
// the registry, but the bundle does not (the registry refuses it, or keeps
// serving the old one). The runtime is stale at the next poll, well within
// --max-staleness: deleteOrder is refused, and log, metrics and the fleet
// report say the registry serves old content. Once v2 arrives it is fresh.
func TestFrozenRegistryWithdrawsRiskyToolsAtOnce(t *testing.T) {
	k := testKey(t, 1)
	_, up := upstream(t)
	clk := newClock()
	con := newFakeConsole(t, keySet(k)) // the fleet view; bundles come from the registry
	f := newRegistryFixture(t, k, clk, con.URL)
	v1 := signBundle(t, k, 1, clk.Now(), 0, up.URL, getOrderTool(), deleteOrderTool())
	f.publish(t, 1, v1)
	mustSync(t, f.rt)
	wantServed(t, f.rt, "deleteOrder")

	clk.Advance(30 * time.Second)
	v2 := signBundle(t, k, 2, clk.Now(), 0, up.URL, getOrderTool())
	f.stamp(t, k, 2, v2) // the timestamp names v2; v2 itself never reaches the registry
	err := f.rt.Sync(context.Background())
	if !errors.Is(err, ErrRegistryBehind) {
		t.Fatalf("Sync = %v, want %v", err, ErrRegistryBehind)
	}
	if st := f.rt.Status(); !st.Stale || st.Behind != 2 || st.Version != 1 {
		t.Fatalf("status = %+v, want stale, serving v1, behind the v2 the timestamp names", st)
	}
	wantWithdrawn(t, f.rt, "deleteOrder", "the registry serves bundle v1 but the console's signed timestamp names v2")
	wantServed(t, f.rt, "getOrder")
	wantMetrics(t, scrape(t, f.rt), "toolgate_runtime_bundle_stale 1")
	if logs := f.logs.String(); !strings.Contains(logs, "the registry serves old content") || !strings.Contains(logs, "bundle stale") {
		t.Errorf("the log does not say the registry serves old content:\n%s", logs)
	}
	mustSyncOrBehind(t, f.rt) // the next poll carries the report
	reqs := con.requests()
	if got := reqs[len(reqs)-1].Get(HeaderRefused); !strings.Contains(got, "stale: the registry serves bundle v1") {
		t.Errorf("fleet report = %q, want the staleness and its reason", got)
	}

	f.pushBundle(t, 2, v2)
	mustSync(t, f.rt)
	if st := f.rt.Status(); st.Stale || st.Version != 2 || st.Behind != 0 {
		t.Fatalf("after v2 reached the registry: %+v", st)
	}
	wantWithdrawn(t, f.rt, "deleteOrder", "not in bundle v2")
}

func mustSyncOrBehind(t *testing.T, rt *Runtime) {
	t.Helper()
	if err := rt.Sync(context.Background()); err != nil && !errors.Is(err, ErrRegistryBehind) {
		t.Fatal(err)
	}
}

// TestRegistryLatestLaggingBehindTimestamp: latest was put back at v1
// while v2 is in the registry under its own tag; the timestamp names v2,
// so the runtime takes v2 from its tag and is fresh.
func TestRegistryLatestLaggingBehindTimestamp(t *testing.T) {
	k := testKey(t, 1)
	_, up := upstream(t)
	clk := newClock()
	f := newRegistryFixture(t, k, clk, "")
	f.publish(t, 1, signBundle(t, k, 1, clk.Now(), 0, up.URL, getOrderTool(), deleteOrderTool()))
	f.publish(t, 2, signBundle(t, k, 2, clk.Now(), 0, up.URL, getOrderTool()))
	f.retagLatest(t, "v1")
	mustSync(t, f.rt)
	if st := f.rt.Status(); st.Version != 2 || st.Stale {
		t.Fatalf("status = %+v, want v2 taken from its own tag, fresh", st)
	}
}

// TestFrozenTimestampTurnsStaleWithinMaxStaleness: a timestamp re-signed
// every minute keeps the runtime fresh for as long as it comes (here 20
// minutes, twice --max-staleness); once the registry freezes altogether
// (the same old timestamp and bundle on every poll), the runtime is stale
// --max-staleness after the last timestamp was signed, not later.
func TestFrozenTimestampTurnsStaleWithinMaxStaleness(t *testing.T) {
	k := testKey(t, 1)
	_, up := upstream(t)
	clk := newClock()
	f := newRegistryFixture(t, k, clk, "")
	v1 := signBundle(t, k, 1, clk.Now(), 0, up.URL, getOrderTool(), deleteOrderTool())
	f.publish(t, 1, v1)
	mustSync(t, f.rt)
	for range 20 {
		clk.Advance(time.Minute)
		f.stamp(t, k, 1, v1)
		mustSync(t, f.rt)
		if f.rt.Status().Stale {
			t.Fatalf("stale at %s although a fresh timestamp came every minute", clk.Now())
		}
	}
	wantServed(t, f.rt, "deleteOrder")
	frozenAt := clk.Now()
	for clk.Now().Sub(frozenAt) <= 10*time.Minute {
		clk.Advance(30 * time.Second)
		_ = f.rt.Sync(context.Background())
		f.rt.reconcile()
	}
	if st := f.rt.Status(); !st.Stale || !st.ConfirmedAt.Equal(frozenAt) {
		t.Fatalf("status %s after the freeze = %+v, want stale, confirmed when the last timestamp was signed", clk.Now().Sub(frozenAt), st)
	}
	wantWithdrawn(t, f.rt, "deleteOrder", "longer than the maximum staleness")
	if logs := f.logs.String(); !strings.Contains(logs, "timestamp has expired") {
		t.Errorf("the expired timestamp is not logged:\n%s", logs)
	}
}

// TestRegistryTimestampWithoutOneNothingIsConfirmed: a registry without
// timestamps (a console that pushes none) leaves the bundle confirmed only
// as of its issue time; the registry answering does not make it fresh.
func TestRegistryTimestampWithoutOneNothingIsConfirmed(t *testing.T) {
	k := testKey(t, 1)
	_, up := upstream(t)
	clk := newClock()
	f := newRegistryFixture(t, k, clk, "")
	f.pushBundle(t, 1, signBundle(t, k, 1, clk.Now(), 0, up.URL, getOrderTool(), deleteOrderTool()))
	mustSync(t, f.rt)
	clk.Advance(11 * time.Minute)
	mustSync(t, f.rt)
	if st := f.rt.Status(); !st.Stale || !st.ConfirmedAt.Equal(t0) {
		t.Fatalf("status = %+v, want stale, confirmed only at the bundle's issue", st)
	}
	wantWithdrawn(t, f.rt, "deleteOrder", "maximum staleness")
	if n := strings.Count(f.logs.String(), "no valid registry timestamp"); n != 1 {
		t.Errorf("the missing timestamp was logged %d times, want once:\n%s", n, f.logs.String())
	}
}

// TestRegistryRefusesForgedTimestamps: a timestamp that is not the
// console's confirms nothing: signed by another key, a bundle in its
// place, bytes that are not a JWS, a valid one that expired, or one with
// the right kid and a forged signature. Each is refused and counted; the
// runtime turns stale --max-staleness after its bundle was issued.
func TestRegistryRefusesForgedTimestamps(t *testing.T) {
	k, other := testKey(t, 1), testKey(t, 2)
	_, up := upstream(t)
	v1 := func(*clock) []byte { return signBundle(t, k, 1, t0, 0, up.URL, getOrderTool(), deleteOrderTool()) }
	cases := []struct {
		name   string
		forge  func(f *registryFixture) []byte
		reason string
	}{
		{"other key", func(f *registryFixture) []byte { return mustTimestamp(t, other, 1, v1(f.clk), f.clk.Now()) }, "timestamp_unknown_key"},
		{"a bundle in its place", func(f *registryFixture) []byte { return v1(f.clk) }, "timestamp_schema"},
		{"unsigned", func(*registryFixture) []byte { return []byte(`{"version":1}`) }, "timestamp_unsigned"},
		{"expired", func(f *registryFixture) []byte {
			return mustTimestamp(t, k, 1, v1(f.clk), f.clk.Now().Add(-4*time.Minute))
		}, "timestamp_expired"},
		{"forged signature", func(f *registryFixture) []byte {
			good := string(mustTimestamp(t, k, 1, v1(f.clk), f.clk.Now()))
			forged := string(mustTimestamp(t, other, 1, v1(f.clk), f.clk.Now()))
			return []byte(good[:strings.LastIndexByte(good, '.')] + forged[strings.LastIndexByte(forged, '.'):])
		}, "timestamp_tampered"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			clk := newClock()
			f := newRegistryFixture(t, k, clk, "")
			f.pushBundle(t, 1, v1(clk))
			mustSync(t, f.rt)
			clk.Advance(11 * time.Minute)
			f.pushStamp(t, 1, c.forge(f))
			mustSync(t, f.rt)
			if st := f.rt.Status(); !st.Stale || !st.ConfirmedAt.Equal(t0) {
				t.Fatalf("status = %+v, want stale: a refused timestamp confirms nothing", st)
			}
			wantWithdrawn(t, f.rt, "deleteOrder", "maximum staleness")
			wantMetrics(t, scrape(t, f.rt), `toolgate_runtime_bundle_refusals_total{reason="`+c.reason+`"} 1`,
				"toolgate_runtime_bundle_stale 1")
		})
	}
}

func mustTimestamp(t *testing.T, k bundle.SigningKey, version int64, signed []byte, issued time.Time) []byte {
	t.Helper()
	ts, err := bundle.SignTimestamp(version, bundle.BundleDigest(signed), issued, 3*time.Minute, k)
	if err != nil {
		t.Fatal(err)
	}
	return ts
}
