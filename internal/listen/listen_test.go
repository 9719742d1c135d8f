package listen

import (
	"bytes"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"os"
	"strings"
	"syscall"
	"testing"
	"time"
)

// failing is a listener whose Accept fails with errs in turn, then
// accepts from the real listener.
type failing struct {
	net.Listener
	errs []error
}

func (f *failing) Accept() (net.Conn, error) {
	if len(f.errs) > 0 {
		err := f.errs[0]
		f.errs = f.errs[1:]
		return nil, err
	}
	return f.Listener.Accept()
}

func loopback(t *testing.T) net.Listener {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	return ln
}

// TestPatientWaitsOutPassingErrors: EMFILE, ENFILE and an aborted
// connection, wrapped as net.Listen returns them, are waited out and the
// next connection accepted; the log has one warning and one recovery line.
func TestPatientWaitsOutPassingErrors(t *testing.T) {
	ln := loopback(t)
	op := func(e syscall.Errno) error {
		return &net.OpError{Op: "accept", Net: "tcp", Err: os.NewSyscallError("accept4", e)}
	}
	var logs bytes.Buffer
	p := Patient(&failing{Listener: ln, errs: []error{op(syscall.EMFILE), op(syscall.ENFILE), op(syscall.EMFILE), op(syscall.ECONNABORTED)}},
		slog.New(slog.NewTextHandler(&logs, nil)), "test")
	go func() {
		if c, err := net.Dial("tcp", ln.Addr().String()); err == nil {
			defer c.Close()
			time.Sleep(time.Second)
		}
	}()
	c, err := p.Accept()
	if err != nil {
		t.Fatalf("Accept after passing errors: %v", err)
	}
	c.Close()
	if n := strings.Count(logs.String(), "level=WARN"); n != 1 {
		t.Errorf("%d warnings, want 1: %s", n, logs.String())
	}
	if !strings.Contains(logs.String(), "failed_accepts=4") {
		t.Errorf("no recovery line counting 4 failed accepts: %s", logs.String())
	}
}

// TestPatientReturnsOtherErrorsAndClose: an error that does not pass is
// returned as it is, and Close ends a wait at once with net.ErrClosed.
func TestPatientReturnsOtherErrorsAndClose(t *testing.T) {
	ln := loopback(t)
	logger := slog.New(slog.DiscardHandler)
	bad := errors.New("listener broken")
	if _, err := Patient(&failing{Listener: ln, errs: []error{bad}}, logger, "test").Accept(); !errors.Is(err, bad) {
		t.Errorf("Accept = %v, want %v", err, bad)
	}
	errs := make([]error, 100)
	for i := range errs {
		errs[i] = fmt.Errorf("accept: %w", syscall.EMFILE)
	}
	p := Patient(&failing{Listener: ln, errs: errs}, logger, "test")
	done := make(chan error, 1)
	go func() { _, err := p.Accept(); done <- err }()
	time.Sleep(100 * time.Millisecond)
	start := time.Now()
	p.Close()
	select {
	case err := <-done:
		if !errors.Is(err, net.ErrClosed) {
			t.Errorf("Accept after Close = %v, want net.ErrClosed", err)
		}
		if d := time.Since(start); d > 500*time.Millisecond {
			t.Errorf("Accept returned %v after Close", d)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("Accept still waiting 5 s after Close")
	}
}
