// Package loop is the all-parts end-to-end test of toolgate on loopback:
// the real console (`toolgate serve`), the sample API, the real runtime
// (`toolgate runtime`) and an MCP client from the official Go SDK. It lives
// apart from e2e/ so that it needs no browser.
package loop

import (
	"context"
	"encoding/json"
	"maps"
	"net/http/httptest"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/toolgate/toolgate/internal/auth"
	"github.com/toolgate/toolgate/internal/bundle"
	"github.com/toolgate/toolgate/internal/config"
	"github.com/toolgate/toolgate/internal/openapi"
	"github.com/toolgate/toolgate/internal/sampleapi"
	"github.com/toolgate/toolgate/internal/store"
)

var (
	runningAt   = regexp.MustCompile(`toolgate is running at (http://\S+)`)
	mcpEndpoint = regexp.MustCompile(`MCP endpoint: (http://\S+)`)
	metricsURL  = regexp.MustCompile(`Metrics: (http://\S+)`)
)

func TestWholeLoop(t *testing.T) {
	if testing.Short() {
		t.Skip("end-to-end loop skipped in -short mode")
	}
	ctx := t.Context()
	consoleDir, runtimeDir := t.TempDir(), t.TempDir()

	// The sample API and the console.
	api := sampleapi.New(sampleapi.Options{})
	upstream := httptest.NewServer(api)
	t.Cleanup(upstream.Close)
	console := start(t, map[string]string{"TOOLGATE_DATA_DIR": consoleDir}, "serve", "--addr", "127.0.0.1:0")
	consoleURL := console.await(t, runningAt)
	db, err := store.Open(ctx, config.DBPath(consoleDir))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	c := consoleSide{t: t, db: db, keys: bundle.KeyDir{Path: filepath.Join(consoleDir, "keys")}}

	// Import, expose READ and WRITE tools, request + approve the DELETE
	// tool by a second user, publish, issue a runtime token.
	admin, approver := c.users()
	c.importSample(upstream.URL)
	c.expose(admin, "getOrder")
	c.expose(admin, "createOrder")
	c.exposeApproved(admin, approver, "deleteOrder")
	c.publish(admin, "v1: three tools")
	token := c.token(admin)

	// The runtime, behind a proxy we can make hostile.
	px := newProxy(t, consoleURL)
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
	c.unexpose(admin, "createOrder")
	c.publish(admin, "v2: no createOrder")
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

// consoleSide performs the console steps through the store methods the
// console's handlers use, on the running console's own database.
type consoleSide struct {
	t    *testing.T
	db   *store.DB
	keys bundle.KeyDir
}

func (c consoleSide) users() (admin, approver *store.User) {
	c.t.Helper()
	ctx := c.t.Context()
	hash, err := auth.HashPassword("correct horse battery staple")
	if err != nil {
		c.t.Fatal(err)
	}
	admin, err = c.db.CreateFirstAdmin(ctx, "admin@example.com", hash)
	if err != nil {
		c.t.Fatal(err)
	}
	approver, err = c.db.CreateUser(ctx, admin.Email, store.NewUser{Email: "security@example.com", PasswordHash: hash,
		Roles: []auth.Role{auth.RoleApprover}})
	if err != nil {
		c.t.Fatal(err)
	}
	return admin, approver
}

func (c consoleSide) importSample(origin string) {
	c.t.Helper()
	raw, err := sampleapi.OpenAPIYAML(origin)
	if err != nil {
		c.t.Fatal(err)
	}
	doc, err := openapi.LoadBytes("openapi.yaml", raw, openapi.Options{})
	if err != nil {
		c.t.Fatal(err)
	}
	if _, err := c.db.ImportSource(c.t.Context(), "admin@example.com", store.SourceImport{Name: "shop", Origin: origin, Doc: doc}); err != nil {
		c.t.Fatalf("import: %v", err)
	}
}

func (c consoleSide) setExposed(admin *store.User, tool string, exposed bool) {
	c.t.Helper()
	rec, err := c.db.ToolPolicyByName(c.t.Context(), tool)
	if err != nil {
		c.t.Fatalf("policy of %s: %v", tool, err)
	}
	p := rec.Policy
	p.Exposed = exposed
	if _, err := c.db.SavePolicy(c.t.Context(), admin.Email, rec.ToolID, rec.Version, p); err != nil {
		c.t.Fatalf("exposing %s = %v: %v", tool, exposed, err)
	}
}

func (c consoleSide) expose(admin *store.User, tool string)   { c.setExposed(admin, tool, true) }
func (c consoleSide) unexpose(admin *store.User, tool string) { c.setExposed(admin, tool, false) }

// exposeApproved asks to expose a risky tool and has a second user approve
// it; the requester approving their own request must fail (R10).
func (c consoleSide) exposeApproved(admin, approver *store.User, tool string) {
	c.t.Helper()
	ctx := c.t.Context()
	rec, err := c.db.ToolPolicyByName(ctx, tool)
	if err != nil {
		c.t.Fatal(err)
	}
	p := rec.Policy
	p.Exposed = true
	if _, err := c.db.SavePolicy(ctx, admin.Email, rec.ToolID, rec.Version, p); err == nil {
		c.t.Fatalf("%s (%s) was exposed without approval", tool, rec.Class)
	}
	cr, err := c.db.CreateChangeRequest(ctx, admin, store.NewChangeRequest{ToolID: rec.ToolID, Kind: store.KindExposeRisky,
		Reason: "support agents delete test orders", Policy: p})
	if err != nil {
		c.t.Fatalf("change request: %v", err)
	}
	if _, err := c.db.ApproveChangeRequest(ctx, admin.ID, cr.ID, "self"); err == nil {
		c.t.Fatal("the requester approved their own change request")
	}
	if _, err := c.db.ApproveChangeRequest(ctx, approver.ID, cr.ID, "ok for the test tenant"); err != nil {
		c.t.Fatalf("approve: %v", err)
	}
}

func (c consoleSide) publish(admin *store.User, note string) {
	c.t.Helper()
	key, err := c.keys.Active()
	if err != nil {
		c.t.Fatalf("signing key (the console creates it at start): %v", err)
	}
	if _, err := c.db.Publish(c.t.Context(), store.PublishRequest{Actor: admin.Email, Note: note, Key: key}); err != nil {
		c.t.Fatalf("publish: %v", err)
	}
}

func (c consoleSide) token(admin *store.User) string {
	c.t.Helper()
	_, token, err := c.db.CreateRuntimeToken(c.t.Context(), admin.Email, "e2e")
	if err != nil {
		c.t.Fatal(err)
	}
	return token
}

// agent is an MCP client session over streamable HTTP.
type agent struct {
	t       *testing.T
	cs      *mcp.ClientSession
	changed chan struct{}
}

func connectAgent(t *testing.T, endpoint string) *agent {
	t.Helper()
	a := &agent{t: t, changed: make(chan struct{}, 16)}
	client := mcp.NewClient(&mcp.Implementation{Name: "e2e-agent", Version: "1"}, &mcp.ClientOptions{
		ToolListChangedHandler: func(context.Context, *mcp.ToolListChangedRequest) { a.changed <- struct{}{} }})
	cs, err := client.Connect(t.Context(), &mcp.StreamableClientTransport{Endpoint: endpoint}, nil)
	if err != nil {
		t.Fatalf("MCP connect: %v", err)
	}
	a.cs = cs
	t.Cleanup(a.close)
	return a
}

func (a *agent) close() { _ = a.cs.Close() }

func (a *agent) list() map[string]*mcp.Tool {
	a.t.Helper()
	out := map[string]*mcp.Tool{}
	for tool, err := range a.cs.Tools(a.t.Context(), nil) {
		if err != nil {
			a.t.Fatalf("tools/list: %v", err)
		}
		out[tool.Name] = tool
	}
	return out
}

// call makes a tools/call and returns the result JSON; wantClass "" means
// the call must succeed, otherwise it must fail with that class.
func (a *agent) call(name string, args map[string]any, wantClass string) map[string]any {
	a.t.Helper()
	res, err := a.cs.CallTool(a.t.Context(), &mcp.CallToolParams{Name: name, Arguments: args})
	if err != nil {
		a.t.Fatalf("tools/call %s: %v", name, err)
	}
	var body map[string]any
	if err := json.Unmarshal([]byte(res.Content[0].(*mcp.TextContent).Text), &body); err != nil {
		a.t.Fatalf("tools/call %s: %v", name, err)
	}
	class := ""
	if e, ok := body["error"].(map[string]any); ok {
		class, _ = e["class"].(string)
	}
	if class != wantClass || res.IsError != (wantClass != "") {
		a.t.Fatalf("tools/call %s = isError %v %v, want class %q", name, res.IsError, body, wantClass)
	}
	return body
}

func (a *agent) waitChanged() {
	a.t.Helper()
	eventually(a.t, "notifications/tools/list_changed", func() bool {
		select {
		case <-a.changed:
			return true
		default:
			return false
		}
	})
}
