// Command gosdkref is the reference the runtime's process benchmark
// (internal/bench/runtimeproc) compares against: a minimal MCP server on
// the same go-sdk, as its own process, holding the tool definitions the
// runtime lists (a JSON array, -defs) and nothing else: no bundle, no
// signature, no executor, no schema validation, no metrics, no log line.
// Its getItem tool GETs UPSTREAM/items/{item_id} (mcpref.GetItem) and
// returns the body; every other tool returns {}.
package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"net"
	"net/http"
	"os"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/toolgate/toolgate/internal/testing/mcpref"
)

func main() {
	if err := run(os.Args[1:]); err != nil {
		fmt.Fprintln(os.Stderr, "gosdkref:", err)
		os.Exit(1)
	}
}

func run(args []string) error {
	fs := flag.NewFlagSet("gosdkref", flag.ContinueOnError)
	defs := fs.String("defs", "", "JSON array of MCP tool definitions")
	upstream := fs.String("upstream", "", "base URL getItem calls")
	addr := fs.String("addr", "127.0.0.1:0", "listen address (path /mcp)")
	if err := fs.Parse(args); err != nil {
		return err
	}
	raw, err := os.ReadFile(*defs)
	if err != nil {
		return err
	}
	var tools []*mcp.Tool
	if err := json.Unmarshal(raw, &tools); err != nil {
		return fmt.Errorf("definitions: %w", err)
	}
	s := mcp.NewServer(&mcp.Implementation{Name: "reference", Version: "1"}, nil)
	get := getItem(*upstream)
	for _, t := range tools {
		h := noop
		if t.Name == "getItem" {
			h = get
		}
		s.AddTool(t, h)
	}
	ln, err := net.Listen("tcp", *addr)
	if err != nil {
		return err
	}
	mux := http.NewServeMux()
	mux.Handle("/mcp", mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return s },
		&mcp.StreamableHTTPOptions{SessionTimeout: 30 * time.Minute}))
	fmt.Printf("MCP endpoint: http://%s/mcp\n", ln.Addr())
	return (&http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second}).Serve(ln)
}

func noop(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "{}"}}}, nil
}

// getItem is mcpref.GetItem with the executor's transport settings
// (executor.NewTransport, restated so that this binary links nothing of
// toolgate's but the handler).
func getItem(upstream string) mcp.ToolHandler {
	tr := http.DefaultTransport.(*http.Transport).Clone()
	tr.DisableCompression = true
	tr.MaxIdleConnsPerHost = 64
	tr.DialContext = (&net.Dialer{Timeout: 30 * time.Second, KeepAlive: 30 * time.Second}).DialContext
	return mcpref.GetItem(&http.Client{Transport: tr, Timeout: 8 * time.Second}, upstream)
}
