package loop

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/toolgate/toolgate/internal/cli"
	"github.com/toolgate/toolgate/internal/sampleapi"
	"github.com/toolgate/toolgate/internal/webhook"
)

// hookReceiver is a webhook endpoint on loopback that fails its first
// delivery with a 500 and keeps every request.
type hookReceiver struct {
	*httptest.Server
	mu   sync.Mutex
	got  []hookDelivery
	fail int
}

type hookDelivery struct {
	header http.Header
	body   []byte
}

func newHookReceiver(t *testing.T, fail int) *hookReceiver {
	h := &hookReceiver{fail: fail}
	h.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		h.mu.Lock()
		defer h.mu.Unlock()
		h.got = append(h.got, hookDelivery{r.Header.Clone(), body})
		if len(h.got) <= h.fail {
			w.WriteHeader(http.StatusInternalServerError)
		}
	}))
	t.Cleanup(h.Close)
	return h
}

func (h *hookReceiver) deliveries() []hookDelivery {
	h.mu.Lock()
	defer h.mu.Unlock()
	return append([]hookDelivery(nil), h.got...)
}

// TestPerCallApproval is R16 end to end on loopback, with the real
// console, two real runtimes, the sample API and go-sdk MCP clients: an
// approve-mode DELETE is held (APPROVAL_PENDING, nothing upstream), a
// webhook tells approvers (signed, retried after a 500), a security
// approver approves it on the call's page after the confirmation step,
// and the call made again with the same arguments runs exactly once;
// the same call again, and other arguments, ask anew. Two runtimes
// racing with one approved call send it upstream once.
func TestPerCallApproval(t *testing.T) {
	consoleDir := t.TempDir()
	api := sampleapi.New(sampleapi.Options{})
	upstream := httptest.NewServer(api)
	t.Cleanup(upstream.Close)
	// A short webhook backoff: the retry after the 500 comes within the
	// idle poll (2 s) rather than after 2.5–5 s, well inside eventually's 10 s.
	console := start(t, map[string]string{"TOOLGATE_DATA_DIR": consoleDir}, "serve", "--addr", "127.0.0.1:0",
		"--runtime-api-addr", "127.0.0.1:0", "--webhook-retry-base", "200ms")
	consoleURL := console.await(t, runningAt)
	runtimeAPIURL := "http://" + console.await(t, runtimeAPI)
	c := people(t, consoleURL, console.await(t, setupLink), func(args ...string) string {
		var out strings.Builder
		if err := cli.Run(context.Background(), append(args, "--data-dir", consoleDir), func(string) string { return "" },
			strings.NewReader(""), &out, io.Discard); err != nil {
			t.Fatalf("toolgate %v: %v", args, err)
		}
		return out.String()
	})
	hooks := newHookReceiver(t, 1)
	secret := c.ops.open("/webhooks").form(`^/webhooks$`).set("name", "approvers").set("url", hooks.URL).
		set("format", webhook.FormatJSON).set("events", "call_request").submit().must(http.StatusOK).text("new-webhook-secret")

	c.importSample(upstream.URL)
	c.exposeApproved("deleteOrder")
	// Asking a person per call only takes something away: it applies at once.
	c.policyForm("deleteOrder").set("per_call", "approve").submit().done("saved")
	c.policyForm("createOrder").set("exposed", "true").set("per_call", "confirm").submit().done("saved")
	c.publish("v1: deleteOrder asks an approver per call, createOrder its caller")
	token := c.token("e2e")

	rtEnv := map[string]string{"TOOLGATE_RUNTIME_TOKEN": token, "SHOP_TOKEN": sampleapi.DefaultToken,
		"TOOLGATE_CREDENTIALS": `{"sources":{"shop":{"bearer":"env:SHOP_TOKEN"}}}`}
	runtime := func(name string) string {
		rt := start(t, rtEnv, "runtime", "--console", runtimeAPIURL, "--data-dir", t.TempDir(), "--trust-on-first-use",
			"--allow-insecure-credentials", "--poll-interval", "1s", "--mcp-addr", "127.0.0.1:0", "--metrics-addr", "",
			"--decision-wait", "1s", "--name", name)
		return rt.await(t, mcpEndpoint)
	}
	endpoint1 := runtime("rt-1")
	agent1, agent2 := connectAgent(t, endpoint1), connectAgent(t, runtime("rt-2"))
	for range 3 { // ord_0001 … ord_0003, to delete
		req, _ := http.NewRequest(http.MethodPost, upstream.URL+"/orders", strings.NewReader(
			`{"customer":"ada","items":[{"sku":"BOOK-1","quantity":1,"unit_price_cents":1999}]}`))
		req.Header.Set("Authorization", "Bearer "+sampleapi.DefaultToken)
		req.Header.Set("Content-Type", "application/json")
		resp, err := http.DefaultClient.Do(req)
		if err != nil || resp.StatusCode != http.StatusCreated {
			t.Fatalf("creating an order: %v %v", resp, err)
		}
		resp.Body.Close()
	}
	deletes := func() int { return api.Stats().Routes["DELETE /orders/{order_id}"] }

	// The first call is held: nothing reaches the upstream.
	pending := agent1.call("deleteOrder", map[string]any{"order_id": "ord_0001"}, "APPROVAL_PENDING")["error"].(map[string]any)
	reqID, _ := pending["call_request"].(string)
	decisionURL, _ := pending["decision_url"].(string)
	if reqID == "" || !strings.HasPrefix(decisionURL, consoleURL+"/") {
		t.Fatalf("APPROVAL_PENDING = %v: want the request id and its console URL", pending)
	}
	if n := deletes(); n != 0 {
		t.Fatalf("%d DELETEs upstream before any decision", n)
	}
	// Approvers are told: a signed delivery, retried after the 500.
	eventually(t, "the webhook's retried delivery", func() bool { return len(hooks.deliveries()) >= 2 })
	for i, d := range hooks.deliveries()[:2] {
		if err := webhook.Verify(secret, d.header.Get(webhook.HeaderID), d.header.Get(webhook.HeaderTimestamp),
			d.header.Get(webhook.HeaderSignature), d.body, time.Now()); err != nil {
			t.Errorf("delivery %d does not verify: %v", i+1, err)
		}
		if !strings.Contains(string(d.body), reqID) || strings.Contains(string(d.body), "ord_0001") {
			t.Errorf("delivery %d: %s: want the request id and no arguments", i+1, d.body)
		}
	}

	// The approver decides on the call's page, after the confirmation step.
	approve := func(id string) {
		t.Helper()
		path := "/approvals/calls/" + id
		confirm := c.security.open(path).form(path+"/approve$").set("comment", "test tenant only").submit().must(http.StatusOK)
		confirm.form(path + "/approve$").submit().done("approved")
	}
	approve(reqID)
	agent1.call("deleteOrder", map[string]any{"order_id": "ord_0001"}, "")
	if n := deletes(); n != 1 {
		t.Fatalf("%d DELETEs upstream after one approved call, want 1", n)
	}
	// The grant was used: the same call again asks anew, and so do other
	// arguments; neither reaches the upstream.
	again := agent1.call("deleteOrder", map[string]any{"order_id": "ord_0001"}, "APPROVAL_PENDING")["error"].(map[string]any)
	other := agent1.call("deleteOrder", map[string]any{"order_id": "ord_0003"}, "APPROVAL_PENDING")["error"].(map[string]any)
	if again["call_request"] == reqID || other["call_request"] == reqID || again["call_request"] == other["call_request"] {
		t.Errorf("requests %v / %v / %v: want a new request for a used grant and for other arguments", reqID, again["call_request"], other["call_request"])
	}
	if n := deletes(); n != 1 {
		t.Fatalf("%d DELETEs upstream, want still 1", n)
	}

	// Two runtimes, one approved call: it runs once.
	approve(other["call_request"].(string))
	var wg sync.WaitGroup
	results := make([]map[string]any, 2)
	for i, a := range []*agent{agent1, agent2} {
		wg.Add(1)
		go func() {
			defer wg.Done()
			res, err := a.cs.CallTool(t.Context(), &mcp.CallToolParams{Name: "deleteOrder", Arguments: map[string]any{"order_id": "ord_0003"}})
			if err == nil && len(res.Content) == 1 {
				if text, ok := res.Content[0].(*mcp.TextContent); ok {
					_ = json.Unmarshal([]byte(text.Text), &results[i])
				}
			}
		}()
	}
	wg.Wait()
	ok := 0
	for _, r := range results {
		if r != nil && r["error"] == nil {
			ok++
		}
	}
	if n := deletes(); ok != 1 || n != 2 {
		t.Errorf("two runtimes raced one grant: %d succeeded, %d DELETEs upstream in all; want 1 and 2 (results %v)", ok, n, results)
	}

	// confirm: a client with elicitation asks its user; the console
	// records the confirmation and the call runs once. Declined, nothing
	// is sent; a client without elicitation is sent to the console.
	posts := func() int { return api.Stats().Routes["POST /orders"] }
	before := posts()
	order := map[string]any{"body": map[string]any{"customer": "ada", "items": []any{map[string]any{"sku": "BOOK-1", "quantity": 1, "unit_price_cents": 1999}}}}
	for _, answer := range []string{"decline", "accept"} {
		var asked atomic.Int32
		client := mcp.NewClient(&mcp.Implementation{Name: "e2e-user", Version: "1"}, &mcp.ClientOptions{
			ElicitationHandler: func(_ context.Context, req *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
				if strings.Contains(req.Params.Message, "createOrder") {
					asked.Add(1)
				}
				return &mcp.ElicitResult{Action: answer}, nil
			}})
		cs, err := client.Connect(t.Context(), &mcp.StreamableClientTransport{Endpoint: endpoint1}, nil)
		if err != nil {
			t.Fatal(err)
		}
		user := &agent{t: t, cs: cs, changed: make(chan struct{}, 16)}
		want := map[string]string{"decline": "POLICY_DENIED", "accept": ""}[answer]
		user.call("createOrder", order, want)
		user.close()
		if asked.Load() != 1 {
			t.Errorf("%s: the user was asked %d times about createOrder, want 1", answer, asked.Load())
		}
	}
	agent1.call("createOrder", order, "APPROVAL_PENDING")
	if n := posts() - before; n != 1 {
		t.Errorf("%d POST /orders upstream, want 1 (the accepted one)", n)
	}
}
