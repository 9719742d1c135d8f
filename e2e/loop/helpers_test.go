package loop

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"regexp"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/toolgate/toolgate/internal/cli"
	"github.com/toolgate/toolgate/internal/testing/syncbuf"
)

// command is a toolgate subcommand running in-process through cli.Run.
type command struct {
	out, logs syncbuf.Buffer
	stop      context.CancelFunc
	done      chan error
	halted    sync.Once
}

// start runs `toolgate args...` until stop; env is its whole environment.
func start(t *testing.T, env map[string]string, args ...string) *command {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	c := &command{stop: cancel, done: make(chan error, 1)}
	go func() {
		c.done <- cli.Run(ctx, args, func(k string) string { return env[k] }, strings.NewReader(""), &c.out, &c.logs)
	}()
	t.Cleanup(func() { c.halt(t) })
	return c
}

// halt stops the command and waits for it (idempotent).
func (c *command) halt(t *testing.T) {
	t.Helper()
	c.halted.Do(func() {
		c.stop()
		select {
		case err := <-c.done:
			if err != nil {
				t.Errorf("command ended with %v; log:\n%s", err, c.logs.String())
			}
		case <-time.After(15 * time.Second):
			t.Errorf("command did not stop; log:\n%s", c.logs.String())
		}
	})
}

// await returns the first submatch of re in the command's stdout. The
// bound is generous: a first start under -race on a loaded two-core
// machine (migrations, key generation) has taken over 15 s.
func (c *command) await(t *testing.T, re *regexp.Regexp) string {
	t.Helper()
	for deadline := time.Now().Add(60 * time.Second); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		if m := re.FindStringSubmatch(c.out.String()); m != nil {
			return m[1]
		}
	}
	t.Fatalf("no %s in stdout %q; log:\n%s", re, c.out.String(), c.logs.String())
	return ""
}

// eventually polls cond until it holds or 10 s pass.
func eventually(t *testing.T, what string, cond func() bool) {
	t.Helper()
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(25 * time.Millisecond) {
		if cond() {
			return
		}
	}
	t.Fatalf("timed out waiting until %s", what)
}

// proxy sits between the runtime and the console. Its target can change
// (a restarted console listens elsewhere) and, in tamper mode, it answers
// bundle fetches with the console's bundle whose payload was altered
// (version raised, signature kept): what an attacker on the path can do.
type proxy struct {
	*httptest.Server
	target  atomic.Value // string: console base URL
	tamper  atomic.Bool
	tampers atomic.Int64
}

func newProxy(t *testing.T, target string) *proxy {
	t.Helper()
	p := &proxy{}
	p.target.Store(target)
	p.Server = httptest.NewServer(http.HandlerFunc(p.serve))
	t.Cleanup(p.Close)
	return p
}

func (p *proxy) serve(w http.ResponseWriter, r *http.Request) {
	u, _ := url.Parse(p.target.Load().(string) + r.URL.RequestURI())
	out, _ := http.NewRequestWithContext(r.Context(), r.Method, u.String(), r.Body)
	out.Header = r.Header.Clone()
	tampering := p.tamper.Load() && r.URL.Path == "/api/v1/bundle"
	if tampering {
		out.Header.Del("If-None-Match") // fetch the body to alter it
	}
	resp, err := http.DefaultTransport.RoundTrip(out)
	if err != nil {
		http.Error(w, "console unreachable", http.StatusBadGateway)
		return
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	if tampering && resp.StatusCode == http.StatusOK {
		body = tamperPayload(body)
		p.tampers.Add(1)
		resp.Header.Set("ETag", `"tampered"`)
	}
	for k, v := range resp.Header {
		if k != "Content-Length" {
			w.Header()[k] = v
		}
	}
	w.WriteHeader(resp.StatusCode)
	_, _ = w.Write(body)
}

// tamperPayload raises the version inside a signed bundle's payload and
// keeps header and signature.
func tamperPayload(jws []byte) []byte {
	parts := strings.Split(string(bytes.TrimSpace(jws)), ".")
	if len(parts) != 3 {
		return jws
	}
	payload, err := base64.RawURLEncoding.DecodeString(parts[1])
	if err != nil {
		return jws
	}
	var m map[string]any
	if json.Unmarshal(payload, &m) != nil {
		return jws
	}
	m["version"] = m["version"].(float64) + 100
	altered, _ := json.Marshal(m)
	parts[1] = base64.RawURLEncoding.EncodeToString(altered)
	return []byte(strings.Join(parts, "."))
}
