package store

import (
	"context"
	"testing"
	"time"

	"github.com/toolgate/toolgate/internal/callrecord"
	"github.com/toolgate/toolgate/internal/risk"
)

// The dashboard counts each source's live tools by class and exposure;
// a change of exposure shows on the next read (triggers bump the
// generation the cache follows), and a caller changing what it got does not change the cache.
func TestDashboardBySource(t *testing.T) {
	db := MustOpen(t)
	ctx := context.Background()
	MustAddTool(t, db, FixtureTool{Source: "orders", Name: "list_orders", Method: "GET", Path: "/orders", Class: risk.Read, Exposed: true})
	MustAddTool(t, db, FixtureTool{Source: "orders", Name: "delete_order", Method: "DELETE", Path: "/orders/{id}", Class: risk.Destructive})
	MustAddTool(t, db, FixtureTool{Source: "admin", Name: "grant", Method: "PUT", Path: "/grants", Class: risk.Privileged})
	f, err := db.Dashboard(ctx, DashboardQuery{})
	if err != nil {
		t.Fatal(err)
	}
	if len(f.BySource) != 2 || f.BySource[0].Source != "admin" || f.BySource[1].Source != "orders" {
		t.Fatalf("by source %+v", f.BySource)
	}
	o := f.BySource[1]
	if o.Tools["READ"] != 1 || o.Exposed["READ"] != 1 || o.Tools["DESTRUCTIVE"] != 1 || o.Exposed["DESTRUCTIVE"] != 0 ||
		f.BySource[0].Tools["PRIVILEGED"] != 1 {
		t.Fatalf("orders %+v, admin %+v", o, f.BySource[0])
	}
	o.Tools["READ"] = 99
	if _, err := db.db.ExecContext(ctx, `UPDATE tool_policies SET exposed = 0`); err != nil {
		t.Fatal(err)
	}
	f, _ = db.Dashboard(ctx, DashboardQuery{})
	if o := f.BySource[1]; o.Tools["READ"] != 1 || o.Exposed["READ"] != 0 {
		t.Fatalf("after hiding: orders %+v", o)
	}
}

// Call outcomes are counted by hour, decision and class over the window
// only, oldest hour first, on both engines.
func TestCallOutcomesByHour(t *testing.T) {
	db, tok := callsDB(t)
	ctx := context.Background()
	until := time.Date(2026, 12, 2, 14, 0, 0, 0, time.UTC)
	since := until.Add(-24 * time.Hour)
	db.Now = func() time.Time { return until }
	rec := func(at time.Time, decision, class string) callrecord.Record {
		r := testCallRecord("list_orders", "agent", at)
		r.Decision, r.Class = decision, class
		return r
	}
	recs := []callrecord.Record{
		rec(since.Add(-time.Second), callrecord.Allowed, callrecord.ClassOK), // before the window
		rec(since, callrecord.Allowed, callrecord.ClassOK),
		rec(since.Add(59*time.Minute), callrecord.Allowed, callrecord.ClassOK),
		rec(since.Add(30*time.Minute), callrecord.Allowed, "TIMEOUT"),
		rec(until.Add(-time.Minute), callrecord.DeniedExposure, "TOOL_NOT_EXPOSED"),
		rec(until, callrecord.Allowed, callrecord.ClassOK), // after it
	}
	if err := db.RecordCalls(ctx, tok, recs); err != nil {
		t.Fatal(err)
	}
	got, err := db.CallOutcomesByHour(ctx, since, until)
	if err != nil {
		t.Fatal(err)
	}
	want := []CallOutcomeCount{{since, callrecord.Allowed, callrecord.ClassOK, 2}, {since, callrecord.Allowed, "TIMEOUT", 1},
		{until.Add(-time.Hour), callrecord.DeniedExposure, "TOOL_NOT_EXPOSED", 1}}
	if len(got) != len(want) {
		t.Fatalf("got %+v, want %+v", got, want)
	}
	for i := range want {
		if !got[i].Hour.Equal(want[i].Hour) || got[i].Decision != want[i].Decision || got[i].Class != want[i].Class || got[i].Calls != want[i].Calls {
			t.Errorf("row %d: %+v, want %+v", i, got[i], want[i])
		}
	}
	if none, err := db.CallOutcomesByHour(ctx, until.Add(time.Hour), until.Add(2*time.Hour)); err != nil || len(none) != 0 {
		t.Errorf("an empty window: %+v, %v", none, err)
	}
}

// The fleet is counted by the version each instance runs, newest first,
// with those not seen since the cut-off counted as quiet.
func TestRuntimeFleetByVersion(t *testing.T) {
	db := MustOpen(t)
	ctx := context.Background()
	tok, _, err := db.CreateRuntimeToken(ctx, "test", "edge")
	if err != nil {
		t.Fatal(err)
	}
	now := time.Now().UTC()
	for i, f := range []struct {
		version int64
		ago     time.Duration
	}{{2, time.Minute}, {2, time.Hour}, {1, time.Minute}, {0, 2 * time.Hour}} {
		if err := db.RecordRuntimeFetch(ctx, RuntimeFetch{TokenID: tok.ID, InstanceID: string(rune('a' + i)), Name: "rt",
			Version: f.version, At: now.Add(-f.ago)}); err != nil {
			t.Fatal(err)
		}
	}
	got, err := db.RuntimeFleet(ctx, now.Add(-10*time.Minute))
	if err != nil {
		t.Fatal(err)
	}
	want := []FleetVersion{{2, 2, 1}, {1, 1, 0}, {0, 1, 1}}
	if len(got) != len(want) || got[0] != want[0] || got[1] != want[1] || got[2] != want[2] {
		t.Fatalf("fleet %+v, want %+v", got, want)
	}
}

// Settled hours are read once and kept; the hours still filling are read
// on every call, so a new call shows at once, while a record arriving for
// a settled hour waits for the next start (OutcomesSettle).
func TestCallOutcomesSettledHoursCached(t *testing.T) {
	db, tok := callsDB(t)
	ctx := context.Background()
	now := time.Date(2026, 12, 2, 14, 20, 0, 0, time.UTC)
	db.Now = func() time.Time { return now }
	until := now.Truncate(time.Hour).Add(time.Hour)
	since := until.Add(-24 * time.Hour)
	record := func(at time.Time) {
		t.Helper()
		if err := db.RecordCalls(ctx, tok, []callrecord.Record{testCallRecord("list_orders", "agent", at)}); err != nil {
			t.Fatal(err)
		}
	}
	calls := func() map[int]int {
		t.Helper()
		got, err := db.CallOutcomesByHour(ctx, since, until)
		if err != nil {
			t.Fatal(err)
		}
		out := map[int]int{}
		for _, c := range got {
			out[c.Hour.Hour()] += c.Calls
		}
		return out
	}
	record(now.Add(-2 * time.Hour)) // 12:20, settled
	record(now.Add(-5 * time.Minute))
	if got := calls(); got[12] != 1 || got[14] != 1 || len(got) != 2 {
		t.Fatalf("first read %v", got)
	}
	record(now.Add(-2*time.Hour + time.Minute)) // late, for a settled hour
	record(now.Add(-time.Minute))
	if got := calls(); got[12] != 1 || got[14] != 2 {
		t.Fatalf("second read %v: want 12:00 from the cache, 14:00 read again", got)
	}
	db.outcomes = outcomesCache{} // a restart
	if got := calls(); got[12] != 2 {
		t.Fatalf("after a restart %v", got)
	}
}

// callsDB is a store with the tool list_orders and a runtime token to
// report its calls with.
func callsDB(tb testing.TB) (*DB, int64) {
	tb.Helper()
	db := MustOpen(tb)
	MustAddTool(tb, db, FixtureTool{Source: "orders", Name: "list_orders", Method: "GET", Path: "/orders", Class: risk.Read})
	tok, _, err := db.CreateRuntimeToken(context.Background(), "test", "edge")
	if err != nil {
		tb.Fatal(err)
	}
	return db, tok.ID
}
