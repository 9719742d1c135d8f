// Package mcpref is the handler of the go-sdk reference server the
// runtime's benchmarks compare against, in process (internal/runtime) and
// as its own program (internal/bench/runtimeproc/gosdkref): what a
// hand-written MCP server would do for the benchmarks' getItem tool.
package mcpref

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/url"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// ItemJSON is what the benchmarks' upstream answers for an item: a small
// API object.
var ItemJSON = []byte(`{"id":"42","name":"Widget","price":{"amount":1999,"currency":"EUR"},` +
	`"tags":["blue","small","sale"],"stock":17,"updated_at":"2026-01-01T00:00:00Z"}`)

// GetItem decodes the item_id argument, GETs UPSTREAM/items/{item_id}
// with client and returns the body as text and structured content.
func GetItem(client *http.Client, upstream string) mcp.ToolHandler {
	return func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		var args struct {
			ItemID string `json:"item_id"`
		}
		if err := json.Unmarshal(req.Params.Arguments, &args); err != nil {
			return nil, err
		}
		hreq, err := http.NewRequestWithContext(ctx, http.MethodGet, upstream+"/items/"+url.PathEscape(args.ItemID), nil)
		if err != nil {
			return nil, err
		}
		resp, err := client.Do(hreq)
		if err != nil {
			return nil, err
		}
		defer resp.Body.Close()
		body, err := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
		if err != nil {
			return nil, err
		}
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: string(body)}},
			StructuredContent: json.RawMessage(body)}, nil
	}
}
