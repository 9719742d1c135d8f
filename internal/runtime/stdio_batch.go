package runtime

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// batchesRemovedIn is the first MCP protocol version without JSON-RPC
// batching (2025-06-18 removed it; versions are dates, so they compare
// as strings).
const batchesRemovedIn = "2025-06-18"

// errStdioFrameTooLarge ends a stdio session whose input holds one JSON
// value larger than mcp.DefaultMaxLineLength, as the SDK's own reader does.
var errStdioFrameTooLarge = errors.New("stdio: a JSON-RPC message exceeds the maximum length")

// batchGate stands between stdin and the SDK's stdio transport: it passes
// each JSON value on, one per line, except a JSON-RPC batch (an array)
// once the negotiated protocol version has none, which it answers itself
// with the error JSON-RPC prescribes for an invalid request (-32600, id
// null) and the session goes on. Under older versions batches pass and the
// SDK answers them. (The SDK checks this itself only on its own
// connection, which drainingTransport wraps.)
type batchGate struct {
	out *lockedWriter
	mu  sync.Mutex
	// version is the negotiated protocol version ("" before initialize
	// was answered); initID the id of the initialize request in flight,
	// and answered is closed once it has been answered.
	version  string
	initID   *jsonrpc.ID
	answered chan struct{}
	// stop is closed when the session is over.
	stop chan struct{}
}

// lockedWriter serialises the SDK's writes and the gate's refusals, each a
// whole line.
type lockedWriter struct {
	mu sync.Mutex
	w  io.Writer
}

func (l *lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}

// filter copies stdin to w value by value until stdin ends (then w is
// closed) or fails (w is closed with the error, which the SDK reports).
func (g *batchGate) filter(ctx context.Context, stdin io.Reader, w *io.PipeWriter) {
	limit := &frameLimit{r: stdin, left: mcp.DefaultMaxLineLength}
	dec := json.NewDecoder(limit)
	for {
		var raw json.RawMessage
		if err := dec.Decode(&raw); err != nil {
			w.CloseWithError(err) // io.EOF closes w normally
			return
		}
		limit.left = mcp.DefaultMaxLineLength
		if bytes.HasPrefix(raw, []byte("[")) && g.batchesRemoved(ctx) {
			if err := g.refuseBatch(); err != nil {
				w.CloseWithError(err)
				return
			}
			continue
		}
		g.noteInitialize(raw)
		if _, err := w.Write(append(raw, '\n')); err != nil {
			return // the session is over
		}
	}
}

// batchesRemoved reports whether the negotiated version has no batches,
// first waiting for the answer to an initialize still in flight (a piped
// session sends everything at once).
func (g *batchGate) batchesRemoved(ctx context.Context) bool {
	g.mu.Lock()
	answered := g.answered
	g.mu.Unlock()
	if answered != nil {
		select {
		case <-answered:
		case <-ctx.Done():
		case <-g.stop:
		}
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.version >= batchesRemovedIn
}

func (g *batchGate) refuseBatch() error {
	g.mu.Lock()
	v := g.version
	g.mu.Unlock()
	msg := fmt.Sprintf("Invalid Request: JSON-RPC batches are not part of MCP %s (batching was removed in %s): send one message per line", v, batchesRemovedIn)
	line, err := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": nil, "error": map[string]any{"code": -32600, "message": msg}})
	if err != nil {
		return err
	}
	_, err = g.out.Write(append(line, '\n'))
	return err
}

// noteInitialize marks an initialize request as in flight before it is
// passed on, so that a batch right behind it waits for its answer. Only
// until a version is negotiated: later messages are not parsed twice.
func (g *batchGate) noteInitialize(raw json.RawMessage) {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.version != "" || g.answered != nil {
		return
	}
	var msg struct {
		ID     json.RawMessage `json:"id"`
		Method string          `json:"method"`
	}
	if json.Unmarshal(raw, &msg) == nil && msg.Method == "initialize" && len(msg.ID) > 0 {
		g.answered = make(chan struct{})
	}
}

// sawRequest notes the id of an initialize request as the SDK reads it.
func (g *batchGate) sawRequest(req *jsonrpc.Request) {
	if req.Method != "initialize" || !req.IsCall() {
		return
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	id := req.ID
	g.initID = &id
	if g.answered == nil {
		g.answered = make(chan struct{})
	}
}

// sawResponse takes the negotiated version from the answer to initialize.
func (g *batchGate) sawResponse(resp *jsonrpc.Response) {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.initID == nil || resp.ID != *g.initID {
		return
	}
	var result struct {
		ProtocolVersion string `json:"protocolVersion"`
	}
	if resp.Error == nil && json.Unmarshal(resp.Result, &result) == nil {
		g.version = result.ProtocolVersion
	}
	if g.answered != nil {
		close(g.answered)
	}
	g.initID, g.answered = nil, nil
}

// frameLimit bounds how much one JSON value may read (left, reset by the
// caller after each value).
type frameLimit struct {
	r    io.Reader
	left int
}

func (f *frameLimit) Read(p []byte) (int, error) {
	if f.left <= 0 {
		return 0, errStdioFrameTooLarge
	}
	if len(p) > f.left {
		p = p[:f.left]
	}
	n, err := f.r.Read(p)
	f.left -= n
	return n, err
}
