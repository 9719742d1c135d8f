// Package loop is the all-parts end-to-end test of toolgate on loopback:
// the real console (`toolgate serve`), the sample API, the real runtime
// (`toolgate runtime`) and an MCP client from the official Go SDK. It lives
// apart from e2e/ so that it needs no browser.
package loop

import (
	"context"
	"encoding/json"
	"io"
	"maps"
	"net/http/httptest"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/toolgate/toolgate/internal/cli"
	"github.com/toolgate/toolgate/internal/sampleapi"
)

var (
	runningAt   = regexp.MustCompile(`toolgate is running at (http://\S+)`)
	setupLink   = regexp.MustCompile(`First run: open (http://\S+) to create`)
	runtimeAPI  = regexp.MustCompile(`Runtime API listening on (\S+)`)
	mcpEndpoint = regexp.MustCompile(`MCP endpoint: (http://\S+)`)
	metricsURL  = regexp.MustCompile(`Metrics: (http://\S+)`)
)

func TestWholeLoop(t *testing.T) {
	// No -short skip: it takes about 2 s under -race, and `make unit` runs
	// with -race -short, which is where this test runs in CI.
	consoleDir, runtimeDir := t.TempDir(), t.TempDir()

	// The sample API and the console.
	api := sampleapi.New(sampleapi.Options{})
	upstream := httptest.NewServer(api)
	t.Cleanup(upstream.Close)
	// Runtimes fetch from the console's runtime API listener (fasthttp);
	// the console's own listener serves the same API, tested in web/.
	console := start(t, map[string]string{"TOOLGATE_DATA_DIR": consoleDir}, "serve", "--addr", "127.0.0.1:0",
		"--runtime-api-addr", "127.0.0.1:0")
	consoleURL := console.await(t, runningAt)
	runtimeAPIURL := "http://" + console.await(t, runtimeAPI)

	// Through the console's pages, as people at browsers: first admin by
	// the setup link, two more users, sign-in; import; expose READ and
	// WRITE tools; request + approve the DELETE tool by a second user;
	// publish; issue a runtime token.
	c := people(t, consoleURL, console.await(t, setupLink), func(args ...string) string {
		var out strings.Builder
		if err := cli.Run(context.Background(), append(args, "--data-dir", consoleDir), func(string) string { return "" },
			strings.NewReader(""), &out, io.Discard); err != nil {
			t.Fatalf("toolgate %v: %v", args, err)
		}
		return out.String()
	})
	c.importSample(upstream.URL)
	c.expose("getOrder")
	c.expose("createOrder")
	c.exposeApproved("deleteOrder")
	c.publish("v1: three tools")
	token := c.token("e2e")

	// The runtime, behind a proxy we can make hostile.
	px := newProxy(t, runtimeAPIURL)
	rtEnv := map[string]string{"TOOLGATE_RUNTIME_TOKEN": token, "SHOP_TOKEN": sampleapi.DefaultToken,
		"TOOLGATE_CREDENTIALS": `{"sources":{"shop":{"bearer":"env:SHOP_TOKEN"}}}`}
	rtArgs := []string{"runtime", "--console", px.URL, "--data-dir", runtimeDir, "--trust-on-first-use",
		"--allow-insecure-credentials", "--poll-interval", "100ms", "--mcp-addr", "127.0.0.1:0",
		"--metrics-addr", "127.0.0.1:0", "--name", "e2e-runtime"}
	rt := start(t, rtEnv, rtArgs...)
	agent := connectAgent(t, rt.await(t, mcpEndpoint))
	metrics := rt.await(t, metricsURL)

	// tools/list: exactly the exposed tools, with the right annotations.
	tools := agent.list()
	if got := slices.Sorted(maps.Keys(tools)); !slices.Equal(got, []string{"createOrder", "deleteOrder", "getOrder"}) {
		t.Fatalf("tools/list = %v", got)
	}
	for name, want := range map[string][3]bool{ // readOnly, destructive, idempotent
		"getOrder": {true, false, true}, "createOrder": {false, false, false}, "deleteOrder": {false, true, false},
	} {
		a := tools[name].Annotations
		if a.ReadOnlyHint != want[0] || a.DestructiveHint == nil || *a.DestructiveHint != want[1] || a.IdempotentHint != want[2] {
			t.Errorf("%s annotations = %+v, want readOnly/destructive/idempotent %v", name, a, want)
		}
	}

	// Calls succeed.
	order := map[string]any{"customer": "ada", "items": []any{map[string]any{"sku": "BOOK-1", "quantity": 1, "unit_price_cents": 1999}}}
	created := agent.call("createOrder", map[string]any{"body": order}, "")
	id := created["result"].(map[string]any)["id"].(string)
	if got := agent.call("getOrder", map[string]any{"order_id": id}, ""); got["result"].(map[string]any)["customer"] != "ada" {
		t.Errorf("getOrder = %v", got)
	}
	agent.call("deleteOrder", map[string]any{"order_id": id}, "")

	// A POST whose response is lost: OUTCOME_UNKNOWN, exactly one request.
	api.ResetStats()
	api.SetFaults(sampleapi.Faults{DropAfterApply: &sampleapi.DropAfterApply{Count: 1, Method: "POST"}})
	lost := agent.call("createOrder", map[string]any{"body": order}, "OUTCOME_UNKNOWN")
	if e := lost["error"].(map[string]any); e["may_have_applied"] != true || e["instruction"] == "" {
		t.Errorf("lost response error = %v", e)
	}
	var stats sampleapi.StatsReport
	if err := json.Unmarshal([]byte(get(t, upstream.URL+"/_stats")), &stats); err != nil || stats.Routes["POST /orders"] != 1 || stats.Total != 1 {
		t.Errorf("/_stats = %+v (%v), want exactly one POST /orders", stats, err)
	}

	// A tampered bundle from the proxy is refused; the last good one stays.
	px.tamper.Store(true)
	eventually(t, "the runtime refuses a tampered bundle", func() bool {
		return strings.Contains(get(t, metrics), `toolgate_runtime_bundle_refusals_total{reason="tampered"}`)
	})
	px.tamper.Store(false)
	if px.tampers.Load() == 0 {
		t.Fatal("the proxy never served a tampered bundle")
	}
	if m := get(t, metrics); !strings.Contains(m, "toolgate_runtime_bundle_version 1\n") {
		t.Errorf("version in force after tampering is not 1:\n%s", m)
	}
	if got := slices.Sorted(maps.Keys(agent.list())); len(got) != 3 {
		t.Errorf("tools/list after tampering = %v", got)
	}
	agent.call("getOrder", map[string]any{"order_id": "ord_0002"}, "")

	// Un-expose a tool and publish: it leaves tools/list.
	c.unexpose("createOrder")
	c.publish("v2: no createOrder")
	agent.waitChanged()
	eventually(t, "createOrder leaves tools/list", func() bool {
		return slices.Equal(slices.Sorted(maps.Keys(agent.list())), []string{"deleteOrder", "getOrder"})
	})

	// Console stopped, runtime restarted: it serves its persisted bundle.
	agent.close()
	console.halt(t)
	rt.halt(t)
	rt2 := start(t, rtEnv, rtArgs...)
	agent2 := connectAgent(t, rt2.await(t, mcpEndpoint))
	if got := slices.Sorted(maps.Keys(agent2.list())); !slices.Equal(got, []string{"deleteOrder", "getOrder"}) {
		t.Fatalf("restarted runtime tools/list = %v; log:\n%s", got, rt2.logs.String())
	}
	agent2.call("getOrder", map[string]any{"order_id": "ord_0002"}, "")
	if !strings.Contains(rt2.out.String(), "serving bundle v2") {
		t.Errorf("restarted runtime stdout = %q", rt2.out.String())
	}
}
