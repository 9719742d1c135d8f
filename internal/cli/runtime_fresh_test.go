package cli

import (
	"context"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/toolgate/toolgate/internal/testing/syncbuf"
)

// The quickstart's order: the console runs, `toolgate token create` (a
// process of its own) makes a token, and a runtime started right after it
// serves the published tools within 2 s — neither the console (which polls
// for other processes' tokens) nor the runtime (which polls every 30 s)
// makes it wait.
func TestRuntimeStartedRightAfterTokenCreateServes(t *testing.T) {
	dir := t.TempDir()
	seedOneTool(t, dir)
	mustPublishCLI(t, dir, "keys", "rotate")
	mustPublishCLI(t, dir, "publish")
	keyFile := filepath.Join(dir, "keys.json")
	mustPublishCLI(t, dir, "keys", "export", "--out", keyFile)
	env := map[string]string{"TOOLGATE_DATA_DIR": dir}

	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	var serveOut, serveLogs syncbuf.Buffer
	serveDone := make(chan error, 1)
	go func() {
		serveDone <- Run(ctx, []string{"serve", "--addr", "127.0.0.1:0"}, envOf(env), strings.NewReader(""), &serveOut, &serveLogs)
	}()
	defer stopServe(t, cancel, serveDone)
	base := waitFor(t, regexp.MustCompile(`toolgate is running at (http://\S+)`), &serveOut, &serveLogs)
	time.Sleep(100 * time.Millisecond) // the console has read its tokens: the new one is news to it

	token, _, err := runCmd(t, env, "", "token", "create", "--name", "quickstart")
	if err != nil {
		t.Fatal(err)
	}
	tokenFile := filepath.Join(dir, "token")
	if err := os.WriteFile(tokenFile, []byte(token), 0o600); err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	var rtOut, rtLogs syncbuf.Buffer
	rtDone := make(chan error, 1)
	go func() {
		rtDone <- Run(ctx, []string{"runtime", "--console", base, "--token-file", tokenFile, "--key", keyFile,
			"--data-dir", filepath.Join(dir, "rt"), "--mcp-addr", "127.0.0.1:0", "--metrics-addr", ""},
			envOf(nil), strings.NewReader(""), &rtOut, &rtLogs)
	}()
	defer func() { cancel(); <-rtDone }()
	endpoint := waitFor(t, mcpEndpointRE, &rtOut, &rtLogs)
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "fresh", Version: "1"}, nil).
		Connect(ctx, &mcp.StreamableClientTransport{Endpoint: endpoint}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	for {
		res, err := cs.ListTools(ctx, nil)
		if err != nil {
			t.Fatal(err)
		}
		if len(res.Tools) == 1 && res.Tools[0].Name == "list_orders" {
			t.Logf("tools listed %s after the runtime started", time.Since(start).Round(time.Millisecond))
			break
		}
		if time.Since(start) > 2*time.Second {
			t.Fatalf("no tools 2 s after start: %v; runtime stdout %q, log %q", res.Tools, rtOut.String(), rtLogs.String())
		}
		time.Sleep(50 * time.Millisecond)
	}
	if !strings.Contains(rtOut.String(), "serving bundle v1") {
		t.Errorf("runtime stdout %q, want it serving bundle v1", rtOut.String())
	}
}

// waitFor returns re's first group once it appears in out (10 s at most).
func waitFor(t *testing.T, re *regexp.Regexp, out, logs *syncbuf.Buffer) string {
	t.Helper()
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
		if m := re.FindStringSubmatch(out.String()); m != nil {
			return m[1]
		}
	}
	t.Fatalf("no %s in %q; log %q", re, out.String(), logs.String())
	return ""
}
