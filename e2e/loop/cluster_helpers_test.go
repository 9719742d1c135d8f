package loop

import (
	"context"
	"crypto/rand"
	"encoding/base64"
	"encoding/hex"
	"io"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/toolgate/toolgate/internal/keyring"
	"github.com/toolgate/toolgate/internal/testing/syncbuf"
)

// The cluster test runs real `toolgate serve` processes from a binary built
// once per test binary (not cli.Run in-process): two consoles must share
// nothing but the database and the KEK file.
var (
	buildOnce sync.Once
	builtBin  string
	buildErr  error
	buildDir  string
)

// toolgateBinary builds ./cmd/toolgate once into a temporary directory.
func toolgateBinary(t *testing.T) string {
	t.Helper()
	buildOnce.Do(func() {
		buildDir, buildErr = os.MkdirTemp("", "toolgate-cluster-")
		if buildErr != nil {
			return
		}
		builtBin = filepath.Join(buildDir, "toolgate")
		out, err := exec.Command("go", "build", "-o", builtBin, "github.com/toolgate/toolgate/cmd/toolgate").CombinedOutput()
		if err != nil {
			buildErr = &buildError{err: err, out: string(out)}
		}
	})
	if buildErr != nil {
		t.Fatalf("building toolgate: %v", buildErr)
	}
	return builtBin
}

type buildError struct {
	err error
	out string
}

func (e *buildError) Error() string { return e.err.Error() + ": " + e.out }

// process is a toolgate subcommand running as its own process.
type process struct {
	cmd       *exec.Cmd
	out, logs syncbuf.Buffer
	// exited is closed when the process has ended, with err its result.
	exited chan struct{}
	err    error
}

// startProcess runs `toolgate args...` until the test ends (SIGTERM, then
// a graceful shutdown).
func startProcess(t *testing.T, bin string, args ...string) *process {
	t.Helper()
	p := &process{cmd: exec.Command(bin, args...), exited: make(chan struct{})}
	p.cmd.Stdout, p.cmd.Stderr = &p.out, &p.logs
	p.cmd.Env = []string{"PATH=" + os.Getenv("PATH"), "HOME=" + t.TempDir()}
	if err := p.cmd.Start(); err != nil {
		t.Fatalf("start toolgate %v: %v", args, err)
	}
	go func() { p.err = p.cmd.Wait(); close(p.exited) }()
	t.Cleanup(func() {
		_ = p.cmd.Process.Signal(os.Interrupt)
		select {
		case <-p.exited:
		case <-time.After(15 * time.Second):
			_ = p.cmd.Process.Kill()
			t.Errorf("toolgate %v did not stop; log:\n%s", args, p.logs.String())
		}
	})
	return p
}

// await returns the first submatch of re in the process's stdout.
func (p *process) await(t *testing.T, re *regexp.Regexp) string {
	t.Helper()
	for deadline := time.Now().Add(30 * time.Second); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		if m := re.FindStringSubmatch(p.out.String()); m != nil {
			return m[1]
		}
		select {
		case <-p.exited:
			t.Fatalf("toolgate ended (%v) before printing %s; log:\n%s", p.err, re, p.logs.String())
		default:
		}
	}
	t.Fatalf("no %s in stdout %q; log:\n%s", re, p.out.String(), p.logs.String())
	return ""
}

// run runs a one-shot toolgate command and returns its stdout; it fails
// the test on a non-zero exit.
func run(t *testing.T, bin string, args ...string) string {
	t.Helper()
	cmd := exec.Command(bin, args...)
	cmd.Env = []string{"PATH=" + os.Getenv("PATH"), "HOME=" + t.TempDir()}
	out, err := cmd.Output()
	if err != nil {
		stderr := ""
		if ee, ok := err.(*exec.ExitError); ok {
			stderr = string(ee.Stderr)
		}
		t.Fatalf("toolgate %v: %v\n%s%s", args, err, out, stderr)
	}
	return string(out)
}

// writeKEK writes a fresh key-encryption key file (32 random bytes, 0600).
func writeKEK(t *testing.T) string {
	t.Helper()
	key := make([]byte, 32)
	if _, err := rand.Read(key); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "kek")
	if err := os.WriteFile(path, key, 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

// on returns f with its action moved to the console at base.
func on(f *form, base string) *form {
	u, err := url.Parse(f.action)
	if err != nil {
		f.b.t.Fatal(err)
	}
	b, _ := url.Parse(base)
	u.Scheme, u.Host = b.Scheme, b.Host
	return &form{b: f.b, action: u.String(), values: f.values}
}

// postAll posts the same form n times in parallel, alternating between the
// consoles, and returns each response's status and main text.
func postAll(t *testing.T, f *form, bases []string, n int) (statuses []int, texts []string) {
	t.Helper()
	statuses, texts = make([]int, n), make([]string, n)
	var wg sync.WaitGroup
	start := make(chan struct{})
	for i := range n {
		g := on(f, bases[i%len(bases)])
		wg.Add(1)
		go func() {
			defer wg.Done()
			<-start
			resp, err := g.b.hc.PostForm(g.action, g.values)
			if err != nil {
				texts[i] = err.Error()
				return
			}
			body, _ := io.ReadAll(resp.Body)
			_ = resp.Body.Close()
			statuses[i], texts[i] = resp.StatusCode, resp.Request.URL.String()+" "+string(body)
		}()
	}
	close(start)
	wg.Wait()
	return statuses, texts
}

// noSecretsLogged: neither console's output carries the KEK, a sealed
// private key or a private key, in any usual encoding.
func noSecretsLogged(t *testing.T, cl *cluster) {
	t.Helper()
	kek, err := keyring.LoadKEK(cl.kek)
	if err != nil {
		t.Fatal(err)
	}
	raw, err := os.ReadFile(cl.kek)
	if err != nil {
		t.Fatal(err)
	}
	secrets := encodings(raw)
	keys, err := cl.open(t).SigningKeys(context.Background())
	if err != nil || len(keys) != 1 {
		t.Fatalf("signing keys in the database after two starts and no rotation: %d, %v; want one", len(keys), err)
	}
	for _, k := range keys {
		secrets = append(secrets, k.Sealed)
		seed, err := kek.Open(k.Sealed, "toolgate signing key "+k.KeyID)
		if err != nil {
			t.Fatalf("open %s with the consoles' KEK: %v", k.KeyID, err)
		}
		secrets = append(secrets, encodings(seed)...)
	}
	for i, p := range cl.procs {
		logs := p.out.String() + p.logs.String()
		for _, s := range secrets {
			if s != "" && strings.Contains(logs, s) {
				t.Errorf("console %c's output carries a secret", 'A'+i)
			}
		}
	}
}

func encodings(b []byte) []string {
	return []string{string(b), hex.EncodeToString(b), base64.StdEncoding.EncodeToString(b),
		base64.RawStdEncoding.EncodeToString(b), base64.RawURLEncoding.EncodeToString(b)}
}
