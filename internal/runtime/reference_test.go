package runtime

import (
	"context"
	"encoding/json"
	"fmt"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/toolgate/toolgate/internal/bundle"
)

// The reference the runtime's benchmarks compare against: a minimal MCP
// server on the same go-sdk, holding the same tool definitions (as
// tools/list sends them) and nothing else: no signature, no executor, no
// schema validation, no metrics.

// referenceTool is one tool definition as the reference server reads it.
type referenceTool struct {
	Name        string               `json:"name"`
	Description string               `json:"description"`
	InputSchema json.RawMessage      `json:"inputSchema"`
	Annotations *mcp.ToolAnnotations `json:"annotations"`
}

// referenceDefs are the definitions the runtime lists for b, encoded as a
// JSON array: what the reference server loads.
func referenceDefs(t testing.TB, b *bundle.Bundle) []byte {
	t.Helper()
	defs := make([]*mcp.Tool, len(b.Tools))
	for i := range b.Tools {
		defs[i] = mcpTool(&b.Tools[i])
	}
	raw, err := json.Marshal(defs)
	if err != nil {
		t.Fatal(err)
	}
	return raw
}

func newReferenceServer() *mcp.Server {
	return mcp.NewServer(&mcp.Implementation{Name: "reference", Version: "1"}, nil)
}

// loadReference decodes defs and registers every tool with s (AddTool
// replaces a tool of the same name): how a minimal server takes in a new
// set of definitions.
func loadReference(s *mcp.Server, defs []byte, h mcp.ToolHandler) error {
	var tools []referenceTool
	if err := json.Unmarshal(defs, &tools); err != nil {
		return fmt.Errorf("reference definitions: %w", err)
	}
	for _, t := range tools {
		s.AddTool(&mcp.Tool{Name: t.Name, Description: t.Description, InputSchema: t.InputSchema, Annotations: t.Annotations}, h)
	}
	return nil
}

func noopHandler(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "{}"}}}, nil
}

// connectServer opens an in-memory client session on s.
func connectServer(t testing.TB, s *mcp.Server) *mcp.ClientSession {
	t.Helper()
	ctx := context.Background()
	ct, st := mcp.NewInMemoryTransports()
	ss, err := s.Connect(ctx, st, nil)
	if err != nil {
		t.Fatalf("server connect: %v", err)
	}
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "bench", Version: "1"}, nil).Connect(ctx, ct, nil)
	if err != nil {
		t.Fatalf("client connect: %v", err)
	}
	t.Cleanup(func() { cs.Close(); ss.Wait() })
	return cs
}

// listAll runs tools/list through every page and returns the tool count.
func listAll(t testing.TB, cs *mcp.ClientSession) int {
	t.Helper()
	n := 0
	for _, err := range cs.Tools(context.Background(), nil) {
		if err != nil {
			t.Fatalf("tools/list: %v", err)
		}
		n++
	}
	return n
}
