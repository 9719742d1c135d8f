package runtimeproc

import (
	"bufio"
	"bytes"
	"context"
	"crypto/rand"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/toolgate/toolgate/internal/bundle"
	"github.com/toolgate/toolgate/internal/policy"
	"github.com/toolgate/toolgate/internal/risk"
)

const benchToken = "tg_rt_bench-process-token"

// moduleRoot is the directory of go.mod, where binaries are built from.
func moduleRoot(b *testing.B) string {
	out, err := exec.Command("go", "env", "GOMOD").Output()
	if err != nil || len(bytes.TrimSpace(out)) == 0 {
		b.Fatalf("go env GOMOD: %v", err)
	}
	return filepath.Dir(string(bytes.TrimSpace(out)))
}

// build builds pkg (with tags, "" for none) into dir and returns the path.
func build(b *testing.B, dir, name, pkg, tags string) string {
	out := filepath.Join(dir, name)
	args := []string{"build", "-o", out}
	if tags != "" {
		args = append(args, "-tags", tags)
	}
	cmd := exec.Command("go", append(args, pkg)...)
	cmd.Dir = moduleRoot(b)
	if msg, err := cmd.CombinedOutput(); err != nil {
		b.Fatalf("go build %s: %v\n%s", pkg, err, msg)
	}
	return out
}

// fixture is one signed bundle of n tools and what serves it.
type fixture struct {
	dir     string // keys.json, defs.json
	console *httptest.Server
	n       int
}

// newFixture signs a bundle of n tools — getItem on upstream, then
// n-1 others with their own input schemas (~1.7 KB per tool, as the
// runtime package's swap benchmark) — and serves it as the console's
// runtime API does (bearer token, strong ETag, 304).
func newFixture(b *testing.B, n int, upstream string) *fixture {
	dir := b.TempDir()
	k, err := bundle.GenerateKey(rand.Reader, time.Now())
	if err != nil {
		b.Fatal(err)
	}
	bd, err := bundle.Build(bundle.BuildInput{Version: 1, Now: time.Now(), TTL: 24 * time.Hour,
		Sources: []bundle.Source{{Name: "shop", Origin: upstream}}, Tools: benchTools(n)})
	if err != nil {
		b.Fatal(err)
	}
	signed, err := bundle.Sign(bd, k)
	if err != nil {
		b.Fatal(err)
	}
	keys, err := json.Marshal(bundle.KeySet{Keys: []bundle.PublicKey{k.Public()}})
	if err != nil {
		b.Fatal(err)
	}
	mustWrite(b, filepath.Join(dir, "keys.json"), keys)
	const etag = `"bench-v1"`
	console := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch {
		case r.Header.Get("Authorization") != "Bearer "+benchToken:
			http.Error(w, `{"error":"unauthorized"}`, http.StatusUnauthorized)
		case r.URL.Path != "/api/v1/bundle":
			http.NotFound(w, r)
		case r.Header.Get("If-None-Match") == etag:
			w.WriteHeader(http.StatusNotModified)
		default:
			w.Header().Set("ETag", etag)
			w.Header().Set("Content-Type", "application/jose")
			_, _ = w.Write(signed)
		}
	}))
	b.Cleanup(console.Close)
	return &fixture{dir: dir, console: console, n: n}
}

func benchTools(n int) []bundle.ToolInput {
	read := policy.NewToolPolicy("GET", risk.Read, policy.BuiltinDefaults())
	read.Exposed = true
	reasons := risk.Assessment{Class: risk.Read, Reasons: []risk.Reason{{Code: "method:GET", Class: risk.Read, Text: "GET reads"}}}
	tools := []bundle.ToolInput{{Name: "getItem", Source: "shop", Method: "GET", Path: "/items/{item_id}",
		Description: "Get an item by id.",
		Params:      []bundle.Param{{Name: "item_id", In: "path", Arg: "item_id", Required: true}},
		InputSchema: json.RawMessage(`{"type":"object","additionalProperties":false,"required":["item_id"],"properties":{"item_id":{"type":"string","minLength":1,"maxLength":64}}}`),
		Assessment:  reasons, Policy: read}}
	for i := 1; i < n; i++ {
		tools = append(tools, bundle.ToolInput{Name: fmt.Sprintf("getKind%05d", i), Source: "shop", Method: "GET",
			Path:        fmt.Sprintf("/kinds/%d/items/{item_id}", i),
			Description: fmt.Sprintf("Get an item of kind %d. Returns the item with its price, stock and tags; fails with 404 when it does not exist.", i),
			Params: []bundle.Param{{Name: "item_id", In: "path", Arg: "item_id", Required: true},
				{Name: "expand", In: "query", Arg: "expand"}, {Name: "limit", In: "query", Arg: "limit"}},
			InputSchema: json.RawMessage(fmt.Sprintf(`{"type":"object","additionalProperties":false,"required":["item_id"],"properties":{"item_id":{"type":"string","minLength":1,"maxLength":64,"description":"Id of the item"},"expand":{"type":"array","items":{"type":"string","enum":["price","stock","kind%d"]}},"limit":{"type":"integer","minimum":1,"maximum":%d}}}`, i, 100+i)),
			Assessment:  reasons, Policy: read})
	}
	return tools
}

func mustWrite(b *testing.B, path string, data []byte) {
	if err := os.WriteFile(path, data, 0o600); err != nil {
		b.Fatal(err)
	}
}

// server is one MCP server process under measurement.
type server struct {
	name     string
	cmd      *exec.Cmd
	endpoint string
}

// startRuntime starts `BIN runtime` on the fixture with a fresh data
// directory; its log (one line per call) goes to a file, as a runtime's
// stderr goes to a journal.
func startRuntime(b *testing.B, bin string, fx *fixture) *server {
	data := b.TempDir()
	cmd := exec.Command(bin, "runtime", "--console", fx.console.URL, "--key", filepath.Join(fx.dir, "keys.json"),
		"--data-dir", data, "--mcp-addr", "127.0.0.1:0", "--metrics-addr=", "--poll-interval", "1h")
	cmd.Env = append(os.Environ(), "TOOLGATE_RUNTIME_TOKEN="+benchToken)
	return start(b, filepath.Base(bin), cmd, filepath.Join(data, "runtime.log"))
}

// startReference starts the go-sdk reference with the definitions the
// runtime listed.
func startReference(b *testing.B, bin string, defs, upstream string) *server {
	cmd := exec.Command(bin, "-defs", defs, "-upstream", upstream)
	return start(b, "gosdk", cmd, filepath.Join(b.TempDir(), "gosdk.log"))
}

// start runs cmd until the benchmark ends and waits for the line naming
// its MCP endpoint; a process that exits or says nothing within a minute
// fails the benchmark, with what it wrote.
func start(b *testing.B, name string, cmd *exec.Cmd, logPath string) *server {
	logFile, err := os.Create(logPath)
	if err != nil {
		b.Fatal(err)
	}
	cmd.Stderr = logFile
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		b.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		b.Fatalf("%s: %v", name, err)
	}
	b.Cleanup(func() {
		_ = cmd.Process.Signal(os.Interrupt)
		done := make(chan struct{})
		go func() { _ = cmd.Wait(); close(done) }()
		select {
		case <-done:
		case <-time.After(10 * time.Second):
			_ = cmd.Process.Kill()
			<-done
		}
		logFile.Close()
	})
	found := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(stdout)
		for sc.Scan() {
			if _, url, ok := strings.Cut(sc.Text(), "MCP endpoint: "); ok {
				found <- url
			}
		}
		close(found)
	}()
	select {
	case url, ok := <-found:
		if ok {
			return &server{name: name, cmd: cmd, endpoint: url}
		}
	case <-time.After(time.Minute):
	}
	log, _ := os.ReadFile(logPath)
	b.Fatalf("%s did not announce its MCP endpoint:\n%s", name, log)
	return nil
}

// rssMB reads the process's resident set (VmRSS) and its peak (VmHWM).
func (s *server) rssMB(b *testing.B) (rss, hwm float64) {
	raw, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", s.cmd.Process.Pid))
	if err != nil {
		b.Fatalf("%s: %v", s.name, err)
	}
	for _, line := range strings.Split(string(raw), "\n") {
		key, val, _ := strings.Cut(line, ":")
		kb, err := strconv.ParseFloat(strings.TrimSuffix(strings.TrimSpace(val), " kB"), 64)
		switch {
		case err != nil:
		case key == "VmRSS":
			rss = kb / 1024
		case key == "VmHWM":
			hwm = kb / 1024
		}
	}
	if rss == 0 {
		b.Fatalf("%s: no VmRSS in /proc status", s.name)
	}
	return rss, hwm
}

// dial opens an MCP session on s (the same client code for every server).
func (s *server) dial(b *testing.B) *mcp.ClientSession {
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "bench", Version: "1"}, nil).Connect(context.Background(),
		&mcp.StreamableClientTransport{Endpoint: s.endpoint, DisableStandaloneSSE: true}, nil)
	if err != nil {
		b.Fatalf("%s: connect: %v", s.name, err)
	}
	b.Cleanup(func() { cs.Close() })
	return cs
}

// listDefs lists every tool of cs and returns them as the JSON array the
// reference loads.
func listDefs(b *testing.B, cs *mcp.ClientSession) ([]byte, int) {
	var tools []*mcp.Tool
	for t, err := range cs.Tools(context.Background(), nil) {
		if err != nil {
			b.Fatalf("tools/list: %v", err)
		}
		tools = append(tools, t)
	}
	raw, err := json.Marshal(tools)
	if err != nil {
		b.Fatal(err)
	}
	return raw, len(tools)
}
