package web

import (
	"context"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/url"
	"sync/atomic"
	"testing"

	"github.com/toolgate/toolgate/internal/executor"
	"github.com/toolgate/toolgate/internal/policy"
	"github.com/toolgate/toolgate/internal/principal"
	"github.com/toolgate/toolgate/internal/risk"
	"github.com/toolgate/toolgate/internal/runtime"
	"github.com/toolgate/toolgate/internal/store"
	"github.com/toolgate/toolgate/internal/store/storetest"
)

// outcomesUpstream answers /orders/ok with 200, /orders/flaky with one
// 503 (Retry-After: 1) and then 200, /status with 503, and drops the
// connection of every POST after reading it (the outcome is unknown).
func outcomesUpstream(t *testing.T) *httptest.Server {
	var flaky atomic.Int32
	up := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch {
		case r.Method == http.MethodPost:
			conn, _, err := http.NewResponseController(w).Hijack()
			if err == nil {
				conn.Close()
			}
			return
		case r.URL.Path == "/status" || r.URL.Path == "/orders/flaky" && flaky.Add(1) == 1:
			w.Header().Set("Retry-After", "1")
			w.WriteHeader(http.StatusServiceUnavailable)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write([]byte(`{"ok":true}`))
	}))
	t.Cleanup(up.Close)
	return up
}

// A runtime fetching from this console calls an upstream: one OK call,
// one 503 that a retry turns into OK, a POST whose connection is lost
// (OUTCOME_UNKNOWN) and a 503 on a tool with retry off. On its next fetch
// it sends its call summaries, and each tool page shows the outcome
// counts; the next-bundle preview then names the callers of a tool it
// would withdraw and of one it would restrict.
func TestCallOutcomesFromARuntime(t *testing.T) {
	a := newPublishApp(t)
	up := outcomesUpstream(t)
	retry := policy.Policy{Exposed: true, TimeoutMS: 2000, DeadlineMS: 10000, Retry: policy.Retry{Attempts: 2, Multiplier: 1}}
	storetest.MustAddTool(t, a.db, storetest.FixtureTool{Source: "orders", Origin: up.URL, Name: "get_order", Method: "GET",
		Path: "/orders/{order_id}", Class: risk.Read, Exposed: true, Policy: &retry})
	storetest.MustAddTool(t, a.db, storetest.FixtureTool{Source: "orders", Origin: up.URL, Name: "create_order", Method: "POST",
		Path: "/orders", Class: risk.Write, Exposed: true})
	storetest.MustAddTool(t, a.db, storetest.FixtureTool{Source: "orders", Origin: up.URL, Name: "order_status", Method: "GET",
		Path: "/status", Class: risk.Read, Exposed: true, Policy: &policy.Policy{Exposed: true, Retry: policy.Retry{Attempts: 1}}})
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
	agent := principal.NewContext(ctx, principal.New(principal.Token, "agent-7", "client-9", nil))
	for _, c := range []struct {
		tool, id, want string
		attempts       int
	}{
		{"get_order", "ok", "", 1},
		{"get_order", "flaky", "", 2},
		{"create_order", "", "OUTCOME_UNKNOWN", 1},
		{"order_status", "", "SERVER_ERROR", 1},
	} {
		var args map[string]any
		if c.id != "" {
			args = map[string]any{"order_id": c.id}
		}
		res := rt.Call(agent, c.tool, args)
		if class := classOf(res.Err); class != c.want || res.Attempts != c.attempts {
			t.Fatalf("%s %s: class %q after %d attempts, want %q after %d", c.tool, c.id, class, res.Attempts, c.want, c.attempts)
		}
	}
	if err := rt.Sync(ctx); err != nil { // delivers the summaries
		t.Fatal(err)
	}

	viewer := a.sessionCookie("viewer")
	cell := func(row, window, text string) check {
		return in(`tr[data-testid="outcome-`+row+`"] td[data-window="`+window+`"]`, textIs(text))
	}
	page := a.do(request{method: "GET", path: "/tools/get_order", cookie: viewer})
	wantStatus(t, page, 200)
	wantPage(t, page, cell("calls", "24h", "2"), cell("calls", "7d", "2"), cell("retried", "24h", "1 · 1"),
		cell("retry-after", "24h", "1"), cell("unknown", "24h", "0"), cell("circuit-opens", "24h", "0"),
		in(`tr[data-testid="outcome-mix"] td[data-window="24h"] li[data-class="OK"]`, hasText("OK 2 (100 %)")),
		none(tid("outcome-covered")), in(`tr[data-testid="outcome-latency"] th`, hasText("timeout 2 s")),
		// The pictures of the last day by hour: both calls OK in this hour,
		// and their latency against the 2 s timeout.
		count(`[data-testid="outcomes-get_order-mix-picture-numbers"] tbody tr`, 1),
		in(`[data-testid="outcomes-get_order-mix-picture-numbers"] tbody tr td:nth-of-type(1)`, textIs("2")),
		in(`[data-testid="outcomes-get_order-mix-picture"] svg.plot[role=img]`),
		in(`[data-testid="outcomes-get_order-latency-picture"] svg line.r-ref`),
		in(`[data-testid="outcomes-get_order-latency-picture"] desc`, hasText("against the 2000 ms attempt timeout")))
	page = a.do(request{method: "GET", path: "/tools/create_order", cookie: viewer})
	wantPage(t, page, cell("calls", "24h", "1"), cell("unknown", "24h", "1"), cell("covered", "24h", "0"),
		in(`tr[data-testid="outcome-unknown"] th`, hasText("risked a duplicate")),
		in(`tr[data-testid="outcome-mix"] td[data-window="7d"] li[data-class="OUTCOME_UNKNOWN"]`, hasText("OUTCOME_UNKNOWN 1")))
	page = a.do(request{method: "GET", path: "/tools/order_status", cookie: viewer})
	wantPage(t, page, cell("covered", "24h", "1"), cell("covered", "7d", "1"),
		in(`tr[data-testid="outcome-mix"] td[data-window="24h"] li[data-class="SERVER_ERROR"]`, hasText("SERVER_ERROR 1")))

	// A request to retry create_order shows the approver the same evidence.
	retryForm := url.Values{"confirm_name": {"create_order"}, "reason": {"the API dedupes"}, "mode": {"assert"}, "attempts": {"3"}}
	wantStatus(t, a.post(a.sessionCookie("admin"), "/tools/create_order/actions/retry", retryForm), 303)
	approvals := a.do(request{method: "GET", path: "/approvals", cookie: a.sessionCookie("approver")})
	wantPage(t, approvals, in(tid("approval-request"), in(tid("tool-outcomes"), cell("unknown", "24h", "1"), cell("calls", "7d", "1"),
		in(`tr[data-testid="outcome-unknown"] th`, hasText("risked a duplicate")))))
	pending, err := a.db.ChangeRequests(ctx, store.ChangeRequestFilter{Pending: true})
	if err != nil || len(pending) != 1 {
		t.Fatalf("pending %v, %v", pending, err)
	}
	confirm := a.do(request{method: "POST", path: "/approvals/" + itoa(pending[0].ID) + "/approve", form: url.Values{},
		cookie: a.sessionCookie("approver"), csrf: true})
	wantPage(t, confirm, in(tid("approve-confirm"), in(tid("tool-outcomes"), cell("unknown", "24h", "1"))))

	// What-if: withdraw get_order and restrict order_status to a group.
	withdraw(t, a, "get_order", func(p *policy.Policy) { p.Exposed = false })
	withdraw(t, a, "order_status", func(p *policy.Policy) { p.Groups = []string{"ops"} })
	next := a.do(request{method: "GET", path: "/bundles/next", cookie: viewer})
	wantStatus(t, next, 200)
	wantPage(t, next, count(tid("reach-row"), 2),
		in(`tr[data-tool="get_order"]`, in("td[data-label=Change]", textIs("withdrawn")), in(tid("reach-calls"), textIs("2")),
			in(tid("reach-principals"), textIs("1")), in(tid("reach-runtimes"), textIs("1"))),
		in(`tr[data-tool="order_status"]`, in("td[data-label=Change]", textIs("restricted")), in(tid("reach-calls"), textIs("1"))))
}

// withdraw saves a change to a tool's stored policy.
func withdraw(t *testing.T, a *testApp, tool string, change func(*policy.Policy)) {
	t.Helper()
	ctx := context.Background()
	tl, err := a.db.ToolByName(ctx, tool)
	if err != nil {
		t.Fatal(err)
	}
	p := policy.Effective(tl.Method, tl.Policy) // every field set, as a saved policy has
	change(&p)
	if _, err := a.db.SavePolicy(ctx, "admin@example.com", tl.ID, tl.PolicyVersion, p); err != nil {
		t.Fatal(err)
	}
}

func classOf(err *executor.Error) string {
	if err == nil {
		return ""
	}
	return string(err.Class)
}
