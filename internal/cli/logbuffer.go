package cli

import (
	"context"
	"io"
	"log/slog"
	"sync"
	"time"
)

// The runtime writes one log line per tool call. Written one by one, each
// line is a write(2) to stderr on the call's path: the line was 2.9% of
// the runtime's CPU, half of it the write (BenchmarkRuntimeProcess under
// perf, 1,000 tools, one session). A logBuffer gathers the lines and
// writes them together, at most logFlushEvery after the first one waiting;
// a line of level WARN or above is written at once, with every line before
// it. What a crash outside Run's goroutine or a hard kill (SIGKILL, the
// OOM killer) loses is the INFO lines of its last logFlushEvery: the call
// records sent to the console are the calls' account, not this log.

// logFlushEvery is how long an INFO line may wait in the buffer.
const logFlushEvery = 100 * time.Millisecond

// logBufferMax is how many waiting bytes make the buffer write at once.
const logBufferMax = 64 << 10

// logBuffer is an io.Writer that holds whole lines (slog writes one line
// per Write) until Flush, logFlushEvery after the first waiting line, or
// logBufferMax bytes. After Close it writes through.
type logBuffer struct {
	mu     sync.Mutex
	w      io.Writer
	every  time.Duration
	buf    []byte
	timer  *time.Timer // armed while buf holds lines
	armed  bool
	closed bool
}

func newLogBuffer(w io.Writer, every time.Duration) *logBuffer {
	b := &logBuffer{w: w, every: every}
	b.timer = time.AfterFunc(time.Hour, func() { _ = b.Flush() })
	b.timer.Stop()
	return b
}

// Write keeps p for the next flush. A write error surfaces at the flush
// that meets it, where nobody reads it: stderr's errors were never
// actionable for a log line.
func (b *logBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.closed {
		return b.w.Write(p)
	}
	b.buf = append(b.buf, p...)
	switch {
	case len(b.buf) >= logBufferMax:
		b.flushLocked()
	case !b.armed:
		b.armed = true
		b.timer.Reset(b.every)
	}
	return len(p), nil
}

// Flush writes every waiting line.
func (b *logBuffer) Flush() error {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.flushLocked()
}

func (b *logBuffer) flushLocked() error {
	if b.armed {
		b.timer.Stop()
		b.armed = false
	}
	if len(b.buf) == 0 {
		return nil
	}
	_, err := b.w.Write(b.buf)
	if cap(b.buf) > 4*logBufferMax { // one burst of long lines is not kept
		b.buf = nil
	} else {
		b.buf = b.buf[:0]
	}
	return err
}

// Close flushes and makes later writes go straight through.
func (b *logBuffer) Close() error {
	b.mu.Lock()
	defer b.mu.Unlock()
	err := b.flushLocked()
	b.closed = true
	return err
}

// flushingHandler is a slog.Handler writing into a logBuffer that flushes
// it after every record of level WARN or above, so warnings and errors
// are never late and never ahead of the lines before them.
type flushingHandler struct {
	slog.Handler
	buf *logBuffer
}

func (h flushingHandler) Handle(ctx context.Context, r slog.Record) error {
	err := h.Handler.Handle(ctx, r)
	if r.Level >= slog.LevelWarn {
		if ferr := h.buf.Flush(); err == nil {
			err = ferr
		}
	}
	return err
}

func (h flushingHandler) WithAttrs(attrs []slog.Attr) slog.Handler {
	return flushingHandler{Handler: h.Handler.WithAttrs(attrs), buf: h.buf}
}

func (h flushingHandler) WithGroup(name string) slog.Handler {
	return flushingHandler{Handler: h.Handler.WithGroup(name), buf: h.buf}
}

// bufferedLogger is a text logger on w whose lines below WARN are buffered
// (logBuffer); close flushes it and must run before the program exits.
func bufferedLogger(w io.Writer, level slog.Leveler) (logger *slog.Logger, close func()) {
	buf := newLogBuffer(w, logFlushEvery)
	h := flushingHandler{Handler: slog.NewTextHandler(buf, &slog.HandlerOptions{Level: level}), buf: buf}
	return slog.New(h), func() { _ = buf.Close() }
}
