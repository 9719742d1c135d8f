package runtime_test

import (
	"context"
	"log/slog"
	"net"
	"net/http/httptest"
	"path/filepath"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/valyala/fasthttp"

	"github.com/toolgate/toolgate/internal/bundle"
	"github.com/toolgate/toolgate/internal/keyring"
	"github.com/toolgate/toolgate/internal/risk"
	"github.com/toolgate/toolgate/internal/runtime"
	"github.com/toolgate/toolgate/internal/runtimeapi"
	"github.com/toolgate/toolgate/internal/store"
	"github.com/toolgate/toolgate/internal/store/storetest"
)

// TestWithdrawReachesMCPClientsInUnder2s: a runtime polling every 30 s
// (the default) against the real console, on both of its listeners; a
// publish that withdraws a tool reaches an MCP client connected to the
// runtime as notifications/tools/list_changed in under 2 s, because the
// runtime's request is held at the console and answered at the publish.
func TestWithdrawReachesMCPClientsInUnder2s(t *testing.T) {
	for _, listener := range []string{"console", "runtime API"} {
		t.Run(listener, func(t *testing.T) {
			c := startConsole(t, listener == "runtime API")
			rt := c.runtime(t, runtime.DefaultPollInterval)
			cs, changed := connectMCP(t, rt)
			// The version is in force a moment before its tools are listed
			// (install, then reconcile): wait for the list, not the version.
			waitUntil(t, "list_orders and delete_order to be listed", func() bool { return len(toolNames(t, cs)) == 2 })
			waitUntil(t, "the runtime's request to be held", func() bool { return c.api.LongPollWaiters() == 1 })

			took := c.withdraw(t, "delete_order", changed)
			t.Logf("%s listener: publish withdrawing a tool → list_changed at the MCP client: %v", listener, took.Round(time.Millisecond))
			if took >= 2*time.Second {
				t.Fatalf("list_changed %v after the publish, want under 2 s", took)
			}
			if got := toolNames(t, cs); len(got) != 1 || got[0] != "list_orders" {
				t.Fatalf("tools after the withdrawal %v, want only list_orders", got)
			}
		})
	}
}

// consoleUnderTest is the console's store and runtime API, served on its
// own listener or through fasthttp (--runtime-api-addr).
type consoleUnderTest struct {
	db    *store.DB
	keys  keyring.Keyring
	api   *runtimeapi.Service
	url   string
	token string
	tools map[string]int64
}

func startConsole(t testing.TB, fast bool) *consoleUnderTest {
	t.Helper()
	ctx := context.Background()
	c := &consoleUnderTest{db: storetest.MustOpen(t), tools: map[string]int64{}}
	for _, tool := range []struct {
		name, method string
		class        risk.Class
	}{{"list_orders", "GET", risk.Read}, {"delete_order", "GET", risk.Read}} {
		c.tools[tool.name] = storetest.MustAddTool(t, c.db, storetest.FixtureTool{Source: "orders", Origin: "https://api.example.com",
			Name: tool.name, Method: tool.method, Path: "/" + tool.name, Class: tool.class, Exposed: true})
	}
	c.keys = &keyring.Files{Dir: bundle.KeyDir{Path: filepath.Join(t.TempDir(), "keys")}, DB: c.db}
	if _, _, err := c.keys.EnsureActive(ctx, "system"); err != nil {
		t.Fatal(err)
	}
	storetest.Publish(t, c.db, c.keys, "first")
	c.token = storetest.RuntimeToken(t, c.db, "edge")
	api, err := runtimeapi.New(ctx, runtimeapi.Config{Store: c.db, Logger: slog.New(slog.DiscardHandler), Keys: c.keys})
	if err != nil {
		t.Fatal(err)
	}
	c.api = api
	t.Cleanup(func() { api.StopWaiting(); api.Close(context.Background()) })
	if !fast {
		hs := httptest.NewServer(api)
		t.Cleanup(hs.Close)
		c.url = hs.URL
		return c
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	fs := &fasthttp.Server{Handler: api.FastHTTP()}
	go func() { _ = fs.Serve(ln) }()
	t.Cleanup(func() { api.StopWaiting(); _ = fs.Shutdown() })
	c.url = "http://" + ln.Addr().String()
	return c
}

// runtime starts a runtime on c that serves v1, polling every poll.
func (c *consoleUnderTest) runtime(t testing.TB, poll time.Duration) *runtime.Runtime {
	t.Helper()
	pub := storetest.PublicKeys(t, c.keys)
	rt, err := runtime.New(runtime.Options{ConsoleURL: c.url, Token: c.token, Name: "edge", DataDir: t.TempDir(),
		TrustedKeys: &pub, PollInterval: poll})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { defer close(done); _ = rt.Run(ctx) }()
	t.Cleanup(func() { cancel(); <-done })
	waitUntil(t, "the runtime to serve v1", func() bool { return rt.Status().Version >= 1 })
	return rt
}

// withdraw unexposes a tool, publishes, and returns how long after the
// publish committed changed received list_changed.
func (c *consoleUnderTest) withdraw(t testing.TB, tool string, changed <-chan struct{}) time.Duration {
	t.Helper()
	ctx := context.Background()
	rec, err := c.db.ToolPolicy(ctx, c.tools[tool])
	if err != nil {
		t.Fatal(err)
	}
	p := rec.Policy
	p.Exposed = false
	if _, err := c.db.SavePolicy(ctx, "admin", rec.ToolID, rec.Version, p); err != nil {
		t.Fatal(err)
	}
	for len(changed) > 0 {
		<-changed
	}
	storetest.Publish(t, c.db, c.keys, "withdraw "+tool)
	at := time.Now()
	select {
	case <-changed:
		return time.Since(at)
	case <-time.After(40 * time.Second):
		t.Fatalf("no list_changed within 40 s of the publish")
		return 0
	}
}

func connectMCP(t testing.TB, rt *runtime.Runtime) (*mcp.ClientSession, chan struct{}) {
	t.Helper()
	changed := make(chan struct{}, 16)
	client := mcp.NewClient(&mcp.Implementation{Name: "agent", Version: "1"}, &mcp.ClientOptions{
		ToolListChangedHandler: func(context.Context, *mcp.ToolListChangedRequest) { changed <- struct{}{} }})
	ct, st := mcp.NewInMemoryTransports()
	ss, err := rt.Server().Connect(context.Background(), st, nil)
	if err != nil {
		t.Fatal(err)
	}
	cs, err := client.Connect(context.Background(), ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cs.Close(); ss.Wait() })
	return cs, changed
}

func toolNames(t testing.TB, cs *mcp.ClientSession) []string {
	t.Helper()
	var out []string
	for tool, err := range cs.Tools(context.Background(), nil) {
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, tool.Name)
	}
	return out
}

// waitUntil polls cond (a state nothing signals to the test), failing
// after 20 s.
func waitUntil(t testing.TB, what string, cond func() bool) {
	t.Helper()
	for deadline := time.Now().Add(20 * time.Second); !cond(); time.Sleep(5 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("%s: not within 20 s", what)
		}
	}
}
