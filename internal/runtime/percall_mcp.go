package runtime

import (
	"context"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/toolgate/toolgate/internal/callgate"
	"github.com/toolgate/toolgate/internal/policy"
)

// confirmKey names the elicitation of a confirm call in the MCP
// multi-round-trip exchange (inputRequests / inputResponses).
const confirmKey = "toolgate_confirm"

// confirmStateTTL bounds how long the principal may take to answer an
// elicitation before the answer no longer counts.
const confirmStateTTL = 10 * time.Minute

// mcpCall is the MCP request a Runtime.Call serves, carried in its
// context: the client's capabilities, progress token and answers to the
// runtime's questions, and the input-required result a confirm call
// answers with while it asks the principal.
type mcpCall struct {
	req           *mcp.CallToolRequest
	inputRequired *mcp.CallToolResult
}

type mcpCallKey struct{}

// withMCPCall returns ctx carrying req for perCall.
func withMCPCall(ctx context.Context, req *mcp.CallToolRequest) (context.Context, *mcpCall) {
	mc := &mcpCall{req: req}
	return context.WithValue(ctx, mcpCallKey{}, mc), mc
}

// mcpCallFrom is the MCP request of ctx, nil for a call made otherwise.
func mcpCallFrom(ctx context.Context) *mcpCall {
	mc, _ := ctx.Value(mcpCallKey{}).(*mcpCall)
	return mc
}

// canElicit reports whether the client declared form elicitation.
func (m *mcpCall) canElicit() bool {
	if m == nil || m.req == nil || m.req.Session == nil {
		return false
	}
	ip := m.req.Session.InitializeParams()
	if ip == nil || ip.Capabilities == nil || ip.Capabilities.Elicitation == nil {
		return false
	}
	e := ip.Capabilities.Elicitation
	// Neither mode named means form (the SDK's reading, for older clients).
	return e.Form != nil || e.URL == nil
}

// progress sends a progress notification when the client asked for them
// (a progressToken); a failure to send is no reason to fail the call.
func (m *mcpCall) progress(ctx context.Context, done, total time.Duration, msg string) {
	if m == nil || m.req == nil || m.req.Session == nil || m.req.Params == nil {
		return
	}
	tok := m.req.Params.GetProgressToken()
	if tok == nil {
		return
	}
	_ = m.req.Session.NotifyProgress(ctx, &mcp.ProgressNotificationParams{ProgressToken: tok,
		Progress: done.Seconds(), Total: total.Seconds(), Message: msg})
}

// confirmInClient asks the principal to confirm req in their MCP client
// through the protocol's multi-round-trip mechanism: the first round
// answers with an elicitation (input required; asked is true), the SDK
// asks (a 2026-07-28 client retries the call with the answer, an older
// one is asked by the server and the handler runs again), and the round
// with the answer reports whether they accepted. The answer counts only
// with the runtime's signed state for exactly this call.
func (r *Runtime) confirmInClient(ctx context.Context, mc *mcpCall, req callgate.Request) (confirmed, asked bool, err error) {
	want := confirmState(req)
	answer, ok := mc.req.Params.InputResponses[confirmKey]
	if !ok {
		mc.inputRequired = &mcp.CallToolResult{
			InputRequests: mcp.InputRequestMap{confirmKey: confirmElicitation(req)},
			RequestState:  r.gate.stateKey.sign(want, r.opts.Now().Add(confirmStateTTL)),
		}
		return false, true, nil
	}
	if err := r.gate.stateKey.verify(mc.req.Params.RequestState, want, r.opts.Now()); err != nil {
		return false, false, fmt.Errorf("tool %q: the confirmation does not belong to this call: %w", req.Tool, err)
	}
	res, ok := answer.(*mcp.ElicitResult)
	if !ok {
		return false, false, fmt.Errorf("tool %q: the client answered the confirmation with %T, not an elicitation result", req.Tool, answer)
	}
	return res.Action == "accept", false, nil
}

// confirmElicitation is the form shown to the principal: the exact call,
// secrets masked, and nothing to fill in but accept or decline.
func confirmElicitation(req callgate.Request) *mcp.ElicitParams {
	args, _ := json.MarshalIndent(req.Arguments, "", "  ")
	var b strings.Builder
	fmt.Fprintf(&b, "Confirm this call before it runs (toolgate).\n\nTool: %s\nArguments:\n%s\n", req.Tool, args)
	if req.Reason != "" {
		fmt.Fprintf(&b, "\nWhy you are asked: %s\n", req.Reason)
	}
	b.WriteString("\nAccept to run it once with exactly these arguments; decline to refuse it.")
	return &mcp.ElicitParams{Mode: "form", Message: b.String(),
		RequestedSchema: map[string]any{"type": "object", "properties": map[string]any{}}}
}

// confirmState names the call a confirmation is for: tool, definition,
// arguments, principal and bundle version (what a grant binds).
func confirmState(req callgate.Request) string {
	p := req.Principal
	return strings.Join([]string{req.Tool, req.DefinitionDigest, req.ArgumentsDigest, p.Kind, p.Subject, p.ClientID,
		strconv.FormatInt(req.BundleVersion, 10), policy.PerCallConfirm}, "\x00")
}

// stateKey signs the request state of the multi-round-trip exchange
// (HMAC-SHA256 under a random key of this process): the protocol lets a
// client echo any state, so the runtime only takes back what it issued.
type stateKey struct {
	once sync.Once
	key  []byte
}

func (k *stateKey) bytes() []byte {
	k.once.Do(func() {
		k.key = make([]byte, 32)
		_, _ = rand.Read(k.key) // never fails (crypto/rand)
	})
	return k.key
}

// sign is "expiry.mac" over the expiry and what (what itself is not
// sent: the retried call must name it again).
func (k *stateKey) sign(what string, expires time.Time) string {
	exp := strconv.FormatInt(expires.Unix(), 10)
	return exp + "." + k.mac(exp, what)
}

func (k *stateKey) mac(exp, what string) string {
	h := hmac.New(sha256.New, k.bytes())
	h.Write([]byte(exp + "\x00" + what))
	return base64.RawURLEncoding.EncodeToString(h.Sum(nil))
}

func (k *stateKey) verify(state, what string, now time.Time) error {
	exp, mac, ok := strings.Cut(state, ".")
	if !ok || !hmac.Equal([]byte(mac), []byte(k.mac(exp, what))) {
		return errors.New("the request state is missing or was not issued for this call")
	}
	secs, err := strconv.ParseInt(exp, 10, 64)
	if err != nil || !now.Before(time.Unix(secs, 0)) {
		return errors.New("the confirmation came too late")
	}
	return nil
}
