package store

import (
	"context"
	"testing"
	"time"

	"github.com/toolgate/toolgate/internal/callrecord"
	"github.com/toolgate/toolgate/internal/callsummary"
	"github.com/toolgate/toolgate/internal/risk"
)

func testSummary(tool, class string, status int, minute time.Time, calls int64, principals ...string) callsummary.Summary {
	s := callsummary.Summary{Minute: minute, Tool: tool, Principals: principals,
		Counts: callsummary.Counts{Decision: callrecord.DecisionOf(class), Class: class, Status: status, Calls: calls, Attempts: calls}}
	s.Latency[3] = calls
	return s
}

// Minute summaries replace what the same instance reported for the same
// minute (a batch sent twice changes nothing), leave out unknown tools and
// minutes past retention, roll up into hours and days that hold every
// call, and are read over 24 h and 7 d windows, with who made the calls.
func TestCallSummariesStoredRolledUpRead(t *testing.T) {
	db := MustOpen(t)
	ctx := context.Background()
	MustAddTool(t, db, FixtureTool{Source: "orders", Name: "get_order", Method: "GET", Path: "/orders/{id}", Class: risk.Read})
	now := time.Date(2026, 3, 10, 12, 30, 0, 0, time.UTC)
	ret := callsummary.DefaultRetention
	oldest := now.Add(-ret.Minutes)
	m := func(ago time.Duration) time.Time { return callsummary.Minute(now.Add(-ago)) }
	batch := []callsummary.Summary{
		testSummary("get_order", "OK", 200, m(time.Minute), 5, "token:a", "token:b"),
		testSummary("get_order", "SERVER_ERROR", 503, m(time.Minute), 2),
		testSummary("get_order", "OK", 200, m(30*time.Hour), 7, "token:c"),
		testSummary("get_order", "TOOL_NOT_EXPOSED", 0, m(2*time.Minute), 1, "token:z"),
		testSummary("no_such_tool", "OK", 200, m(time.Minute), 1),
		testSummary("get_order", "OK", 200, m(50*time.Hour), 9),
	}
	for range 2 {
		n, err := db.StoreCallSummaries(ctx, 1, "inst-a", batch, oldest)
		if err != nil || n != 4 {
			t.Fatalf("stored %d, %v; want 4 (unknown tool and past retention left out)", n, err)
		}
	}
	// The same minute again, with more calls: replaced, not added.
	if _, err := db.StoreCallSummaries(ctx, 1, "inst-a", []callsummary.Summary{testSummary("get_order", "OK", 200, m(time.Minute), 6, "token:a")}, oldest); err != nil {
		t.Fatal(err)
	}
	if _, err := db.StoreCallSummaries(ctx, 2, "inst-b", []callsummary.Summary{testSummary("get_order", "OK", 200, m(3*time.Minute), 1, "token:d")}, oldest); err != nil {
		t.Fatal(err)
	}
	day := SummaryWindow{Since: now.Add(-24 * time.Hour), ByMinute: callsummary.ByMinuteFrom(now)}
	week := SummaryWindow{Since: now.Add(-7 * 24 * time.Hour), ByMinute: callsummary.ByMinuteFrom(now)}
	wantCalls := func(w SummaryWindow, want map[string]int64) {
		t.Helper()
		got, err := db.CallOutcomes(ctx, "get_order", w)
		if err != nil {
			t.Fatal(err)
		}
		have := map[string]int64{}
		for _, c := range got {
			have[c.Class] += c.Calls
			if c.Latency[3] != c.Calls || c.Attempts != c.Calls {
				t.Errorf("counts of %s not summed whole: %+v", c.Class, c)
			}
		}
		if len(have) != len(want) {
			t.Fatalf("outcomes %v, want %v", have, want)
		}
		for k, v := range want {
			if have[k] != v {
				t.Fatalf("outcomes %v, want %v", have, want)
			}
		}
	}
	wantCalls(day, map[string]int64{"OK": 7, "SERVER_ERROR": 2, "TOOL_NOT_EXPOSED": 1})
	// Before a rollup the 30-hour-old minute is in no hour yet.
	wantCalls(week, map[string]int64{"OK": 7, "SERVER_ERROR": 2, "TOOL_NOT_EXPOSED": 1})
	for range 2 {
		if err := db.RollupCallSummaries(ctx, now, ret); err != nil {
			t.Fatal(err)
		}
	}
	wantCalls(day, map[string]int64{"OK": 7, "SERVER_ERROR": 2, "TOOL_NOT_EXPOSED": 1})
	wantCalls(week, map[string]int64{"OK": 14, "SERVER_ERROR": 2, "TOOL_NOT_EXPOSED": 1})

	reach, err := db.CallReaches(ctx, []string{"get_order", "no_such_tool"}, week)
	if err != nil {
		t.Fatal(err)
	}
	if got := reach["get_order"]; got != (CallReach{Calls: 16, Runtimes: 2, Principals: 4}) || len(reach) != 1 {
		t.Fatalf("reach %+v, want 16 allowed calls (denied ones not) from 2 runtimes and 4 principals (a, b, c, d)", reach)
	}

	// Days later: minutes and hours pruned, the day rows keep the totals.
	later := now.Add(40 * 24 * time.Hour)
	if err := db.RollupCallSummaries(ctx, later, ret); err != nil {
		t.Fatal(err)
	}
	var grains []struct {
		Grain string `db:"grain"`
		Calls int64  `db:"calls"`
	}
	if err := db.db.SelectContext(ctx, &grains, `SELECT grain, CAST(SUM(calls) AS BIGINT) AS calls FROM call_summaries GROUP BY grain`); err != nil {
		t.Fatal(err)
	}
	if len(grains) != 1 || grains[0].Grain != "day" || grains[0].Calls != 17 {
		t.Fatalf("after 40 days %+v, want only day rows holding all 17 calls", grains)
	}
	var principals int
	if err := db.db.GetContext(ctx, &principals, `SELECT count(*) FROM call_summary_principals`); err != nil || principals != 0 {
		t.Fatalf("%d principal rows after 40 days (%v)", principals, err)
	}
}
