package runtime

import (
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/toolgate/toolgate/internal/bundle"
	"github.com/toolgate/toolgate/internal/callgate"
	"github.com/toolgate/toolgate/internal/callrecord"
	"github.com/toolgate/toolgate/internal/executor"
	"github.com/toolgate/toolgate/internal/policy"
	"github.com/toolgate/toolgate/internal/principal"
	"github.com/toolgate/toolgate/internal/risk"
)

// payoutTool is POST /payouts with an amount, an account and an api_token
// (a secret by its name), asking a person per call under mode.
func payoutTool(mode string, conds ...policy.Condition) bundle.ToolInput {
	p := policy.NewToolPolicy("POST", risk.Write, policy.BuiltinDefaults())
	p.Exposed, p.PerCall, p.Conditions = true, mode, conds
	return bundle.ToolInput{Name: "payout", Source: "shop", Method: "POST", Path: "/payouts",
		Params: []bundle.Param{{Name: "amount", In: "query", Arg: "amount"}, {Name: "account", In: "query", Arg: "account"},
			{Name: "X-Api-Token", In: "header", Arg: "api_token"}},
		InputSchema: json.RawMessage(`{"type":"object","properties":{"amount":{"type":"number"},"account":{"type":"string"},"api_token":{"type":"string"}}}`),
		Assessment:  risk.Assessment{Class: risk.Write, Reasons: []risk.Reason{{Code: "method:POST", Class: risk.Write, Text: "POST"}}},
		Policy:      p}
}

// gateFixture is a runtime serving payoutTool from a gateConsole, an
// upstream that counts the requests it gets, and an MCP client.
type gateFixture struct {
	r    *Runtime
	con  *gateConsole
	hits *atomic.Int64
	cs   *mcp.ClientSession
}

type gateSetup struct {
	tool     bundle.ToolInput
	wait     time.Duration      // Options.DecisionWait (1 s when zero)
	client   *mcp.ClientOptions // nil: a client without elicitation
	protocol string             // "" the SDK's newest
	console  func(*gateConsole) // changes the console before the first call
	// stdio connects the client through ServeStdio (as `toolgate runtime
	// --stdio`) for the local user alice instead of in memory.
	stdio bool
}

func newGateFixture(t testing.TB, s gateSetup) *gateFixture {
	t.Helper()
	hits := &atomic.Int64{}
	up := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		hits.Add(1)
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write([]byte(`{"paid":true}`))
	}))
	t.Cleanup(up.Close)
	k, clk := testKey(t, 1), newClock()
	con := newGateConsole(t, k, clk)
	con.bundles.publish(signBundle(t, k, 1, clk.Now(), 0, up.URL, s.tool))
	if s.console != nil {
		s.console(con)
	}
	if s.wait == 0 {
		s.wait = time.Second
	}
	opts := Options{ConsoleURL: con.URL, Token: testToken, Name: "test-rt", DataDir: t.TempDir(),
		TrustedKeys: keySet(k), Executor: sampleCredentials(t), Logger: slog.New(slog.DiscardHandler),
		Now: clk.Now, Version: "test", DecisionWait: s.wait}
	if s.stdio {
		opts.StdioPrincipal = principal.New(principal.Local, "alice", "", nil)
	}
	r, err := New(opts)
	if err != nil {
		t.Fatalf("New: %v", err)
	}
	r.gate.progressStep = 100 * time.Millisecond
	mustSync(t, r)
	client := mcp.NewClient(&mcp.Implementation{Name: "test-agent", Version: "1"}, s.client)
	copts := &mcp.ClientSessionOptions{ProtocolVersion: s.protocol}
	var cs *mcp.ClientSession
	if s.stdio {
		cs = connectStdio(t, r, client, copts)
	} else {
		ct, st := mcp.NewInMemoryTransports()
		ss, err := r.Server().Connect(context.Background(), st, nil)
		if err != nil {
			t.Fatalf("server connect: %v", err)
		}
		if cs, err = client.Connect(context.Background(), ct, copts); err != nil {
			t.Fatalf("client connect: %v", err)
		}
		t.Cleanup(func() { cs.Close(); ss.Wait() })
	}
	return &gateFixture{r: r, con: con, hits: hits, cs: cs}
}

// connectStdio runs r.ServeStdio on pipes and connects client to them.
func connectStdio(t testing.TB, r *Runtime, client *mcp.Client, opts *mcp.ClientSessionOptions) *mcp.ClientSession {
	t.Helper()
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	served := make(chan error, 1)
	go func() { served <- r.ServeStdio(context.Background(), inR, outW, time.Second); outW.Close() }()
	cs, err := client.Connect(context.Background(), &mcp.IOTransport{Reader: outR, Writer: inW}, opts)
	if err != nil {
		t.Fatalf("client connect over stdio: %v", err)
	}
	t.Cleanup(func() {
		cs.Close()
		if err := <-served; err != nil {
			t.Errorf("ServeStdio: %v", err)
		}
	})
	return cs
}

// errorOf is the error object of a tool result's JSON (nil when ok).
func errorOf(out map[string]any) map[string]any {
	e, _ := out["error"].(map[string]any)
	return e
}

func wantError(t *testing.T, out map[string]any, class executor.Class, substr string) map[string]any {
	t.Helper()
	e := errorOf(out)
	if e == nil || e["class"] != string(class) || !strings.Contains(e["message"].(string), substr) || e["may_have_applied"] != false {
		t.Fatalf("result %v, want %s (may_have_applied false) saying %q", out, class, substr)
	}
	return e
}

func (f *gateFixture) wantHits(t *testing.T, n int64) {
	t.Helper()
	if got := f.hits.Load(); got != n {
		t.Fatalf("upstream received %d requests, want %d", got, n)
	}
}

// records are the runtime's buffered call records, each valid for the
// console (decision and class go together).
func (f *gateFixture) records(t *testing.T) []callrecord.Record {
	t.Helper()
	recs := f.r.records.take(1000)
	for _, rec := range recs {
		if err := rec.Validate(time.Now().Add(time.Hour)); err != nil {
			t.Fatalf("call record %+v does not validate: %v", rec, err)
		}
	}
	return recs
}

var someArgs = map[string]any{"amount": 250, "account": "acct-7", "api_token": "s3cret"}

// TestPerCallApprovePendingThenRetriedCallRunsOnce: an approve call files
// a request (secrets masked), sends nothing and answers APPROVAL_PENDING
// with the request and its page; once approved, the same call again runs
// once upstream under the grant; its repeat finds the grant spent, and a
// call with other arguments is a request of its own.
func TestPerCallApprovePendingThenRetriedCallRunsOnce(t *testing.T) {
	f := newGateFixture(t, gateSetup{tool: payoutTool(policy.PerCallApprove)})
	_, out := callTool(t, f.cs, "payout", someArgs)
	e := wantError(t, out, executor.ClassApprovalPending, "waits for a security approver")
	if e["call_request"] != "cr_1" || e["decision_url"] != f.con.URL+"/calls/cr_1" || !strings.Contains(e["instruction"].(string), "same arguments") {
		t.Fatalf("pending error %v, want call request cr_1, its URL and the instruction to call again", e)
	}
	f.wantHits(t, 0)
	filed := f.con.waitFiled(t, 1)
	if filed.Arguments["api_token"] != callgate.Masked || filed.Arguments["account"] != "acct-7" || filed.Mode != policy.PerCallApprove ||
		filed.BundleVersion != 1 || filed.Principal.Kind != "anonymous" || filed.Instance != f.r.InstanceID() {
		t.Fatalf("filed %+v, want the secret masked, the mode, bundle version, principal and instance", filed)
	}
	if want, _ := callrecord.ArgumentsDigest(someArgs); filed.ArgumentsDigest != want {
		t.Fatalf("arguments digest %s, want the unmasked arguments' %s", filed.ArgumentsDigest, want)
	}

	f.con.decide(t, "cr_1", callgate.Approved, "sec", "")
	if res, out := callTool(t, f.cs, "payout", someArgs); res.IsError {
		t.Fatalf("retried call after approval = %v", out)
	}
	f.wantHits(t, 1)
	_, out = callTool(t, f.cs, "payout", someArgs)
	wantError(t, out, executor.ClassPolicyDenied, "consumed")
	_, out = callTool(t, f.cs, "payout", map[string]any{"amount": 251, "account": "acct-7", "api_token": "s3cret"})
	if e := wantError(t, out, executor.ClassApprovalPending, "waits"); e["call_request"] != "cr_2" {
		t.Fatalf("other arguments got %v, want a new request cr_2", e)
	}
	f.wantHits(t, 1)
	if n := f.con.consumeCalls(); n != 1 {
		t.Fatalf("%d consume calls, want 1", n)
	}
	var got []string
	for _, rec := range f.records(t) {
		got = append(got, rec.Decision+" "+rec.Class)
	}
	want := "awaiting_decision APPROVAL_PENDING|allowed OK|denied_per_call POLICY_DENIED|awaiting_decision APPROVAL_PENDING"
	if strings.Join(got, "|") != want {
		t.Fatalf("call records %v, want %s", got, want)
	}
}

// TestPerCallDecidedWhileWaiting: a decision within the wait answers the
// same call: approved runs it once, with progress notifications sent to a
// client that asked for them while it waited; denied is POLICY_DENIED
// with the decider's comment.
func TestPerCallDecidedWhileWaiting(t *testing.T) {
	var progress atomic.Int64
	f := newGateFixture(t, gateSetup{tool: payoutTool(policy.PerCallApprove), wait: 10 * time.Second,
		client: &mcp.ClientOptions{ProgressNotificationHandler: func(_ context.Context, req *mcp.ProgressNotificationClientRequest) {
			if req.Params.ProgressToken == "tok" && strings.Contains(req.Params.Message, "cr_1") {
				progress.Add(1)
			}
		}}})
	go func() {
		f.con.waitFiled(t, 1)
		time.Sleep(400 * time.Millisecond)
		f.con.decide(t, "cr_1", callgate.Approved, "sec", "")
	}()
	params := &mcp.CallToolParams{Name: "payout", Arguments: someArgs}
	params.SetProgressToken("tok")
	res, err := f.cs.CallTool(context.Background(), params)
	if err != nil || res.IsError {
		t.Fatalf("call approved while waiting = %v, %v", res, err)
	}
	f.wantHits(t, 1)
	if n := progress.Load(); n < 2 {
		t.Fatalf("%d progress notifications while waiting, want at least 2", n)
	}

	go func() {
		f.con.waitFiled(t, 2)
		f.con.decide(t, "cr_2", callgate.Denied, "sec", "not this account")
	}()
	_, out := callTool(t, f.cs, "payout", map[string]any{"amount": 1, "account": "acct-9"})
	wantError(t, out, executor.ClassPolicyDenied, "denied by sec: not this account")
	f.wantHits(t, 1)
}

// TestPerCallConfirmInTheClient: a confirm call from a client that
// declared elicitation asks the principal there first, showing the exact
// call with secrets masked — by the 2026-07-28 input_required round trip,
// or by an elicitation request to an older client — and files nothing
// until they answer: accept files the request as confirmed and the call
// runs once under its grant; decline refuses it with nothing filed.
func TestPerCallConfirmInTheClient(t *testing.T) {
	for _, protocol := range []string{"", "2025-11-25"} {
		for _, action := range []string{"accept", "decline", "cancel"} {
			t.Run(protocol+"/"+action, func(t *testing.T) {
				var shown atomic.Value
				f := newGateFixture(t, gateSetup{tool: payoutTool(policy.PerCallConfirm), protocol: protocol,
					client: &mcp.ClientOptions{ElicitationHandler: func(_ context.Context, req *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
						shown.Store(req.Params.Message)
						return &mcp.ElicitResult{Action: action}, nil
					}}})
				if v := f.cs.InitializeResult().ProtocolVersion; protocol == "" && v != mcp.SupportedProtocolVersions()[0] || protocol != "" && v != protocol {
					t.Fatalf("negotiated protocol %s, want %q (the newest when empty)", v, protocol)
				}
				res, out := callTool(t, f.cs, "payout", someArgs)
				msg, _ := shown.Load().(string)
				if !strings.Contains(msg, "Tool: payout") || !strings.Contains(msg, `"acct-7"`) ||
					!strings.Contains(msg, callgate.Masked) || strings.Contains(msg, "s3cret") {
					t.Fatalf("elicitation %q, want the tool and arguments with the secret masked", msg)
				}
				if action != "accept" {
					wantError(t, out, executor.ClassPolicyDenied, "declined by the principal")
					f.wantHits(t, 0)
					if n := len(f.con.filedRequests()); n != 0 {
						t.Fatalf("%d requests filed for a declined call, want 0", n)
					}
					return
				}
				if res.IsError {
					t.Fatalf("confirmed call = %v", out)
				}
				f.wantHits(t, 1)
				if filed := f.con.filedRequests(); len(filed) != 1 || !filed[0].Confirmed || filed[0].Mode != policy.PerCallConfirm {
					t.Fatalf("filed %+v, want one request filed as confirmed", filed)
				}
			})
		}
	}
}

// TestPerCallConfirmNeedsTheRuntimesQuestion: an answer the runtime did
// not ask for (inputResponses without its signed request state) confirms
// nothing; a client without elicitation is sent to the console to
// confirm there.
func TestPerCallConfirmNeedsTheRuntimesQuestion(t *testing.T) {
	f := newGateFixture(t, gateSetup{tool: payoutTool(policy.PerCallConfirm),
		client: &mcp.ClientOptions{ElicitationHandler: func(context.Context, *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
			return &mcp.ElicitResult{Action: "accept"}, nil
		}}})
	res, err := f.cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "payout", Arguments: someArgs,
		InputResponses: mcp.InputResponseMap{confirmKey: &mcp.ElicitResult{Action: "accept"}}, RequestState: "4102444800.forged"})
	if err != nil {
		t.Fatal(err)
	}
	var out map[string]any
	_ = json.Unmarshal([]byte(res.Content[0].(*mcp.TextContent).Text), &out)
	wantError(t, out, executor.ClassPolicyDenied, "does not belong to this call")
	f.wantHits(t, 0)

	plain := newGateFixture(t, gateSetup{tool: payoutTool(policy.PerCallConfirm)})
	_, out = callTool(t, plain.cs, "payout", someArgs)
	wantError(t, out, executor.ClassApprovalPending, "the principal")
	plain.wantHits(t, 0)
}

// TestPerCallOverStdio: a runtime serving stdio with a console asks as an
// HTTP one does, for its local user: an approve call is filed for alice
// and runs once approved; a confirm call asks in the client, through
// stdin and stdout.
func TestPerCallOverStdio(t *testing.T) {
	f := newGateFixture(t, gateSetup{tool: payoutTool(policy.PerCallApprove), stdio: true})
	_, out := callTool(t, f.cs, "payout", someArgs)
	wantError(t, out, executor.ClassApprovalPending, "waits")
	if p := f.con.waitFiled(t, 1).Principal; p.Kind != "local" || p.Subject != "alice" {
		t.Fatalf("filed for %+v, want the local user alice", p)
	}
	f.con.decide(t, "cr_1", callgate.Approved, "sec", "")
	if res, out := callTool(t, f.cs, "payout", someArgs); res.IsError {
		t.Fatalf("approved call over stdio = %v", out)
	}
	f.wantHits(t, 1)

	for _, protocol := range []string{"", "2025-11-25"} {
		c := newGateFixture(t, gateSetup{tool: payoutTool(policy.PerCallConfirm), stdio: true, protocol: protocol,
			client: &mcp.ClientOptions{ElicitationHandler: func(context.Context, *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
				return &mcp.ElicitResult{Action: "accept"}, nil
			}}})
		if res, out := callTool(t, c.cs, "payout", someArgs); res.IsError {
			t.Fatalf("confirmed call over stdio (protocol %q) = %v", protocol, out)
		}
		c.wantHits(t, 1)
	}
}

// TestInstructionsExplainApprovalPending: the server's instructions tell
// an agent what APPROVAL_PENDING means before it first meets one.
func TestInstructionsExplainApprovalPending(t *testing.T) {
	f := newGateFixture(t, gateSetup{tool: payoutTool(policy.PerCallApprove)})
	if ins := f.cs.InitializeResult().Instructions; !strings.Contains(ins, "APPROVAL_PENDING") || !strings.Contains(ins, "same arguments") {
		t.Errorf("instructions %q do not explain APPROVAL_PENDING", ins)
	}
}
