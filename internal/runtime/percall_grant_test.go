package runtime

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/toolgate/toolgate/internal/bundle"
	"github.com/toolgate/toolgate/internal/callgate"
	"github.com/toolgate/toolgate/internal/executor"
	"github.com/toolgate/toolgate/internal/policy"
)

// TestPerCallGrantRefusals: an approved request whose grant is not good
// for this call sends nothing upstream: a grant already spent (the console
// answers 409), one for other arguments (Binds), an expired one, and one
// signed by a key the runtime does not trust. Only the spent one reaches
// the consume call; the others are refused offline.
func TestPerCallGrantRefusals(t *testing.T) {
	other := testKey(t, 9)
	tests := []struct {
		name     string
		console  func(*gateConsole)
		prepare  func(*testing.T, *gateFixture) // before the retried call
		substr   string
		consumes int
	}{
		{"replayed", nil, func(t *testing.T, f *gateFixture) {
			f.con.mu.Lock()
			defer f.con.mu.Unlock()
			g, err := bundle.VerifyGrant([]byte(f.con.requests["cr_1"].st.Grant), f.con.keys, f.con.clock.Now())
			if err != nil {
				t.Fatal(err)
			}
			f.con.used[g.Nonce] = true // another runtime spent it first
		}, "already used", 1},
		{"other arguments", func(c *gateConsole) {
			c.grant = func(g *bundle.Grant) { g.ArgumentsDigest = "sha256:" + strings.Repeat("0", 64) }
		}, nil, "its arguments differs", 0},
		{"expired", func(c *gateConsole) {
			c.grant = func(g *bundle.Grant) {
				g.IssuedAt, g.NotAfter = g.IssuedAt.Add(-time.Hour), g.IssuedAt.Add(-time.Minute)
			}
		}, nil, "expired", 0},
		{"another key", func(c *gateConsole) { c.signer = &other }, nil, "not in the key set", 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newGateFixture(t, gateSetup{tool: payoutTool(policy.PerCallApprove), console: tt.console})
			_, out := callTool(t, f.cs, "payout", someArgs)
			wantError(t, out, executor.ClassApprovalPending, "waits")
			f.con.decide(t, "cr_1", callgate.Approved, "sec", "")
			if tt.prepare != nil {
				tt.prepare(t, f)
			}
			_, out = callTool(t, f.cs, "payout", someArgs)
			wantError(t, out, executor.ClassPolicyDenied, tt.substr)
			f.wantHits(t, 0)
			if n := f.con.consumeCalls(); n != tt.consumes {
				t.Fatalf("%d consume calls, want %d", n, tt.consumes)
			}
		})
	}
}

// TestPerCallConsoleUnreachableFailsClosed: when the console cannot take
// the request, or cannot consume the grant, nothing reaches the upstream
// and the agent is told to try again later.
func TestPerCallConsoleUnreachableFailsClosed(t *testing.T) {
	t.Run("filing", func(t *testing.T) {
		f := newGateFixture(t, gateSetup{tool: payoutTool(policy.PerCallApprove)})
		f.con.setDown(true)
		_, out := callTool(t, f.cs, "payout", someArgs)
		e := wantError(t, out, executor.ClassPolicyDenied, "fails closed")
		if !strings.Contains(e["instruction"].(string), "Try again later") {
			t.Fatalf("instruction %q, want to try again later", e["instruction"])
		}
		f.wantHits(t, 0)
	})
	t.Run("consuming", func(t *testing.T) {
		f := newGateFixture(t, gateSetup{tool: payoutTool(policy.PerCallApprove)})
		_, out := callTool(t, f.cs, "payout", someArgs)
		wantError(t, out, executor.ClassApprovalPending, "waits")
		f.con.decide(t, "cr_1", callgate.Approved, "sec", "")
		// The console answers the filing (approved, with its grant) and
		// then goes away before the grant is spent.
		f.con.mu.Lock()
		f.con.consumeDown = true
		f.con.mu.Unlock()
		_, out = callTool(t, f.cs, "payout", someArgs)
		wantError(t, out, executor.ClassPolicyDenied, "fails closed")
		f.wantHits(t, 0)
	})
	t.Run("closed", func(t *testing.T) {
		f := newGateFixture(t, gateSetup{tool: payoutTool(policy.PerCallApprove)})
		f.con.Close()
		_, out := callTool(t, f.cs, "payout", someArgs)
		wantError(t, out, executor.ClassPolicyDenied, "cannot be used")
		f.wantHits(t, 0)
	})
}

// TestPerCallWithoutAConsoleRefuses: a runtime pulling from a registry
// without --console has nobody to ask, so a tool that needs a person is
// refused with a sentence saying so, and nothing is sent.
func TestPerCallWithoutAConsoleRefuses(t *testing.T) {
	var hits atomic.Int64
	up := httptest.NewServer(http.HandlerFunc(func(http.ResponseWriter, *http.Request) { hits.Add(1) }))
	t.Cleanup(up.Close)
	k, clk := testKey(t, 1), newClock()
	f := newRegistryFixture(t, k, clk, "")
	f.publish(t, 1, signBundle(t, k, 1, clk.Now(), 0, up.URL, payoutTool(policy.PerCallApprove)))
	mustSync(t, f.rt)
	f.rt.reconcile()
	cs, _ := connect(t, f.rt)
	_, out := callTool(t, cs, "payout", someArgs)
	wantError(t, out, executor.ClassPolicyDenied, "no toolgate console to ask")
	if n := hits.Load(); n != 0 {
		t.Fatalf("upstream received %d requests, want 0", n)
	}
}

// TestPerCallConsoleRefusalReachesTheAgent: a filing the console refuses
// (its bound on pending requests) is refused at once with the console's
// own sentence, nothing sent.
func TestPerCallConsoleRefusalReachesTheAgent(t *testing.T) {
	f := newGateFixture(t, gateSetup{tool: payoutTool(policy.PerCallApprove), console: func(c *gateConsole) {
		c.refuseFiling = &consoleRefusal{status: http.StatusTooManyRequests, message: "anonymous has 20 pending call requests, the most allowed"}
	}})
	_, out := callTool(t, f.cs, "payout", someArgs)
	wantError(t, out, executor.ClassPolicyDenied, "HTTP 429): anonymous has 20 pending call requests, the most allowed")
	f.wantHits(t, 0)
}

// TestPerCallSurvivesARuntimeRestart: the runtime keeps nothing of a
// request: after a restart, the same call again finds the approved
// request on the console and runs once under its grant.
func TestPerCallSurvivesARuntimeRestart(t *testing.T) {
	f := newGateFixture(t, gateSetup{tool: payoutTool(policy.PerCallApprove)})
	_, out := callTool(t, f.cs, "payout", someArgs)
	wantError(t, out, executor.ClassApprovalPending, "waits")
	f.con.decide(t, "cr_1", callgate.Approved, "sec", "")

	r, err := New(f.r.opts)
	if err != nil {
		t.Fatalf("New after restart: %v", err)
	}
	r.reconcile()
	cs, _ := connect(t, r)
	if res, out := callTool(t, cs, "payout", someArgs); res.IsError {
		t.Fatalf("the approved call after a restart = %v", out)
	}
	f.wantHits(t, 1)
}
