package web

import (
	"context"
	"testing"
	"time"

	"github.com/toolgate/toolgate/internal/callrecord"
)

// rowOf is the selector of a picture's table row whose heading is heading.
func rowOf(picture, heading string, cells ...string) check {
	checks := []check{}
	for i, c := range cells {
		checks = append(checks, in("td:nth-of-type("+itoa(int64(i+1))+")", textIs(c)))
	}
	return in(tid(picture+"-numbers")+" tbody tr:has(th[scope=row]:contains('"+heading+"'))", checks...)
}

// Each picture is drawn from what the store holds: the dashboard's
// exposure per source and calls of the last 24 hours (a call 30 hours
// ago is left out), the Runtimes page's fleet by version and staleness,
// the Bundles page's versions with their tools.
func TestPicturesFromTheData(t *testing.T) {
	a := newPublishApp(t)
	seedDashboard(t, a)
	ctx := context.Background()
	tok, err := a.db.ListRuntimeTokens(ctx)
	if err != nil {
		t.Fatal(err)
	}
	now := time.Now().UTC()
	call := func(at time.Time, decision, class string) callrecord.Record {
		d, _ := callrecord.ArgumentsDigest(nil)
		return callrecord.Record{ID: callrecord.NewID(), Tool: "orders_list", ArgumentsDigest: d, Principal: callrecord.Principal{Kind: "local"},
			Decision: decision, Class: class, At: at}
	}
	earlier := now.Add(-2 * time.Hour)
	if err := a.db.RecordCalls(ctx, tok[0].ID, []callrecord.Record{call(now, callrecord.Allowed, callrecord.ClassOK),
		call(now, callrecord.Allowed, callrecord.ClassOK), call(now, callrecord.Allowed, "OUTCOME_UNKNOWN"),
		call(earlier, callrecord.Allowed, "TIMEOUT"), call(earlier, callrecord.DeniedExposure, "TOOL_NOT_EXPOSED"),
		call(now.Add(-30*time.Hour), callrecord.Allowed, callrecord.ClassOK)}); err != nil {
		t.Fatal(err)
	}
	hour := func(t time.Time) string { return consoleTime(t.Truncate(time.Hour)) }

	rec := a.do(request{method: "GET", path: "/", cookie: a.sessionCookie("viewer")})
	wantStatus(t, rec, 200)
	wantPage(t, rec,
		in(tid("dash-sources-picture")+" svg[role=img] desc", hasText("orders: 2 of 3 exposed; billing: 0 of 1 exposed.")),
		rowOf("dash-sources-picture", "orders", "2", "0", "0", "0", "1", "3"),
		rowOf("dash-sources-picture", "billing", "0", "0", "0", "0", "1", "1"),
		in(tid("dash-outcomes-picture")+" svg[role=img] desc", hasText("5 calls since")),
		count(tid("dash-outcomes-picture-numbers")+" tbody tr", 2),
		rowOf("dash-outcomes-picture", hour(now), "2", "0", "0", "1", "0", "3"),
		rowOf("dash-outcomes-picture", hour(earlier), "0", "0", "1", "0", "1", "2"))

	rec = a.do(request{method: "GET", path: "/runtimes", cookie: a.sessionCookie("viewer")})
	wantStatus(t, rec, 200)
	wantPage(t, rec, rowOf("fleet-picture", "v1 (current)", "1", "1", "2"), rowOf("fleet-picture", "none yet", "1", "0", "1"))

	b, err := a.db.LatestBundle(ctx)
	if err != nil {
		t.Fatal(err)
	}
	rec = a.do(request{method: "GET", path: "/bundles", cookie: a.sessionCookie("viewer")})
	wantStatus(t, rec, 200)
	wantPage(t, rec, rowOf("bundles-picture", "v1, "+consoleTime(b.IssuedAt), "2", "0", "2"))
}
