// Package listen keeps a server's accept loop alive through the errors
// that pass: a listener that has run out of file descriptors (EMFILE,
// ENFILE), kernel memory (ENOBUFS, ENOMEM) or met a connection aborted
// before it was accepted. net/http waits such errors out itself; fasthttp
// returns them from Serve, which would end the console. Wrapping every
// listener gives all servers one behaviour.
package listen

import (
	"errors"
	"log/slog"
	"net"
	"sync"
	"syscall"
	"time"
)

// Backoff bounds of the wait after a passing accept error: the first wait
// is minWait, each further one doubles, up to maxWait (net/http's values).
const (
	minWait = 5 * time.Millisecond
	maxWait = time.Second
)

// Patient wraps ln so that Accept never returns an error that passes
// (Passing): it waits with backoff and accepts again, until a connection
// arrives or ln is closed. The first error of a run is logged at warning
// level with name, and the end of the run (how many accepts failed) at
// info level, so a flood writes two lines, not one per attempt.
func Patient(ln net.Listener, logger *slog.Logger, name string) net.Listener {
	return &patient{Listener: ln, log: logger, name: name, closed: make(chan struct{})}
}

type patient struct {
	net.Listener
	log       *slog.Logger
	name      string
	closed    chan struct{}
	closeOnce sync.Once
}

// Accept implements net.Listener.
func (p *patient) Accept() (net.Conn, error) {
	var (
		wait   time.Duration
		failed int
	)
	for {
		c, err := p.Listener.Accept()
		if err == nil {
			if failed > 0 {
				p.log.Info("accepting connections again", "server", p.name, "failed_accepts", failed)
			}
			return c, nil
		}
		if !Passing(err) {
			return nil, err
		}
		if failed == 0 {
			p.log.Warn("accepting a connection failed; waiting and retrying", "server", p.name, "err", err)
		}
		failed++
		wait = min(max(2*wait, minWait), maxWait)
		t := time.NewTimer(wait)
		select {
		case <-t.C:
		case <-p.closed:
			t.Stop()
			return nil, net.ErrClosed
		}
	}
}

// Close implements net.Listener; it also ends a wait in Accept.
func (p *patient) Close() error {
	p.closeOnce.Do(func() { close(p.closed) })
	return p.Listener.Close()
}

// Passing reports whether an accept error goes away by itself: the
// process or system is out of file descriptors or memory for a moment,
// the client gave up before the connection was accepted, or a timeout.
func Passing(err error) bool {
	for _, errno := range []syscall.Errno{syscall.EMFILE, syscall.ENFILE, syscall.ENOBUFS, syscall.ENOMEM,
		syscall.ECONNABORTED, syscall.ECONNRESET, syscall.EINTR, syscall.EAGAIN, syscall.EPROTO} {
		if errors.Is(err, errno) {
			return true
		}
	}
	var ne net.Error
	return errors.As(err, &ne) && ne.Timeout()
}
