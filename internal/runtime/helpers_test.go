package runtime

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/toolgate/toolgate/internal/bundle"
	"github.com/toolgate/toolgate/internal/executor"
	"github.com/toolgate/toolgate/internal/policy"
	"github.com/toolgate/toolgate/internal/principal"
	"github.com/toolgate/toolgate/internal/risk"
	"github.com/toolgate/toolgate/internal/sampleapi"
)

// t0 is the start of every test's fake clock.
var t0 = time.Date(2025, 6, 1, 12, 0, 0, 0, time.UTC)

const testToken = "runtime-token-secret"

// clock is a settable fake clock shared by a test and its runtime.
type clock struct{ ns atomic.Int64 }

func newClock() *clock                   { c := &clock{}; c.ns.Store(t0.UnixNano()); return c }
func (c *clock) Now() time.Time          { return time.Unix(0, c.ns.Load()).UTC() }
func (c *clock) Advance(d time.Duration) { c.ns.Add(int64(d)) }

func testKey(t testing.TB, n byte) bundle.SigningKey {
	t.Helper()
	k, err := bundle.GenerateKey(bytes.NewReader(bytes.Repeat([]byte{n}, 32)), t0)
	if err != nil {
		t.Fatal(err)
	}
	return k
}

func keySet(keys ...bundle.SigningKey) *bundle.KeySet {
	s := &bundle.KeySet{}
	for _, k := range keys {
		s.Keys = append(s.Keys, k.Public())
	}
	return s
}

// Tools of the sample API as the console would publish them.
func getOrderTool() bundle.ToolInput {
	d := policy.BuiltinDefaults()
	d.ExposeNewReadTools = true
	return bundle.ToolInput{Name: "getOrder", Source: "shop", Method: "GET", Path: "/orders/{order_id}",
		Description: "Get an order",
		Params:      []bundle.Param{{Name: "order_id", In: "path", Arg: "order_id", Required: true}},
		InputSchema: json.RawMessage(`{"type":"object","required":["order_id"],"properties":{"order_id":{"type":"string"}}}`),
		Assessment:  risk.Assessment{Class: risk.Read, Reasons: []risk.Reason{{Code: "method:GET", Class: risk.Read, Text: "GET reads"}}},
		Policy:      policy.NewToolPolicy("GET", risk.Read, d)}
}

func createOrderTool(key *policy.IdempotencyKey) bundle.ToolInput {
	p := policy.NewToolPolicy("POST", risk.Write, policy.BuiltinDefaults())
	p.Exposed, p.IdempotencyKey = true, key
	return bundle.ToolInput{Name: "createOrder", Source: "shop", Method: "POST", Path: "/orders",
		Description: "Create an order",
		Body:        &bundle.Body{Arg: "body", Required: true, MediaType: "application/json"},
		InputSchema: json.RawMessage(`{"type":"object","required":["body"],"properties":{"body":{"type":"object"}}}`),
		Assessment:  risk.Assessment{Class: risk.Write, Reasons: []risk.Reason{{Code: "method:POST", Class: risk.Write, Text: "POST creates"}}},
		Policy:      p}
}

func deleteOrderTool() bundle.ToolInput {
	p := policy.NewToolPolicy("DELETE", risk.Destructive, policy.BuiltinDefaults())
	p.Exposed = true
	return bundle.ToolInput{Name: "deleteOrder", Source: "shop", Method: "DELETE", Path: "/orders/{order_id}",
		Description: "Delete an order",
		Params:      []bundle.Param{{Name: "order_id", In: "path", Arg: "order_id", Required: true}},
		InputSchema: json.RawMessage(`{"type":"object","required":["order_id"],"properties":{"order_id":{"type":"string"}}}`),
		Assessment:  risk.Assessment{Class: risk.Destructive, Reasons: []risk.Reason{{Code: "method:DELETE", Class: risk.Destructive, Text: "DELETE removes"}}},
		Policy:      p,
		Approvals:   []bundle.Approval{{ChangeRequest: 1, ApprovedBy: "sec", ApprovedAt: t0, Summary: "expose deleteOrder"}}}
}

// signBundle builds and signs a bundle of tools against origin.
func signBundle(t testing.TB, k bundle.SigningKey, version int64, now time.Time, ttl time.Duration, origin string, tools ...bundle.ToolInput) []byte {
	t.Helper()
	b, err := bundle.Build(bundle.BuildInput{Version: version, Now: now, TTL: ttl,
		Sources: []bundle.Source{{Name: "shop", Origin: origin}}, Tools: tools})
	if err != nil {
		t.Fatalf("Build: %v", err)
	}
	signed, err := bundle.Sign(b, k)
	if err != nil {
		t.Fatalf("Sign: %v", err)
	}
	return signed
}

// fakeConsole serves the runtime API the way the console does: the current
// signed bundle with a strong ETag, 304 on If-None-Match, 401 on a wrong
// token, and the JWKS. It records the identifying headers of each fetch.
type fakeConsole struct {
	*httptest.Server
	mu       sync.Mutex
	signed   []byte
	keys     bundle.KeySet
	down     bool
	fetches  []http.Header
	keyCalls int
}

func newFakeConsole(t testing.TB, keys *bundle.KeySet) *fakeConsole {
	t.Helper()
	c := &fakeConsole{keys: *keys}
	c.Server = httptest.NewServer(http.HandlerFunc(c.serve))
	t.Cleanup(c.Close)
	return c
}

func (c *fakeConsole) publish(signed []byte) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.signed = signed
}

func (c *fakeConsole) setDown(down bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.down = down
}

func (c *fakeConsole) requests() []http.Header {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([]http.Header(nil), c.fetches...)
}

func (c *fakeConsole) serve(w http.ResponseWriter, r *http.Request) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.down {
		http.Error(w, "down", http.StatusServiceUnavailable)
		return
	}
	if r.Header.Get("Authorization") != "Bearer "+testToken {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusUnauthorized)
		fmt.Fprint(w, `{"error":"unauthorized"}`)
		return
	}
	switch r.URL.Path {
	case "/api/v1/keys":
		c.keyCalls++
		_ = json.NewEncoder(w).Encode(c.keys)
	case "/api/v1/bundle":
		c.fetches = append(c.fetches, r.Header.Clone())
		if c.signed == nil {
			http.NotFound(w, r)
			return
		}
		sum := sha256.Sum256(c.signed)
		etag := `"` + hex.EncodeToString(sum[:]) + `"`
		w.Header().Set("ETag", etag)
		if r.Header.Get("If-None-Match") == etag {
			w.WriteHeader(http.StatusNotModified)
			return
		}
		w.Header().Set("Content-Type", "application/jose")
		_, _ = w.Write(c.signed)
	default:
		http.NotFound(w, r)
	}
}

// upstream starts the sample API.
func upstream(t testing.TB) (*sampleapi.Server, *httptest.Server) {
	t.Helper()
	api := sampleapi.New(sampleapi.Options{})
	srv := httptest.NewServer(api)
	t.Cleanup(srv.Close)
	return api, srv
}

// credentials for the sample API (bearer over http: local development).
func sampleCredentials(t testing.TB) executor.Options {
	t.Helper()
	creds, err := executor.ParseCredentials([]byte(`{"sources":{"shop":{"bearer":"`+sampleapi.DefaultToken+`"}}}`), nil)
	if err != nil {
		t.Fatal(err)
	}
	return executor.Options{Credentials: creds, AllowInsecureCredentials: true}
}

type rtOpts struct {
	dir     string
	keys    *bundle.KeySet
	tofu    bool
	clock   *clock
	logs    io.Writer
	console string
	origins []string
	stdio   principal.Principal
	schemas []string // Options.BundleSchemas
}

// newRuntime builds a runtime against a console with the test's options.
func newRuntime(t testing.TB, o rtOpts) *Runtime {
	t.Helper()
	r, err := tryRuntime(t, o)
	if err != nil {
		t.Fatalf("New: %v", err)
	}
	return r
}

func tryRuntime(t testing.TB, o rtOpts) (*Runtime, error) {
	t.Helper()
	if o.dir == "" {
		o.dir = t.TempDir()
	}
	if o.clock == nil {
		o.clock = newClock()
	}
	log := slog.New(slog.DiscardHandler)
	if o.logs != nil {
		log = slog.New(slog.NewJSONHandler(o.logs, nil))
	}
	return New(Options{ConsoleURL: o.console, Token: testToken, Name: "test-rt", DataDir: o.dir,
		TrustedKeys: o.keys, TrustOnFirstUse: o.tofu, MaxStaleness: 10 * time.Minute,
		Executor: sampleCredentials(t), Logger: log, Now: o.clock.Now, Version: "test", AllowedOrigins: o.origins,
		StdioPrincipal: o.stdio, BundleSchemas: o.schemas})
}

func mustSync(t testing.TB, r *Runtime) {
	t.Helper()
	if err := r.Sync(context.Background()); err != nil {
		t.Fatalf("Sync: %v", err)
	}
}
