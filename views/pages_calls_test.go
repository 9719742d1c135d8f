package views

import (
	"strings"
	"testing"
)

// TestCallsPage: a row per call record with its principal (linked to the
// principal's page), decision, outcome and digests, imported strings
// escaped; pages; an empty list says so.
func TestCallsPage(t *testing.T) {
	m := CallsView{Page: page("Calls"), Tool: "list_orders", Retention: "30 days",
		Rows: []CallRow{
			{At: "2026-12-01 10:00:00", Tool: "list_orders", Principal: "token:" + evil, PrincipalURL: "/calls?principal=token%3Ax",
				ClientID: evil, Decision: "allowed", Class: "OK", Status: 200, Attempts: 1, Duration: "12 ms",
				ArgumentsDigest: "sha256:" + strings.Repeat("a", 64), DefinitionDigest: "sha256:dd", TokenName: "edge"},
			{At: "2026-12-01 09:00:00", Tool: "list_orders", Principal: "anonymous:", PrincipalURL: "/calls?principal=anonymous%3A",
				Decision: "denied_exposure", Denied: true, Class: "TOOL_NOT_EXPOSED", Duration: "0 ms", ArgumentsDigest: "sha256:bb"},
		},
		Total: 60, PageNo: 2, Pages: 3, PrevURL: "/calls?tool=list_orders", NextURL: "/calls?page=3&tool=list_orders"}
	wantPage(t, CallsPage(m), "Calls of list_orders",
		in("a[data-testid=tool-link][href='/tools/list_orders']"),
		count("[data-testid=calls-table] tr[data-testid=call-row]", 2),
		in("tr[data-testid=call-row]:nth-child(1)", in("a[data-testid=principal][href='/calls?principal=token%3Ax']", hasText("token:"+evil)),
			in("[data-testid=client-id]", hasText("client "+evil)), in("[data-testid=decision]:not(.warn)", hasText("allowed")),
			in("[data-testid=outcome]", hasText("OK · HTTP 200 · 1 attempt")),
			in("[data-testid=arguments-digest]", hasText("sha256:aaaaaaaaaaaa…"), hasAttr("title", "sha256:"+strings.Repeat("a", 64))), in("[data-testid=definition-digest]", hasText("sha256:dd"))),
		in("tr[data-testid=call-row]:nth-child(2)", in("[data-testid=decision].warn", hasText("denied_exposure")),
			in("[data-testid=outcome]", hasText("TOOL_NOT_EXPOSED · 0 attempts")), none("[data-testid=definition-digest]"), none("[data-testid=client-id]")),
		in("[data-testid=calls-total]", hasText("60 calls · page 2 of 3")),
		in("nav.pager a[rel=prev][href='/calls?tool=list_orders']"), in("nav.pager a[rel=next][href='/calls?page=3&tool=list_orders']"))
	wantPage(t, CallsPage(CallsView{Page: page("Calls"), Principal: "oidc:ada", Retention: "30 days"}), "Calls for oidc:ada",
		in("[data-testid=no-calls]"), none("[data-testid=calls-table]"), none("[data-testid=tool-link]"))
}
