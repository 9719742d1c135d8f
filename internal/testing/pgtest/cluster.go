package pgtest

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net"
	"net/url"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"strconv"
	"sync"
	"syscall"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/toolgate/toolgate/internal/testing/syncbuf"
)

// Cluster is one running PostgreSQL server in a temporary directory.
type Cluster struct {
	dir  string // temporary directory: data/ and the unix socket
	port int
	cmd  *exec.Cmd
	log  *syncbuf.Buffer // the server's output, for start errors
	done chan struct{}   // closed when the server process has exited
	stop sync.Once
}

// Start runs initdb into a new temporary directory and starts postgres
// (from the binaries in bin) on a free loopback port, returning once it
// accepts connections.
func Start(ctx context.Context, bin string) (*Cluster, error) {
	cred, err := serverCredential()
	if err != nil {
		return nil, err
	}
	removeStale()
	dir, err := os.MkdirTemp("", dirPrefix)
	if err != nil {
		return nil, fmt.Errorf("start postgres: %w", err)
	}
	if cred != nil {
		if err := os.Chown(dir, int(cred.Uid), int(cred.Gid)); err != nil {
			_ = os.RemoveAll(dir)
			return nil, fmt.Errorf("start postgres: chown %s: %w", dir, err)
		}
	}
	c := &Cluster{dir: dir, log: &syncbuf.Buffer{}, done: make(chan struct{})}
	if err := c.initdb(ctx, bin, cred); err != nil {
		_ = os.RemoveAll(dir)
		return nil, err
	}
	if err := c.run(bin, cred); err != nil {
		_ = os.RemoveAll(dir)
		return nil, err
	}
	if err := c.waitReady(ctx); err != nil {
		_ = c.Stop()
		return nil, err
	}
	return c, nil
}

// serverCredential is the postgres user's when this process is root
// (initdb and postgres refuse to run as root), nil otherwise.
func serverCredential() (*syscall.Credential, error) {
	if os.Geteuid() != 0 {
		return nil, nil
	}
	u, err := user.Lookup("postgres")
	if err != nil {
		return nil, fmt.Errorf("start postgres as root: the server must run as the postgres user: %w", err)
	}
	uid, _ := strconv.Atoi(u.Uid)
	gid, _ := strconv.Atoi(u.Gid)
	return &syscall.Credential{Uid: uint32(uid), Gid: uint32(gid)}, nil
}

func (c *Cluster) initdb(ctx context.Context, bin string, cred *syscall.Credential) error {
	cmd := exec.CommandContext(ctx, filepath.Join(bin, "initdb"),
		"-D", c.dataDir(), "-U", "postgres", "-A", "trust", "-E", "UTF8", "--locale=C", "--no-sync")
	cmd.SysProcAttr = &syscall.SysProcAttr{Credential: cred}
	cmd.Dir = c.dir
	if out, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("start postgres: initdb: %w\n%s", err, out)
	}
	return nil
}

// run starts the server as a child process. Pdeathsig makes the kernel send
// it SIGQUIT (postgres's immediate shutdown) if the test process dies
// without calling Stop.
func (c *Cluster) run(bin string, cred *syscall.Credential) error {
	port, err := freePort()
	if err != nil {
		return fmt.Errorf("start postgres: %w", err)
	}
	c.port = port
	c.cmd = exec.Command(filepath.Join(bin, "postgres"), "-D", c.dataDir(),
		"-p", strconv.Itoa(port), "-k", c.dir, "-c", "listen_addresses=127.0.0.1",
		"-c", "fsync=off", "-c", "synchronous_commit=off", "-c", "full_page_writes=off",
		"-c", "max_connections=400", "-c", "shared_buffers=32MB", "-c", "log_min_messages=warning")
	c.cmd.SysProcAttr = &syscall.SysProcAttr{Credential: cred, Pdeathsig: syscall.SIGQUIT, Setpgid: true}
	c.cmd.Dir = c.dir
	c.cmd.Stdout, c.cmd.Stderr = c.log, c.log
	if err := c.cmd.Start(); err != nil {
		return fmt.Errorf("start postgres: %w", err)
	}
	go func() { _ = c.cmd.Wait(); close(c.done) }()
	return nil
}

func (c *Cluster) waitReady(ctx context.Context) error {
	for {
		conn, err := pgx.Connect(ctx, c.URL("postgres"))
		if err == nil {
			_ = conn.Close(ctx)
			return nil
		}
		select {
		case <-c.done:
			return fmt.Errorf("start postgres: the server exited: %s", c.log.String())
		case <-ctx.Done():
			return fmt.Errorf("start postgres: not ready: %w", err)
		case <-time.After(50 * time.Millisecond):
		}
	}
}

// URL is the connection URL of database name on the cluster (TCP on
// loopback, superuser postgres, no password: trust authentication).
func (c *Cluster) URL(name string) string {
	u := url.URL{Scheme: "postgres", User: url.User("postgres"),
		Host: net.JoinHostPort("127.0.0.1", strconv.Itoa(c.port)), Path: "/" + name,
		RawQuery: "sslmode=disable"}
	return u.String()
}

// Stop shuts the server down at once (SIGQUIT: immediate shutdown, the
// same as pg_ctl stop -m immediate: nothing here needs to survive) and
// removes its directory.
func (c *Cluster) Stop() error {
	var err error
	c.stop.Do(func() {
		if c.cmd != nil && c.cmd.Process != nil {
			_ = c.cmd.Process.Signal(syscall.SIGQUIT)
			select {
			case <-c.done:
			case <-time.After(10 * time.Second):
				_ = c.cmd.Process.Kill()
				<-c.done
			}
		}
		err = os.RemoveAll(c.dir)
	})
	if err != nil {
		return fmt.Errorf("stop postgres: %w", err)
	}
	return nil
}

func (c *Cluster) dataDir() string { return filepath.Join(c.dir, "data") }

// dirPrefix names the clusters' temporary directories.
const dirPrefix = "toolgate-pgtest-"

// removeStale removes the directories of clusters whose test binary died
// without Run's cleanup (its server then got SIGQUIT): those whose
// postmaster.pid is gone or names a process that no longer exists. A
// directory still being initialised (no data/PG_VERSION yet) is left alone.
func removeStale() {
	dirs, _ := filepath.Glob(filepath.Join(os.TempDir(), dirPrefix+"*"))
	for _, d := range dirs {
		if _, err := os.Stat(filepath.Join(d, "data", "PG_VERSION")); err != nil {
			continue
		}
		pidText, err := os.ReadFile(filepath.Join(d, "data", "postmaster.pid"))
		if err == nil {
			first, _, _ := bytes.Cut(pidText, []byte("\n"))
			pid, perr := strconv.Atoi(string(bytes.TrimSpace(first)))
			if perr != nil || syscall.Kill(pid, 0) == nil || errors.Is(syscall.Kill(pid, 0), syscall.EPERM) {
				continue // running (or unreadable): not ours to judge
			}
		}
		if time.Since(modTime(d)) > time.Minute {
			_ = os.RemoveAll(d)
		}
	}
}

func modTime(path string) time.Time {
	fi, err := os.Stat(path)
	if err != nil {
		return time.Now()
	}
	return fi.ModTime()
}

// freePort asks the kernel for a free loopback port. Another process could
// take it before postgres binds it; then waitReady reports the server's
// "could not bind" log.
func freePort() (int, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, fmt.Errorf("free port: %w", err)
	}
	defer func() { _ = ln.Close() }()
	return ln.Addr().(*net.TCPAddr).Port, nil
}

func lookPath(name string) (string, error) {
	p, err := exec.LookPath(name)
	if err != nil && !errors.Is(err, exec.ErrDot) {
		return "", err
	}
	return p, nil
}
