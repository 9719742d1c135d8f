package cli

import (
	"bytes"
	"fmt"
	"log/slog"
	"strings"
	"sync"
	"testing"
	"time"
)

// lockedBuffer is a bytes.Buffer safe for the flush timer's goroutine,
// counting the writes that reach it.
type lockedBuffer struct {
	mu     sync.Mutex
	b      bytes.Buffer
	writes int
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.writes++
	return l.b.Write(p)
}

func (l *lockedBuffer) read() (string, int) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String(), l.writes
}

func TestLogBufferHoldsInfoLinesUntilItsTimer(t *testing.T) {
	out := &lockedBuffer{}
	buf := newLogBuffer(out, 50*time.Millisecond)
	defer buf.Close()
	log := slog.New(flushingHandler{Handler: slog.NewTextHandler(buf, nil), buf: buf})
	start := time.Now()
	for i := range 3 {
		log.Info("tool call", "n", i)
	}
	// On a loaded machine the timer may fire between two of the writes;
	// only writes that all fit in the interval must become one.
	together := time.Since(start) < 50*time.Millisecond
	if got, _ := out.read(); got != "" && together {
		t.Fatalf("INFO lines were written before the flush interval: %q", got)
	}
	deadline := time.Now().Add(5 * time.Second)
	for {
		got, writes := out.read()
		if strings.Count(got, "msg=\"tool call\"") == 3 {
			if together && writes != 1 {
				t.Errorf("3 lines took %d writes, want 1", writes)
			}
			if waited := time.Since(start); waited < 50*time.Millisecond {
				t.Errorf("flushed after %v, before the 50ms interval", waited)
			}
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("INFO lines never flushed: %q", got)
		}
		time.Sleep(5 * time.Millisecond)
	}
	// The timer re-arms for the next line.
	log.Info("later")
	for deadline := time.Now().Add(5 * time.Second); ; time.Sleep(5 * time.Millisecond) {
		if got, _ := out.read(); strings.Contains(got, "msg=later") {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the second INFO line never flushed")
		}
	}
}

func TestLogBufferWritesWarningsAtOnceInOrder(t *testing.T) {
	out := &lockedBuffer{}
	buf := newLogBuffer(out, time.Hour)
	defer buf.Close()
	log := slog.New(flushingHandler{Handler: slog.NewTextHandler(buf, nil), buf: buf}).With("runtime", "r1")
	log.Info("first")
	log.Info("second")
	if got, _ := out.read(); got != "" {
		t.Fatalf("INFO written at once: %q", got)
	}
	log.WithGroup("g").Warn("bad", "k", "v")
	got, writes := out.read()
	i1, i2, i3 := strings.Index(got, "msg=first"), strings.Index(got, "msg=second"), strings.Index(got, "msg=bad")
	if i1 < 0 || i2 < i1 || i3 < i2 {
		t.Fatalf("a WARN line did not write the lines before it, in order: %q", got)
	}
	if !strings.Contains(got, "runtime=r1") || !strings.Contains(got, "g.k=v") || writes != 1 {
		t.Errorf("attrs or groups lost, or %d writes: %q", writes, got)
	}
	log.Error("worse")
	if got, _ := out.read(); !strings.Contains(got, "msg=worse") {
		t.Errorf("an ERROR line waited: %q", got)
	}
}

func TestLogBufferWritesWhenFullAndThroughAfterClose(t *testing.T) {
	out := &lockedBuffer{}
	buf := newLogBuffer(out, time.Hour)
	line := strings.Repeat("x", 1023) + "\n"
	for range logBufferMax/len(line) - 1 {
		_, _ = buf.Write([]byte(line))
	}
	if got, _ := out.read(); got != "" {
		t.Fatalf("written before the buffer was full: %d bytes", len(got))
	}
	_, _ = buf.Write([]byte(line))
	if got, writes := out.read(); len(got) != logBufferMax || writes != 1 {
		t.Fatalf("full buffer: %d bytes in %d writes, want %d in 1", len(got), writes, logBufferMax)
	}
	_, _ = buf.Write([]byte("tail\n"))
	if err := buf.Close(); err != nil {
		t.Fatal(err)
	}
	if got, _ := out.read(); !strings.HasSuffix(got, "tail\n") {
		t.Fatal("Close did not flush the waiting line")
	}
	_, _ = buf.Write([]byte("after\n"))
	if got, _ := out.read(); !strings.HasSuffix(got, "after\n") {
		t.Fatal("a write after Close waited")
	}
}

// Lines written from many goroutines come out whole, each once.
func TestLogBufferKeepsConcurrentLinesWhole(t *testing.T) {
	out := &lockedBuffer{}
	buf := newLogBuffer(out, time.Millisecond)
	log := slog.New(flushingHandler{Handler: slog.NewTextHandler(buf, nil), buf: buf})
	var wg sync.WaitGroup
	for g := range 8 {
		wg.Go(func() {
			for i := range 500 {
				if i%100 == 99 {
					log.Warn("w", "g", g, "i", i)
				} else {
					log.Info("call", "g", g, "i", i)
				}
			}
		})
	}
	wg.Wait()
	if err := buf.Close(); err != nil {
		t.Fatal(err)
	}
	got, _ := out.read()
	lines := strings.Split(strings.TrimSuffix(got, "\n"), "\n")
	if len(lines) != 8*500 {
		t.Fatalf("%d lines, want %d", len(lines), 8*500)
	}
	seen := map[string]bool{}
	for _, l := range lines {
		i := strings.Index(l, " g=")
		if i < 0 || !strings.HasPrefix(l, "time=") {
			t.Fatalf("broken line %q", l)
		}
		seen[l[i:]] = true
	}
	for g := range 8 {
		for i := range 500 {
			if !seen[fmt.Sprintf(" g=%d i=%d", g, i)] {
				t.Fatalf("line g=%d i=%d missing", g, i)
			}
		}
	}
}
