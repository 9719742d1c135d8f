package cli

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/toolgate/toolgate/internal/bundle"
	"github.com/toolgate/toolgate/internal/oci"
	"github.com/toolgate/toolgate/internal/testing/ocitest"
	"github.com/toolgate/toolgate/internal/testing/syncbuf"
)

// TestServePushesAndRuntimePullsFromRegistry is the whole chain through
// the commands: `serve --publish-to-registry` pushes a bundle that
// `toolgate publish` (another process, no registry flag) stored, and a
// timestamp naming it, signed with the console's key (R14), and
// `runtime --bundle-source` pulls it from the registry — no console URL —
// and lists its tool over MCP. The registry password (from the
// environment) appears in no output.
func TestServePushesAndRuntimePullsFromRegistry(t *testing.T) {
	reg := ocitest.Start(t, ocitest.Options{Auth: true})
	dir := t.TempDir()
	seedOneTool(t, dir)
	ctx := context.Background()
	mustPublishCLI(t, dir, "keys", "rotate")
	keyFile := filepath.Join(dir, "keys.json")
	writeCallFile(t, keyFile, []byte(mustPublishCLI(t, dir, "keys", "export")))

	target := reg.Target("toolgate/bundles").String()
	env := envOf(map[string]string{"TOOLGATE_DATA_DIR": dir, oci.EnvUsername: reg.Credentials.Username,
		oci.EnvPassword: reg.Credentials.Password})
	sctx, stop := context.WithCancel(ctx)
	var serveOut, serveLogs syncbuf.Buffer
	served := make(chan error, 1)
	go func() {
		served <- Run(sctx, []string{"serve", "--addr", "127.0.0.1:0", "--publish-to-registry", target, "--registry-plain-http"},
			env, strings.NewReader(""), &serveOut, &serveLogs)
	}()
	defer func() {
		stop()
		if err := <-served; err != nil {
			t.Errorf("serve: %v", err)
		}
		if strings.Contains(serveLogs.String(), reg.Credentials.Password) {
			t.Errorf("the registry password is in serve's log")
		}
	}()
	mustPublishCLI(t, dir, "publish", "--note", "via the registry")

	client, err := oci.New(reg.Target("toolgate/bundles"), oci.Options{PlainHTTP: true, Credentials: reg.Credentials})
	if err != nil {
		t.Fatal(err)
	}
	for deadline := time.Now().Add(20 * time.Second); ; time.Sleep(100 * time.Millisecond) {
		if v, _, err := client.LatestVersion(ctx); err == nil && v == 1 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("serve did not push v1 within 20s; logs:\n%s", serveLogs.String())
		}
	}
	// The pusher logs a push after latest moved, and pushes the timestamp
	// after that: once the timestamp is there, so is the log line.
	wantTimestamp(t, client, keyFile, 1)
	if !regexp.MustCompile(`bundle pushed to the registry.*version=1`).MatchString(serveLogs.String()) {
		t.Errorf("the push is not logged:\n%s", serveLogs.String())
	}

	rctx, cancel := context.WithCancel(ctx)
	defer cancel()
	clientIn, serverOut := io.Pipe()
	serverIn, clientOut := io.Pipe()
	var stderr syncbuf.Buffer
	done := make(chan error, 1)
	go func() {
		done <- Run(rctx, []string{"runtime", "--stdio", "--bundle-source", target, "--registry-plain-http", "--key", keyFile,
			"--data-dir", filepath.Join(dir, "rt"), "--metrics-addr", ""}, env, serverIn, serverOut, &stderr)
		serverOut.Close()
	}()
	mc := mcp.NewClient(&mcp.Implementation{Name: "registry-test", Version: "1"}, nil)
	cs, err := mc.Connect(rctx, &mcp.IOTransport{Reader: clientIn, Writer: clientOut}, nil)
	if err != nil {
		t.Fatalf("connect: %v; stderr %q", err, stderr.String())
	}
	tools, err := cs.ListTools(rctx, nil)
	if err != nil || len(tools.Tools) != 1 || tools.Tools[0].Name != "list_orders" {
		t.Fatalf("tools/list = %+v, %v; stderr %s", tools, err, stderr.String())
	}
	cs.Close()
	if err := <-done; err != nil {
		t.Fatalf("runtime: %v", err)
	}
	if strings.Contains(stderr.String(), reg.Credentials.Password) {
		t.Error("the registry password is in the runtime's log")
	}
	if _, err := os.Stat(filepath.Join(dir, "rt", "runtime", "bundle.jws")); err != nil {
		t.Errorf("the pulled bundle was not persisted: %v", err)
	}
}

// wantTimestamp waits for the registry's timestamp to name version, signed
// by a key of the exported key file.
func wantTimestamp(t *testing.T, client *oci.Client, keyFile string, version int64) {
	t.Helper()
	raw, err := os.ReadFile(keyFile)
	if err != nil {
		t.Fatal(err)
	}
	keys, err := bundle.ParseKeySet(raw)
	if err != nil {
		t.Fatal(err)
	}
	var last error
	for deadline := time.Now().Add(20 * time.Second); time.Now().Before(deadline); time.Sleep(100 * time.Millisecond) {
		p, err := client.PullTimestamp(t.Context(), "")
		if err != nil {
			last = err
			continue
		}
		ts, err := bundle.VerifyTimestamp(p.Signed, keys, time.Now())
		if err == nil && ts.Version == version {
			return
		}
		last = fmt.Errorf("timestamp %+v, %v", ts, err)
	}
	t.Fatalf("no verified timestamp naming v%d in the registry: %v", version, last)
}
