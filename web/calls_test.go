package web

import (
	"context"
	"encoding/json"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/toolgate/toolgate/internal/callrecord"
	"github.com/toolgate/toolgate/internal/policy"
	"github.com/toolgate/toolgate/internal/principal"
	"github.com/toolgate/toolgate/internal/risk"
	"github.com/toolgate/toolgate/internal/runtime"
	"github.com/toolgate/toolgate/internal/store"
	"github.com/toolgate/toolgate/internal/store/storetest"
)

// TestCallRecordsFromARuntime, end to end: a runtime fetching from this
// console calls an upstream once (allowed) and a tool the bundle leaves
// out (denied); on its next fetch it delivers both records, and the tool's
// Calls page shows each with its principal, decision and arguments digest
// — the argument values are nowhere in the stored rows or the pages.
func TestCallRecordsFromARuntime(t *testing.T) {
	a := newPublishApp(t)
	var hits atomic.Int32
	up := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hits.Add(1)
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write([]byte(`{"ok":true}`))
	}))
	t.Cleanup(up.Close)
	storetest.MustAddTool(t, a.db, storetest.FixtureTool{Source: "orders", Origin: up.URL, Name: "get_order", Method: "GET",
		Path: "/orders/{order_id}", Class: risk.Read, Exposed: true})
	storetest.MustAddTool(t, a.db, storetest.FixtureTool{Source: "orders", Name: "delete_order", Method: "DELETE",
		Path: "/orders/{order_id}", Class: risk.Destructive})
	storetest.MustAddTool(t, a.db, storetest.FixtureTool{Source: "orders", Origin: up.URL, Name: "billing_order", Method: "GET",
		Path: "/billing/{order_id}", Class: risk.Read, Exposed: true,
		Policy: &policy.Policy{Exposed: true, Groups: []string{"billing"}}})
	storetest.MustAddTool(t, a.db, storetest.FixtureTool{Source: "orders", Origin: up.URL, Name: "frozen_order", Method: "GET",
		Path: "/frozen/{order_id}", Class: risk.Read, Exposed: true,
		Policy: &policy.Policy{Exposed: true, Conditions: []policy.Condition{{Effect: policy.ConditionDeny, Expr: "true", Message: "frozen"}}}})
	a.publish("first")
	console := httptest.NewServer(a.srv)
	t.Cleanup(console.Close)
	rt, err := runtime.New(runtime.Options{ConsoleURL: console.URL, Token: a.token("edge"), Name: "rt", DataDir: t.TempDir(),
		TrustOnFirstUse: true, Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	if err := rt.Sync(ctx); err != nil {
		t.Fatal(err)
	}
	const secret = "order-secret-4711"
	agent := principal.NewContext(ctx, principal.New(principal.Token, "agent-7", "client-9", []string{"ops"}))
	if res := rt.Call(agent, "get_order", map[string]any{"order_id": secret}); res.Err != nil || hits.Load() != 1 {
		t.Fatalf("allowed call: %+v, %d upstream hits", res.Err, hits.Load())
	}
	if res := rt.Call(agent, "delete_order", map[string]any{"order_id": secret}); res.Err == nil || hits.Load() != 1 {
		t.Fatalf("denied call: %+v, %d upstream hits", res, hits.Load())
	}
	// Outside the tool's groups, and refused by a condition: nothing sent.
	for _, name := range []string{"billing_order", "frozen_order"} {
		if res := rt.Call(agent, name, map[string]any{"order_id": secret}); res.Err == nil || hits.Load() != 1 {
			t.Fatalf("%s: %+v, %d upstream hits", name, res, hits.Load())
		}
	}
	if err := rt.Sync(ctx); err != nil { // delivers the records
		t.Fatal(err)
	}

	recs, total, err := a.db.CallRecordsPage(ctx, store.CallRecordFilter{Limit: 10})
	if err != nil || total != 4 {
		t.Fatalf("stored %d records: %v", total, err)
	}
	stored, _ := json.Marshal(recs)
	if strings.Contains(string(stored), secret) {
		t.Fatalf("the argument value is stored: %s", stored)
	}
	digest, _ := callrecord.ArgumentsDigest(map[string]any{"order_id": secret})
	viewer := a.sessionCookie("viewer")
	toolPage := a.do(request{method: "GET", path: "/tools/get_order", cookie: viewer})
	wantHTML(t, toolPage.Body.String(), in("a[data-testid=tool-calls][href='/calls?tool=get_order']"))
	allowed := a.do(request{method: "GET", path: "/calls?tool=get_order", cookie: viewer})
	wantStatus(t, allowed, 200)
	wantHTML(t, allowed.Body.String(), count("tr[data-testid=call-row]", 1),
		in("tr[data-testid=call-row]", in("[data-testid=principal]", hasText("token:agent-7")), in("[data-testid=client-id]", hasText("client-9")),
			in("[data-testid=decision]", hasText("allowed")), in("[data-testid=outcome]", hasText("OK · HTTP 200 · 1 attempt")),
			in("[data-testid=arguments-digest]", hasAttr("title", digest)), in("[data-testid=definition-digest]", hasText("sha256:"))))
	denied := a.do(request{method: "GET", path: "/calls?tool=delete_order", cookie: viewer})
	wantHTML(t, denied.Body.String(), count("tr[data-testid=call-row]", 1),
		in("tr[data-testid=call-row]", in("[data-testid=decision].warn", hasText("denied_exposure")),
			in("[data-testid=outcome]", hasText("TOOL_NOT_EXPOSED · 0 attempts")), in("[data-testid=arguments-digest]", hasAttr("title", digest))))
	for tool, want := range map[string]string{"billing_order": "denied_group · TOOL_NOT_EXPOSED", "frozen_order": "denied_condition · POLICY_DENIED"} {
		page := a.do(request{method: "GET", path: "/calls?tool=" + tool, cookie: viewer})
		decision, class, _ := strings.Cut(want, " · ")
		wantHTML(t, page.Body.String(), count("tr[data-testid=call-row]", 1),
			in("tr[data-testid=call-row]", in("[data-testid=decision]", hasText(decision)), in("[data-testid=outcome]", hasText(class))))
	}
	byWho := a.do(request{method: "GET", path: "/calls?principal=token:agent-7", cookie: viewer})
	wantHTML(t, byWho.Body.String(), count("tr[data-testid=call-row]", 4))
	for _, page := range []string{allowed.Body.String(), denied.Body.String(), byWho.Body.String()} {
		if strings.Contains(page, secret) {
			t.Fatal("a Calls page shows the argument value")
		}
	}
}

// TestCallsPageMarksRefusalsOnly: denials are marked as such; a call
// waiting for a person's decision is not a denial.
func TestCallsPageMarksRefusalsOnly(t *testing.T) {
	for decision, want := range map[string]bool{callrecord.Allowed: false, callrecord.AwaitingDecision: false,
		callrecord.DeniedExposure: true, callrecord.DeniedGroup: true, callrecord.DeniedCondition: true, callrecord.DeniedPerCall: true} {
		if got := refused(decision); got != want {
			t.Errorf("refused(%s) = %v, want %v", decision, got, want)
		}
	}
}
