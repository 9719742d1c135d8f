package runtimeapi

import (
	"bufio"
	"context"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http/httptest"
	"os"
	"os/exec"
	goruntime "runtime"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/valyala/fasthttp"

	"github.com/toolgate/toolgate/internal/store"
)

var waitersFlag = flag.Int("waiters", 10000, "long-poll waiters BenchmarkLongPollWaiters holds")

// The client side of BenchmarkLongPollWaiters runs in a child process
// (this test binary again, told so by childEnv): the file limit is per
// process, and the console's memory is measured without the clients'.
const childEnv = "TOOLGATE_LONG_POLL_CHILD"

// BenchmarkLongPollWaiters holds -waiters (10,000) long polls on one
// console, on each listener, and reports what a waiter costs the console:
// Go heap and stacks (and the RSS) after against before, divided by the
// waiters; then one publish answers them all and the time until the last
// has its 200 is reported. b.N is not used (run with -benchtime 1x).
func BenchmarkLongPollWaiters(b *testing.B) {
	for _, listener := range []string{"fasthttp", "net-http"} {
		b.Run(listener, func(b *testing.B) {
			a := newBenchApp(b)
			addr := serveBench(b, a, listener)
			n := *waitersFlag
			goruntime.GC()
			before := memNow()
			child, ready, answered := startChild(b, fmt.Sprintf("%s|%d|%s|%s", addr, n, a.token, a.etag))
			if err := <-ready; err != nil {
				b.Fatal(err)
			}
			for deadline := time.Now().Add(time.Minute); a.srv.LongPollWaiters() < n; time.Sleep(10 * time.Millisecond) {
				if time.Now().After(deadline) {
					b.Fatalf("%d of %d waiters after a minute", a.srv.LongPollWaiters(), n)
				}
			}
			goruntime.GC()
			held := memNow()
			perGo := float64(held.goBytes-before.goBytes) / float64(n)
			perRSS := float64(held.rss-before.rss) / float64(n)
			start := time.Now()
			a.publishNext(b)
			if err := <-answered; err != nil {
				b.Fatal(err)
			}
			wakeAll := time.Since(start)
			_ = child.Wait()
			b.ReportMetric(perGo, "go-bytes/waiter")
			b.ReportMetric(perRSS, "rss-bytes/waiter")
			b.ReportMetric(float64(wakeAll.Milliseconds()), "ms-publish-to-all-answered")
			fmt.Printf("\n%s: %d waiters held on one console: %.0f bytes/waiter (Go heap+stacks), %.0f bytes/waiter (RSS); "+
				"a publish answered all of them 200 in %v\n", listener, n, perGo, perRSS, wakeAll.Round(time.Millisecond))
		})
	}
}

func (a *benchApp) publishNext(b testing.TB) {
	b.Helper()
	key, err := a.keys.Active(context.Background())
	if err != nil {
		b.Fatal(err)
	}
	if _, err := a.db.Rollback(context.Background(), store.PublishRequest{Actor: "bench", Key: key}, 1); err != nil {
		b.Fatal(err)
	}
}

// serveBench serves a on loopback on one listener, without connection
// limits, and returns its address.
func serveBench(b *testing.B, a *benchApp, listener string) string {
	b.Helper()
	if listener == "net-http" {
		hs := httptest.NewServer(a.srv)
		b.Cleanup(func() { a.srv.StopWaiting(); hs.Close() })
		return hs.Listener.Addr().String()
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		b.Fatal(err)
	}
	// The read buffer serve gives the listener (runtimeAPIServer): held by
	// every waiting connection.
	fs := &fasthttp.Server{Handler: a.srv.FastHTTP(), Concurrency: 1 << 20, ReadBufferSize: 16 << 10}
	go func() { _ = fs.Serve(ln) }()
	b.Cleanup(func() { a.srv.StopWaiting(); _ = fs.Shutdown() })
	return ln.Addr().String()
}

// mem is what BenchmarkLongPollWaiters compares.
type mem struct{ goBytes, rss uint64 }

func memNow() mem {
	var ms goruntime.MemStats
	goruntime.ReadMemStats(&ms)
	m := mem{goBytes: ms.HeapInuse + ms.StackInuse}
	if b, err := os.ReadFile("/proc/self/statm"); err == nil {
		if f := strings.Fields(string(b)); len(f) > 1 {
			pages, _ := strconv.ParseUint(f[1], 10, 64)
			m.rss = pages * uint64(os.Getpagesize())
		}
	}
	return m
}

// startChild runs the client process; ready is sent once every request is
// written, answered once every answer is read (a 200 each).
func startChild(b *testing.B, spec string) (*exec.Cmd, <-chan error, <-chan error) {
	b.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), childEnv+"="+spec)
	cmd.Stderr = os.Stderr
	out, err := cmd.StdoutPipe()
	if err != nil {
		b.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
	ready, answered := make(chan error, 1), make(chan error, 1)
	go func() {
		sc := bufio.NewScanner(out)
		for _, ch := range []chan error{ready, answered} {
			if !sc.Scan() {
				ch <- fmt.Errorf("client process ended: %v", sc.Err())
				return
			}
			if line := sc.Text(); line != "ok" {
				ch <- fmt.Errorf("client process: %s", line)
				continue
			}
			ch <- nil
		}
	}()
	return cmd, ready, answered
}

// longPollChild opens n connections to addr, sends a held conditional GET
// on each, prints "ok" once all are sent and "ok" again once each was
// answered 200 (or the problem instead).
func longPollChild(spec string) int {
	f := strings.Split(spec, "|")
	n, _ := strconv.Atoi(f[1])
	req := "GET /api/v1/bundle HTTP/1.1\r\nHost: console\r\nAuthorization: Bearer " + f[2] + "\r\nIf-None-Match: " + f[3] +
		"\r\nPrefer: wait=60\r\n\r\n"
	conns := make([]net.Conn, n)
	for i := range conns {
		c, err := net.Dial("tcp", f[0])
		if err == nil {
			_, err = io.WriteString(c, req)
		}
		if err != nil {
			fmt.Printf("connection %d: %v\n", i, err)
			return 1
		}
		conns[i] = c
	}
	fmt.Println("ok")
	var wg sync.WaitGroup
	var mu sync.Mutex
	bad := ""
	for _, c := range conns {
		wg.Go(func() {
			_ = c.SetReadDeadline(time.Now().Add(2 * time.Minute))
			line, err := bufio.NewReader(c).ReadString('\n')
			if err != nil || !strings.HasPrefix(line, "HTTP/1.1 200") {
				mu.Lock()
				bad = fmt.Sprintf("answer %q %v", strings.TrimSpace(line), err)
				mu.Unlock()
			}
		})
	}
	wg.Wait()
	if bad != "" {
		fmt.Println(bad)
		return 1
	}
	fmt.Println("ok")
	return 0
}
