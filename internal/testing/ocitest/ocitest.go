// Package ocitest starts a real OCI registry (Debian's docker-registry,
// distribution v2) on loopback for tests: filesystem storage in a temporary
// directory, a free port, optionally htpasswd authentication. When the
// binary is missing a focused `go test` skips, but `make test` sets
// TOOLGATE_REQUIRE_REGISTRY=1 and the test fails instead (`make registry`
// extracts the package's binary without installing it).
package ocitest

import (
	"cmp"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"sync"
	"testing"
	"time"

	"golang.org/x/crypto/bcrypt"

	"github.com/toolgate/toolgate/internal/oci"
	"github.com/toolgate/toolgate/internal/testing/syncbuf"
)

// RequireEnv turns a missing registry binary into a failure.
const RequireEnv = "TOOLGATE_REQUIRE_REGISTRY"

// BinaryEnv names the registry binary to start instead of Debian's
// installed one: `make registry` extracts the package's binary into
// .cache/ without installing it (its package enables a service) and
// points this at it.
const BinaryEnv = "TOOLGATE_REGISTRY_BIN"

// Binary is the registry the tests start: $TOOLGATE_REGISTRY_BIN, or
// Debian's /usr/bin/docker-registry.
var Binary = cmp.Or(os.Getenv(BinaryEnv), "/usr/bin/docker-registry")

// Registry is one registry process (started, stopped and started again on
// the same port as a test needs).
type Registry struct {
	tb   testing.TB
	dir  string
	Addr string // 127.0.0.1:port
	// Credentials are the account htpasswd accepts (zero without auth).
	Credentials oci.Credentials

	mu     sync.Mutex
	cmd    *exec.Cmd
	output *syncbuf.Buffer
}

// Options of New.
type Options struct {
	// Auth turns on htpasswd authentication with a generated account.
	Auth bool
}

// New prepares a registry on a free loopback port without starting it.
// The process is stopped when the test ends.
func New(tb testing.TB, opts Options) *Registry {
	tb.Helper()
	if _, err := os.Stat(Binary); err != nil {
		missing(tb, "the OCI registry %s is not installed (make registry extracts one; or set "+BinaryEnv+")", Binary)
	}
	r := &Registry{tb: tb, dir: tb.TempDir(), Addr: freeAddr(tb)}
	auth := ""
	if opts.Auth {
		r.Credentials = oci.Credentials{Username: "pusher", Password: "s3cret-registry-pw-" + strconv.Itoa(os.Getpid())}
		hash, err := bcrypt.GenerateFromPassword([]byte(r.Credentials.Password), bcrypt.MinCost)
		if err != nil {
			tb.Fatal(err)
		}
		htpasswd := filepath.Join(r.dir, "htpasswd")
		if err := os.WriteFile(htpasswd, []byte(r.Credentials.Username+":"+string(hash)+"\n"), 0o600); err != nil {
			tb.Fatal(err)
		}
		auth = fmt.Sprintf("auth:\n  htpasswd:\n    realm: toolgate-test\n    path: %s\n", htpasswd)
	}
	config := fmt.Sprintf(`version: 0.1
log:
  level: warn
  accesslog:
    disabled: true
storage:
  filesystem:
    rootdirectory: %s
  delete:
    enabled: true
http:
  addr: %s
%s`, filepath.Join(r.dir, "data"), r.Addr, auth)
	if err := os.WriteFile(filepath.Join(r.dir, "config.yml"), []byte(config), 0o600); err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(r.Stop)
	return r
}

// Start runs a registry with opts and waits until it answers.
func Start(tb testing.TB, opts Options) *Registry {
	tb.Helper()
	r := New(tb, opts)
	r.Start()
	return r
}

// Target is repository repo in this registry.
func (r *Registry) Target(repo string) oci.Target { return oci.Target{Host: r.Addr, Repository: repo} }

// Start runs the process (again, after Stop: the data stays) and waits for
// /v2/ to answer.
func (r *Registry) Start() {
	r.tb.Helper()
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.cmd != nil {
		return
	}
	r.output = &syncbuf.Buffer{}
	cmd := exec.Command(Binary, "serve", filepath.Join(r.dir, "config.yml"))
	cmd.Stdout, cmd.Stderr = r.output, r.output
	if err := cmd.Start(); err != nil {
		r.tb.Fatalf("starting %s: %v", Binary, err)
	}
	r.cmd = cmd
	deadline := time.Now().Add(15 * time.Second)
	for time.Now().Before(deadline) {
		resp, err := http.Get("http://" + r.Addr + "/v2/")
		if err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK || resp.StatusCode == http.StatusUnauthorized {
				return
			}
		}
		time.Sleep(50 * time.Millisecond)
	}
	r.tb.Fatalf("the registry on %s did not answer within 15s:\n%s", r.Addr, r.output.String())
}

// Stop ends the process (the stored data stays for a later Start).
func (r *Registry) Stop() {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.cmd == nil {
		return
	}
	_ = r.cmd.Process.Kill()
	_ = r.cmd.Wait()
	r.cmd = nil
}

// Output is what the registry printed (for failure messages).
func (r *Registry) Output() string {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.output == nil {
		return ""
	}
	return r.output.String()
}

func freeAddr(tb testing.TB) string {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		tb.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().String()
}

func missing(tb testing.TB, format string, args ...any) {
	tb.Helper()
	if os.Getenv(RequireEnv) == "1" {
		tb.Fatalf(format+" ("+RequireEnv+"=1: the registry is required)", args...)
	}
	tb.Skipf(format+" (set "+RequireEnv+"=1 to make this a failure)", args...)
}
