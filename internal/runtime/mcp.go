package runtime

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"slices"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/toolgate/toolgate/internal/bundle"
	"github.com/toolgate/toolgate/internal/executor"
	"github.com/toolgate/toolgate/internal/policy"
	"github.com/toolgate/toolgate/internal/principal"
)

// listing is the MCP definition of one bundle tool, made once per change
// of what it is made from: a swap that leaves a tool's listing input equal
// keeps the same *listing, so reconcile neither re-encodes nor re-registers
// it and clients see no change.
type listing struct {
	in     listingInput
	schema []byte // the input schema it was made from (def holds it, or a copy with the key argument)
	def    *mcp.Tool
}

// listingInput is everything mcpTool reads from a bundle tool but the input
// schema bytes. Two tools with equal inputs and schema bytes have equal MCP
// definitions.
type listingInput struct {
	name, description string
	annotations       bundle.Annotations
	key               policy.IdempotencyKey // the zero value when the policy has none
}

// same reports whether t would get this listing's definition.
func (l *listing) same(t *bundle.Tool) bool {
	return l.in == listingInputOf(t) && bytes.Equal(l.schema, t.InputSchema)
}

func listingInputOf(t *bundle.Tool) listingInput {
	in := listingInput{name: t.Name, description: t.Description, annotations: t.Annotations}
	if t.Policy.IdempotencyKey != nil {
		in.key = *t.Policy.IdempotencyKey
	}
	return in
}

func newMCPServer(opts Options) *mcp.Server {
	version := opts.Version
	if version == "" {
		version = "dev"
	}
	return mcp.NewServer(&mcp.Implementation{Name: "toolgate", Title: "toolgate runtime", Version: version},
		&mcp.ServerOptions{
			Instructions: "Tools of APIs governed by toolgate. A failed call returns isError with a JSON error " +
				"object: class, may_have_applied and instruction. Follow the instruction; when may_have_applied " +
				"is true, read the current state before repeating a call. Some calls need a person's decision " +
				"first: APPROVAL_PENDING means the call was not made; after the decision, call again with the " +
				"same arguments.",
			// Announce tools with listChanged even before the first bundle
			// arrives, so clients subscribe to the change notifications.
			Capabilities: &mcp.ServerCapabilities{Tools: &mcp.ToolCapabilities{ListChanged: true}},
		})
}

// principalOf is who sent an MCP request: the principal the endpoint's
// verifier stored in the token information, the anonymous one on an
// endpoint that authenticates nobody.
func (r *Runtime) principalOf(extra *mcp.RequestExtra) principal.Principal {
	if extra == nil {
		return principal.Principal{Kind: principal.Anonymous}
	}
	return principal.FromTokenInfo(extra.TokenInfo)
}

// filterList is a receiving middleware that removes from a tools/list
// result every tool the requesting principal may not call, by the same
// decision tools/call takes (callable), so a tool hidden from the list is
// never callable and a listed one is.
func (r *Runtime) filterList(next mcp.MethodHandler) mcp.MethodHandler {
	return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
		res, err := next(ctx, method, req)
		if method != "tools/list" || err != nil {
			return res, err
		}
		list, ok := res.(*mcp.ListToolsResult)
		if !ok {
			return res, err
		}
		p := r.principalOf(req.GetExtra())
		s, now := r.snap.Load(), r.opts.Now()
		list.Tools = slices.DeleteFunc(list.Tools, func(t *mcp.Tool) bool { return r.refusal(s, t.Name, p, now) != nil })
		return list, nil
	}
}

// reconcile makes the MCP server's tool list equal to the tools visible
// now: removed tools go, new or changed ones are (re)added, unchanged ones
// (the same *listing) are left alone. The SDK sends
// notifications/tools/list_changed to connected clients when anything
// changed (debounced into one).
func (r *Runtime) reconcile() {
	r.listMu.Lock()
	defer r.listMu.Unlock()
	s := r.snap.Load()
	now := r.opts.Now()
	want := map[string]*listing{}
	if s != nil {
		for name, l := range s.listings {
			if r.visible(s, s.tools[name], now) {
				want[name] = l
			}
		}
	}
	var gone []string
	for name := range r.listed {
		if _, ok := want[name]; !ok {
			gone = append(gone, name)
			delete(r.listed, name)
		}
	}
	if len(gone) > 0 {
		r.server.RemoveTools(gone...)
	}
	for _, name := range slices.Sorted(maps.Keys(want)) {
		l := want[name]
		if r.listed[name] == l {
			continue
		}
		r.listed[name] = l
		r.server.AddTool(l.def, r.toolHandler(name))
	}
	r.metrics.listed(len(r.listed))
	r.noteFreshness(s, now)
}

// listings makes the MCP definitions of a bundle's tools, taking over the
// previous snapshot's listing of every tool whose listing input is
// unchanged. A tool the SDK would refuse to register is added to withheld
// with the reason instead: one bad tool must not take the runtime down.
func listings(b *bundle.Bundle, prev *snapshot, withheld map[string]string) map[string]*listing {
	out := make(map[string]*listing, len(b.Tools))
	var scratch *mcp.Server
	for i := range b.Tools {
		t := &b.Tools[i]
		if _, ok := withheld[t.Name]; ok {
			continue
		}
		if prev != nil {
			if l, ok := prev.listings[t.Name]; ok && l.same(t) {
				out[t.Name] = l
				continue
			}
		}
		if scratch == nil {
			scratch = mcp.NewServer(&mcp.Implementation{Name: "check", Version: "0"}, nil)
		}
		def := mcpTool(t)
		if err := checkDefinition(scratch, def); err != nil {
			withheld[t.Name] = err.Error()
			continue
		}
		out[t.Name] = &listing{in: listingInputOf(t), schema: t.InputSchema, def: def}
	}
	return out
}

// checkDefinition registers def with a scratch server: Server.AddTool
// panics on a definition it refuses (an input schema that is not a JSON
// object schema, a bad x-mcp-header annotation). A verified bundle should
// never hold one, but one bad tool must not take the runtime down.
func checkDefinition(scratch *mcp.Server, def *mcp.Tool) (err error) {
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("MCP definition refused: %v", p)
		}
	}()
	scratch.AddTool(def, func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) { return nil, nil })
	return nil
}

// mcpTool is the agent-facing definition of a bundle tool. It reads only
// what listingInputOf captures.
func mcpTool(t *bundle.Tool) *mcp.Tool {
	destructive := t.Annotations.DestructiveHint
	return &mcp.Tool{
		Name:        t.Name,
		Description: t.Description,
		InputSchema: inputSchema(t),
		Annotations: &mcp.ToolAnnotations{
			ReadOnlyHint:    t.Annotations.ReadOnlyHint,
			DestructiveHint: &destructive,
			IdempotentHint:  t.Annotations.IdempotentHint,
		},
	}
}

// inputSchema is the tool's JSON Schema, with the idempotency-key argument
// declared when the policy takes the key from the arguments: the executor
// accepts it whatever the schema says, but an agent only passes what it
// sees, and reusing its own key on its own retries is the point (R6).
func inputSchema(t *bundle.Tool) json.RawMessage {
	k := t.Policy.IdempotencyKey
	if k == nil || k.Source != policy.KeyArgument {
		return t.InputSchema
	}
	arg := k.Argument
	if arg == "" {
		arg = policy.DefaultKeyArgument
	}
	var schema map[string]any
	if err := json.Unmarshal(t.InputSchema, &schema); err != nil {
		return t.InputSchema
	}
	props, _ := schema["properties"].(map[string]any)
	if props == nil {
		props = map[string]any{}
	}
	if _, ok := props[arg]; ok {
		return t.InputSchema
	}
	props[arg] = map[string]any{
		"type": "string", "minLength": 1, "maxLength": 255,
		"description": "Idempotency key sent as the " + k.Header + " header. Pass a fresh unique value for each " +
			"new operation and the SAME value when you repeat this call after an error, so the API can " +
			"recognise the repeat (it does not make the API idempotent by itself).",
	}
	schema["properties"] = props
	out, err := json.Marshal(schema)
	if err != nil {
		return t.InputSchema
	}
	return out
}

// toolHandler runs a tools/call for one tool through Runtime.Call. Every
// outcome, refusals included, is a tool result (isError for failures) so
// the agent sees the class and the instruction instead of a protocol error.
func (r *Runtime) toolHandler(name string) mcp.ToolHandler {
	return func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		ctx = principal.NewContext(withCallerTrace(ctx, req.Params.Meta), r.principalOf(req.Extra))
		ctx, mc := withMCPCall(ctx, req)
		args, err := decodeArguments(req.Params.Arguments)
		if err != nil {
			res := &executor.Result{Tool: name, Err: &executor.Error{Class: executor.ClassInvalidArguments,
				Message: err.Error(), Instruction: "Pass the arguments as one JSON object matching the tool's inputSchema."}}
			r.observe(ctx, res, nil, "")
			return toolResult(res), nil
		}
		res := r.Call(ctx, name, args)
		if mc.inputRequired != nil { // the principal is asked first (percall_mcp.go)
			return mc.inputRequired, nil
		}
		return toolResult(res), nil
	}
}

// toolResult is the MCP form of a call: the executor's result JSON
// ({tool, ok, status, attempts, duration_ms, result, error}) as text and as
// structured content; isError when the call failed, with the error's
// class, may_have_applied and instruction inside.
func toolResult(res *executor.Result) *mcp.CallToolResult {
	raw, err := appendResultJSON(nil, res)
	if err != nil {
		// The body is validated JSON or text, so this means a bug; still
		// tell the agent something it can act on.
		raw = fmt.Appendf(nil, `{"tool":%q,"ok":false,"error":{"class":"ABORTED","may_have_applied":true,"message":"result could not be encoded","instruction":"Read the current state before repeating the call."}}`, res.Tool)
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: string(raw)}}, IsError: true}
	}
	return &mcp.CallToolResult{
		Content:           []mcp.Content{&mcp.TextContent{Text: string(raw)}},
		StructuredContent: json.RawMessage(raw),
		IsError:           !res.OK,
	}
}
