package runtime

import (
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/toolgate/toolgate/internal/bundle"
	"github.com/toolgate/toolgate/internal/executor"
	"github.com/toolgate/toolgate/internal/policy"
	"github.com/toolgate/toolgate/internal/principal"
	"github.com/toolgate/toolgate/internal/risk"
	"github.com/toolgate/toolgate/internal/testing/syncbuf"
)

// asPrincipal is a receiving middleware that makes every request come
// from the principal who holds, as the endpoint's token verifier would
// (principal in the go-sdk's TokenInfo); outermost, so filterList and the
// tool handlers read it. who is atomic: the SDK handles requests and
// notifications on its own goroutines while a test switches principals.
func asPrincipal(who *atomic.Pointer[principal.Principal]) mcp.Middleware {
	return func(next mcp.MethodHandler) mcp.MethodHandler {
		return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
			extra := &mcp.RequestExtra{TokenInfo: who.Load().TokenInfo(nil)}
			switch r := req.(type) {
			case *mcp.ListToolsRequest:
				r.Extra = extra
			case *mcp.CallToolRequest:
				r.Extra = extra
			}
			return next(ctx, method, req)
		}
	}
}

// installInMemory makes b the bundle in force without the wire: the
// bundle format the runtime decodes may not carry every policy field yet.
func installInMemory(t *testing.T, r *Runtime, b *bundle.Bundle, confirmed time.Time) {
	t.Helper()
	if err := r.install(b, []byte("in-memory.bundle"), "", confirmed); err != nil {
		t.Fatalf("install: %v", err)
	}
}

// randomCase is a bundle of plain GET tools with random risk and groups.
func randomCase(rng *rand.Rand, now time.Time, origin string) (*bundle.Bundle, error) {
	groups := []string{"ops", "billing", "support"}
	var tools []bundle.ToolInput
	for i := range 2 + rng.IntN(6) {
		p := policy.NewToolPolicy("GET", risk.Read, policy.BuiltinDefaults())
		p.Exposed = true
		for _, g := range groups {
			if rng.IntN(3) == 0 {
				p.Groups = append(p.Groups, g)
			}
		}
		class := []risk.Class{risk.Read, risk.Write, risk.Destructive, risk.Privileged}[rng.IntN(4)]
		in := bundle.ToolInput{Name: fmt.Sprintf("tool%d", i), Source: "shop", Method: "GET",
			Path: "/health", InputSchema: json.RawMessage(`{"type":"object"}`),
			Assessment: risk.Assessment{Class: class, Reasons: []risk.Reason{{Code: "test", Class: class, Text: "test"}}},
			Policy:     p}
		if class >= risk.Destructive {
			in.Approvals = []bundle.Approval{{ChangeRequest: int64(i + 1), ApprovedBy: "sec", ApprovedAt: t0, Summary: "expose"}}
		}
		tools = append(tools, in)
	}
	return bundle.Build(bundle.BuildInput{Version: 1, Now: now, TTL: time.Hour,
		Sources: []bundle.Source{{Name: "shop", Origin: origin}}, Tools: tools})
}

func randomPrincipal(rng *rand.Rand) principal.Principal {
	if rng.IntN(4) == 0 {
		return principal.Principal{Kind: principal.Anonymous}
	}
	var gs []string
	for _, g := range []string{"ops", "billing", "support", "other"} {
		if rng.IntN(2) == 0 {
			gs = append(gs, g)
		}
	}
	return principal.New(principal.OIDC, "agent", "client", gs)
}

// TestListAndCallAgree is the parity property of R15: for random
// bundles, principals and times, the tools a principal is listed are
// exactly those whose tools/call is not refused, and both equal what the
// rules say (groups, staleness of risky tools, expiry).
func TestListAndCallAgree(t *testing.T) {
	rng := rand.New(rand.NewPCG(21, 3))
	_, up := upstream(t)
	for i := range 40 {
		clk := newClock()
		r := newRuntime(t, rtOpts{keys: keySet(testKey(t, 1)), clock: clk, console: "http://127.0.0.1:1"})
		var current atomic.Pointer[principal.Principal]
		current.Store(&principal.Principal{Kind: principal.Anonymous})
		r.server.AddReceivingMiddleware(asPrincipal(&current))
		b, err := randomCase(rng, clk.Now(), up.URL)
		if err != nil {
			t.Fatal(err)
		}
		installInMemory(t, r, b, clk.Now())
		// 0–70 minutes later: fresh, stale (10 min), expired (1 h).
		clk.Advance(time.Duration(rng.IntN(70)) * time.Minute)
		r.reconcile()
		cs, _ := connect(t, r)
		for range 3 {
			who := randomPrincipal(rng)
			current.Store(&who)
			listed := names(listTools(t, cs))
			var callable, want []string
			for _, bt := range b.Tools {
				if notRefused(t, cs, bt.Name) {
					callable = append(callable, bt.Name)
				}
				if expectCallable(bt, who, clk.Now().Sub(t0)) {
					want = append(want, bt.Name)
				}
			}
			if !slices.Equal(listed, callable) || !slices.Equal(listed, want) {
				t.Fatalf("case %d, principal %+v, %s after install: listed %v, callable %v, rules say %v",
					i, who, clk.Now().Sub(t0), listed, callable, want)
			}
		}
	}
}

// expectCallable is the rule, restated: groups, then expiry (1 h), then
// risky tools off once stale (10 min).
func expectCallable(bt bundle.Tool, p principal.Principal, age time.Duration) bool {
	if len(bt.Policy.Groups) > 0 && !slices.ContainsFunc(bt.Policy.Groups, func(g string) bool { return slices.Contains(p.Groups, g) }) {
		return false
	}
	if age >= time.Hour {
		return false
	}
	return !(age > 10*time.Minute && (bt.Risk == risk.Destructive || bt.Risk == risk.Privileged))
}

// notRefused calls name through the MCP client and reports whether the
// runtime let the call through to the executor.
func notRefused(t *testing.T, cs *mcp.ClientSession, name string) bool {
	t.Helper()
	res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: name})
	if err != nil {
		return false // not on the server's list at all: the protocol refuses it
	}
	var out struct {
		Error *executor.Error `json:"error"`
	}
	if err := json.Unmarshal([]byte(res.Content[0].(*mcp.TextContent).Text), &out); err != nil {
		t.Fatalf("tools/call %s: %v", name, err)
	}
	return out.Error == nil || out.Error.Class != executor.ClassToolNotExposed
}

// TestOutsideGroupsLooksLikeUnknownTool: through a signed bundle, a
// principal outside a tool's groups gets the answer an unknown tool gets, word for word, even when
// the tool is withheld or stale; a member calls it.
func TestOutsideGroupsLooksLikeUnknownTool(t *testing.T) {
	_, up := upstream(t)
	k := testKey(t, 1)
	con := newFakeConsole(t, keySet(k))
	clk := newClock()
	in := getOrderTool()
	in.Policy.Groups = []string{"support"}
	con.publish(signBundle(t, k, 3, clk.Now(), 0, up.URL, in))
	var logs syncbuf.Buffer
	r := newRuntime(t, rtOpts{keys: keySet(k), clock: clk, console: con.URL, logs: &logs})
	mustSync(t, r)
	args := map[string]any{"order_id": "ord_0001"}
	for _, who := range []principal.Principal{{Kind: principal.Anonymous}, principal.New(principal.OIDC, "x", "", []string{"ops"})} {
		got := r.Call(principal.NewContext(context.Background(), who), "getOrder", args)
		unknown := r.Call(principal.NewContext(context.Background(), who), "noSuchTool", args)
		if got.Err == nil || got.Err.Class != executor.ClassToolNotExposed ||
			got.Err.Message != `tool "getOrder" is not in bundle v3` || got.Err.Instruction != unknown.Err.Instruction {
			t.Fatalf("%s outside the groups: %+v, want the unknown tool's answer %+v", who.Kind, got.Err, unknown.Err)
		}
	}
	if n := strings.Count(logs.String(), `"refused_by":"groups"`); n != 2 {
		t.Fatalf("%d log lines say the groups refused the call, want 2 (the operator reads why):\n%s", n, logs.String())
	}
	member := principal.New(principal.Token, "bot", "", []string{"support"})
	if res := r.Call(principal.NewContext(context.Background(), member), "getOrder", args); res.Attempts != 1 {
		t.Fatalf("member's call = %+v, want it sent", res.Err)
	}
}
