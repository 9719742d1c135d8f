package runtime

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/auth"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// DefaultStdioDrain is how long ServeStdio keeps answering requests it
// has read after stdin ends: long enough for a tool call under the default
// policies (8 s attempts) to finish, short enough that a client that went
// away does not leave a process behind for long.
const DefaultStdioDrain = 30 * time.Second

// ServeStdio serves MCP on stdin and stdout, newline-delimited JSON-RPC,
// until stdin ends or ctx is done. When stdin ends, every request already
// read is still answered before it returns — `printf '...' | toolgate
// runtime --stdio` gets all its responses — waiting at most drain
// (DefaultStdioDrain when zero or less); calls still running then are
// cancelled. The end of stdin is a normal end and returns nil.
func (r *Runtime) ServeStdio(ctx context.Context, stdin io.Reader, stdout io.Writer, drain time.Duration) error {
	if drain <= 0 {
		drain = DefaultStdioDrain
	}
	out := &lockedWriter{w: stdout}
	gate := &batchGate{out: out, stop: make(chan struct{})}
	pr, pw := io.Pipe()
	defer close(gate.stop)
	defer pr.Close() // ends the filter once the session is over
	go gate.filter(ctx, stdin, pw)
	t := &drainingTransport{
		inner: &mcp.IOTransport{Reader: pr, Writer: nopWriteCloser{out}},
		drain: drain, log: r.log, gate: gate,
	}
	if p := r.opts.StdioPrincipal; p.Kind != "" {
		t.info = p.TokenInfo(nil)
	}
	err := r.server.Run(ctx, t)
	if err == nil || ctx.Err() != nil || errors.Is(err, mcp.ErrConnectionClosed) || errors.Is(err, io.EOF) {
		return nil
	}
	return fmt.Errorf("runtime: stdio: %w", err)
}

type nopWriteCloser struct{ io.Writer }

func (nopWriteCloser) Close() error { return nil }

// drainingTransport wraps a transport so that the end of its input is
// reported only once every request read from it has been answered. The
// SDK closes the session as soon as Read fails, cancelling the handlers of
// requests still in flight and dropping requests it had read but not yet
// dispatched; holding the error back until their responses are written is
// the one place that sees both sides.
//
// The wrapper hides the IOTransport connection's internal session hook, so
// the SDK's own refusal of JSON-RPC batches under protocol 2025-06-18 and
// later does not apply; gate does it instead, told by the connection the
// version negotiated (stdio_batch.go).
type drainingTransport struct {
	inner mcp.Transport
	drain time.Duration
	log   *slog.Logger
	gate  *batchGate
	// info carries the stdio principal to every request read, where a
	// verifier would put it on HTTP (principalOf reads it back); nil keeps
	// requests anonymous.
	info *auth.TokenInfo
}

// Connect implements mcp.Transport.
func (t *drainingTransport) Connect(ctx context.Context) (mcp.Connection, error) {
	c, err := t.inner.Connect(ctx)
	if err != nil {
		return nil, err
	}
	return &drainingConn{Connection: c, t: t, pending: map[jsonrpc.ID]int{}}, nil
}

// drainingConn counts the calls read (requests with an id) and the
// responses written, by id.
type drainingConn struct {
	mcp.Connection
	t *drainingTransport

	mu      sync.Mutex
	pending map[jsonrpc.ID]int
	idle    chan struct{} // closed when pending becomes empty; nil while it is
}

// Read implements mcp.Connection.
func (c *drainingConn) Read(ctx context.Context) (jsonrpc.Message, error) {
	msg, err := c.Connection.Read(ctx)
	if err != nil {
		c.wait(ctx)
		return nil, err
	}
	req, ok := msg.(*jsonrpc.Request)
	if ok {
		c.t.gate.sawRequest(req)
		if c.t.info != nil && req.Extra == nil {
			req.Extra = &mcp.RequestExtra{TokenInfo: c.t.info}
		}
	}
	if ok && req.IsCall() {
		c.mu.Lock()
		if len(c.pending) == 0 {
			c.idle = make(chan struct{})
		}
		c.pending[req.ID]++
		c.mu.Unlock()
	}
	return msg, nil
}

// Write implements mcp.Connection. A response counts as answered once it
// was handed to the writer, whether or not writing succeeded: a failed
// write ends the session anyway.
func (c *drainingConn) Write(ctx context.Context, msg jsonrpc.Message) error {
	err := c.Connection.Write(ctx, msg)
	if resp, ok := msg.(*jsonrpc.Response); ok {
		c.t.gate.sawResponse(resp)
		c.mu.Lock()
		if n, ok := c.pending[resp.ID]; ok {
			if n <= 1 {
				delete(c.pending, resp.ID)
			} else {
				c.pending[resp.ID] = n - 1
			}
			if len(c.pending) == 0 {
				close(c.idle)
				c.idle = nil
			}
		}
		c.mu.Unlock()
	}
	return err
}

// wait blocks until every call read has been answered, the drain time has
// passed, or ctx is done.
func (c *drainingConn) wait(ctx context.Context) {
	c.mu.Lock()
	idle := c.idle
	c.mu.Unlock()
	if idle == nil {
		return
	}
	timer := time.NewTimer(c.t.drain)
	defer timer.Stop()
	select {
	case <-idle:
	case <-ctx.Done():
	case <-timer.C:
		c.mu.Lock()
		n := len(c.pending)
		c.mu.Unlock()
		c.t.log.Warn("stdin ended; giving up on requests still unanswered", "unanswered", n, "waited", c.t.drain)
	}
}
