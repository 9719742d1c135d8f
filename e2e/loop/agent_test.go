package loop

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

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
