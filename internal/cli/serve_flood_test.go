package cli

import (
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"os/signal"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/toolgate/toolgate/internal/testing/syncbuf"
)

// childNoFileEnv, set in the environment of this test binary, makes it run
// the command in its arguments (Run) under that file limit instead of the
// tests: a `serve` whose file descriptors a test can exhaust without
// touching its own.
const childNoFileEnv = "TOOLGATE_TEST_CHILD_NOFILE"

// runAsChild runs the command and exits when childNoFileEnv is set, and
// returns otherwise.
func runAsChild() {
	n, err := strconv.ParseUint(os.Getenv(childNoFileEnv), 10, 64)
	if err != nil {
		return
	}
	var lim syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_NOFILE, &lim); err != nil {
		fmt.Fprintln(os.Stderr, "getrlimit:", err)
		os.Exit(3)
	}
	lim.Cur = n
	if err := syscall.Setrlimit(syscall.RLIMIT_NOFILE, &lim); err != nil {
		fmt.Fprintln(os.Stderr, "setrlimit:", err)
		os.Exit(3)
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	err = Run(ctx, os.Args[1:], os.Getenv, os.Stdin, os.Stdout, os.Stderr)
	stop()
	os.Exit(ExitCode(err, os.Stderr))
}

// TestServeSurvivesAConnectionFlood starts `serve` with both listeners in a
// child process limited to 128 file descriptors and opens 600 idle
// connections to it, 300 to each listener (the runtime API's from ten
// loopback addresses, under its per-address limit): accepting fails with
// "too many open files", and serve waits it out instead of exiting. Once
// the flood ends, it answers /healthz and an authorised bundle fetch on
// the runtime API listener.
func TestServeSurvivesAConnectionFlood(t *testing.T) {
	dir := t.TempDir()
	seedOneTool(t, dir)
	mustPublishCLI(t, dir, "keys", "rotate")
	mustPublishCLI(t, dir, "publish")
	token := strings.TrimSpace(mustPublishCLI(t, dir, "token", "create", "--name", "edge"))

	cmd := exec.Command(os.Args[0], "serve", "--addr", "127.0.0.1:0", "--runtime-api-addr", "127.0.0.1:0", "--data-dir", dir)
	cmd.Env = append(os.Environ(), childNoFileEnv+"=128")
	var out, logs syncbuf.Buffer
	cmd.Stdout, cmd.Stderr = &out, &logs
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	t.Cleanup(func() {
		_ = cmd.Process.Signal(syscall.SIGTERM)
		select {
		case <-exited:
		case <-time.After(15 * time.Second):
			_ = cmd.Process.Kill()
		}
	})
	base, api := childAddrs(t, &out, &logs, exited)

	var flood []net.Conn
	defer func() {
		for _, c := range flood {
			c.Close()
		}
	}()
	consoleAddr := strings.TrimPrefix(base, "http://")
	for i := range 300 {
		for _, c := range []net.Conn{dialFlood(consoleAddr, "127.0.0.1"), dialFlood(api, fmt.Sprintf("127.0.0.%d", 2+i%10))} {
			if c != nil {
				flood = append(flood, c)
			}
		}
	}
	select {
	case err := <-exited:
		t.Fatalf("serve exited under the flood (%v); logs:\n%s", err, tail(logs.String()))
	case <-time.After(2 * time.Second):
	}
	if !strings.Contains(logs.String(), "too many open files") {
		t.Fatalf("the flood did not exhaust the file limit; logs:\n%s", tail(logs.String()))
	}
	for _, c := range flood {
		c.Close()
	}
	flood = nil

	deadline := time.Now().Add(15 * time.Second)
	for _, check := range []struct{ url, auth string }{{base + "/healthz", ""}, {"http://" + api + "/api/v1/bundle", "Bearer " + token}} {
		for {
			status, err := getStatus(check.url, check.auth)
			if status == http.StatusOK {
				break
			}
			if time.Now().After(deadline) {
				t.Fatalf("GET %s after the flood: %d %v; logs:\n%s", check.url, status, err, tail(logs.String()))
			}
			select {
			case err := <-exited:
				t.Fatalf("serve exited after the flood (%v); logs:\n%s", err, tail(logs.String()))
			case <-time.After(100 * time.Millisecond):
			}
		}
	}
}

// childAddrs waits for the child serve to print its console URL and its
// runtime API address.
func childAddrs(t *testing.T, out, logs *syncbuf.Buffer, exited <-chan error) (base, api string) {
	t.Helper()
	console := regexp.MustCompile(`toolgate is running at (http://127\.0\.0\.1:\d+)`)
	apiLine := regexp.MustCompile(`Runtime API listening on (127\.0\.0\.1:\d+)`)
	for deadline := time.Now().Add(20 * time.Second); time.Now().Before(deadline); {
		c, a := console.FindStringSubmatch(out.String()), apiLine.FindStringSubmatch(out.String())
		if c != nil && a != nil {
			return c[1], a[1]
		}
		select {
		case err := <-exited:
			t.Fatalf("serve exited (%v); stdout %q, logs:\n%s", err, out.String(), tail(logs.String()))
		case <-time.After(20 * time.Millisecond):
		}
	}
	t.Fatalf("serve printed no addresses; stdout %q, logs:\n%s", out.String(), tail(logs.String()))
	return "", ""
}

// dialFlood opens an idle connection to addr from the loopback address
// from; nil when the server's backlog is full.
func dialFlood(addr, from string) net.Conn {
	d := net.Dialer{Timeout: time.Second, LocalAddr: &net.TCPAddr{IP: net.ParseIP(from)}}
	c, err := d.Dial("tcp", addr)
	if err != nil {
		return nil
	}
	return c
}

// getStatus is the status of a GET of url on a fresh connection.
func getStatus(url, authorization string) (int, error) {
	req, err := http.NewRequest(http.MethodGet, url, nil)
	if err != nil {
		return 0, err
	}
	if authorization != "" {
		req.Header.Set("Authorization", authorization)
	}
	client := &http.Client{Timeout: 2 * time.Second, Transport: &http.Transport{DisableKeepAlives: true}}
	resp, err := client.Do(req)
	if err != nil {
		return 0, err
	}
	resp.Body.Close()
	return resp.StatusCode, nil
}

// tail is the end of a long log.
func tail(s string) string {
	if len(s) > 3000 {
		return "…" + s[len(s)-3000:]
	}
	return s
}

// TestRuntimeAPIConnectionLimits: with --runtime-api-max-conns-per-ip 2, a
// third connection from one address is answered 429 and closed while two
// are open, and one from another address is still served.
func TestRuntimeAPIConnectionLimits(t *testing.T) {
	dir := t.TempDir()
	seedOneTool(t, dir)
	ctx, cancel := context.WithCancel(context.Background())
	var out, logs syncbuf.Buffer
	done := make(chan error, 1)
	go func() {
		done <- Run(ctx, []string{"serve", "--addr", "127.0.0.1:0", "--runtime-api-addr", "127.0.0.1:0",
			"--runtime-api-max-conns-per-ip", "2"}, envOf(map[string]string{"TOOLGATE_DATA_DIR": dir}), strings.NewReader(""), &out, &logs)
	}()
	defer stopServe(t, cancel, done)
	_, api := childAddrs(t, &out, &logs, done)
	for range 2 {
		c := dialFlood(api, "127.0.0.1")
		if c == nil {
			t.Fatal("dial failed")
		}
		defer c.Close()
	}
	// The two are accepted before the third: wait until fasthttp counts them.
	time.Sleep(200 * time.Millisecond)
	c := dialFlood(api, "127.0.0.1")
	if c == nil {
		t.Fatal("dial failed")
	}
	defer c.Close()
	_ = c.SetReadDeadline(time.Now().Add(5 * time.Second))
	b, _ := io.ReadAll(c)
	if !strings.HasPrefix(string(b), "HTTP/1.1 429") {
		t.Errorf("third connection from one address got %q, want 429 and a close", b)
	}
	other := dialFlood(api, "127.0.0.2")
	if other == nil {
		t.Fatal("dial failed")
	}
	defer other.Close()
	_ = other.SetDeadline(time.Now().Add(5 * time.Second))
	if _, err := io.WriteString(other, "GET /api/v1/keys HTTP/1.1\r\nHost: toolgate\r\nConnection: close\r\n\r\n"); err != nil {
		t.Fatal(err)
	}
	if b, _ := io.ReadAll(other); !strings.HasPrefix(string(b), "HTTP/1.1 200") {
		t.Errorf("another address's request got %q", tail(string(b)))
	}
}
