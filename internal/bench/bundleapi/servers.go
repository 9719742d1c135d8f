package main

import (
	"bytes"
	"errors"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"sync"
	"time"

	"github.com/toolgate/toolgate/internal/store"
)

var (
	runningRE    = regexp.MustCompile(`toolgate is running at (http://\S+)`)
	runtimeAPIRE = regexp.MustCompile(`Runtime API listening on (\S+)`)
)

// server is one running server under test: where it listens, the
// processes whose CPU time its requests cost, and how to stop it.
type server struct {
	url    string
	apiURL string // toolgate's runtime API listener
	pids   []int
	stop   func()
}

// startToolgate runs `toolgate serve` on a free loopback port, with its
// runtime API listener on another.
func startToolgate(o options, data, logFile string) (server, error) {
	logf, err := os.Create(logFile)
	if err != nil {
		return server{}, err
	}
	out := &syncWriter{b: &bytes.Buffer{}}
	cmd := exec.Command(o.toolgate, "serve", "--data-dir", data, "--addr", "127.0.0.1:0", "--runtime-api-addr", "127.0.0.1:0")
	cmd.Stdout, cmd.Stderr = out, logf
	if err := cmd.Start(); err != nil {
		return server{}, fmt.Errorf("start %s: %w", o.toolgate, err)
	}
	stop := func() {
		_ = cmd.Process.Signal(os.Interrupt)
		_ = cmd.Wait()
		_ = logf.Close()
	}
	for deadline := time.Now().Add(30 * time.Second); time.Now().Before(deadline); time.Sleep(50 * time.Millisecond) {
		m, a := runningRE.FindStringSubmatch(out.String()), runtimeAPIRE.FindStringSubmatch(out.String())
		if m != nil && a != nil {
			return server{url: m[1], apiURL: "http://" + a[1], pids: []int{cmd.Process.Pid}, stop: stop}, nil
		}
	}
	stop()
	return server{}, errors.New("toolgate serve did not start (see its log)")
}

// startNginx writes a config serving file at /api/v1/bundle with the same
// strong ETag toolgate sends, a 304 for a matching If-None-Match and a 401
// for any other Authorization header, and runs nginx in the foreground.
func startNginx(o options, dir, file, token, etag string) (server, error) {
	port, err := freePort()
	if err != nil {
		return server{}, err
	}
	for _, sub := range []string{"client_body", "proxy", "fastcgi", "uwsgi", "scgi"} {
		if err := os.MkdirAll(filepath.Join(dir, "nginx", sub), 0o755); err != nil {
			return server{}, err
		}
	}
	n := filepath.Join(dir, "nginx")
	conf := fmt.Sprintf(`worker_processes auto;
daemon off;
pid %[1]s/nginx.pid;
error_log %[1]s/error.log warn;
events { worker_connections 1024; }
http {
    access_log off;
    client_body_temp_path %[1]s/client_body;
    proxy_temp_path %[1]s/proxy;
    fastcgi_temp_path %[1]s/fastcgi;
    uwsgi_temp_path %[1]s/uwsgi;
    scgi_temp_path %[1]s/scgi;
    server {
        listen 127.0.0.1:%[2]d;
        location = /api/v1/bundle {
            if ($http_authorization != "Bearer %[3]s") { return 401; }
            etag off;
            add_header ETag '%[4]s' always;
            add_header Cache-Control "no-cache, must-revalidate" always;
            if ($http_if_none_match = '%[4]s') { return 304; }
            default_type application/jose;
            alias %[5]s;
        }
    }
}
`, n, port, token, etag, file)
	confFile := filepath.Join(n, "nginx.conf")
	if err := os.WriteFile(confFile, []byte(conf), 0o644); err != nil {
		return server{}, err
	}
	cmd := exec.Command(o.nginx, "-c", confFile, "-p", n, "-e", filepath.Join(n, "error.log"))
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		return server{}, fmt.Errorf("start nginx: %w", err)
	}
	stop := func() {
		_ = cmd.Process.Signal(os.Interrupt)
		_ = cmd.Wait()
	}
	base := fmt.Sprintf("http://127.0.0.1:%d", port)
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(50 * time.Millisecond) {
		if resp, err := http.Get(base + "/"); err == nil {
			resp.Body.Close()
			workers, err := childrenOf(cmd.Process.Pid)
			if err != nil || len(workers) == 0 {
				stop()
				return server{}, fmt.Errorf("nginx workers: %v", err)
			}
			return server{url: base, pids: append(workers, cmd.Process.Pid), stop: stop}, nil
		}
	}
	stop()
	return server{}, errors.New("nginx did not start (see its error.log)")
}

// startMinimal serves the bundle from a minimal net/http handler with the
// same checks: the floor of any Go server on this machine, to tell
// toolgate's own cost from the HTTP stack's.
func startMinimal(token string, rec *store.BundleRecord) (server, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return server{}, err
	}
	body, want := []byte(rec.Signed), "Bearer "+token
	hs := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Authorization") != want {
			w.WriteHeader(http.StatusUnauthorized)
			return
		}
		w.Header().Set("ETag", rec.ETag)
		w.Header().Set("Cache-Control", "no-cache, must-revalidate")
		if r.Header.Get("If-None-Match") == rec.ETag {
			w.WriteHeader(http.StatusNotModified)
			return
		}
		w.Header().Set("Content-Type", "application/jose")
		_, _ = w.Write(body)
	})}
	go func() { _ = hs.Serve(ln) }()
	return server{url: "http://" + ln.Addr().String(), pids: []int{os.Getpid()}, stop: func() { _ = hs.Close() }}, nil
}

// check makes sure a server answers the way the benchmark assumes: 200
// with the bundle, 304 for its ETag, 401 for a wrong token.
func check(base, token string, rec *store.BundleRecord) error {
	get := func(auth, inm string) (int, []byte, string, error) {
		req, _ := http.NewRequest("GET", base+"/api/v1/bundle", nil)
		req.Header.Set("Authorization", auth)
		if inm != "" {
			req.Header.Set("If-None-Match", inm)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			return 0, nil, "", err
		}
		defer resp.Body.Close()
		var b bytes.Buffer
		_, err = b.ReadFrom(resp.Body)
		return resp.StatusCode, b.Bytes(), resp.Header.Get("ETag"), err
	}
	if st, body, etag, err := get("Bearer "+token, ""); err != nil || st != 200 || string(body) != rec.Signed || etag != rec.ETag {
		return fmt.Errorf("fetch: %d, etag %s, %d bytes, %v", st, etag, len(body), err)
	}
	if st, _, etag, err := get("Bearer "+token, rec.ETag); err != nil || st != 304 || etag != rec.ETag {
		return fmt.Errorf("conditional fetch: %d, etag %s, %v", st, etag, err)
	}
	if st, _, _, err := get("Bearer tgr_not-the-token-at-all", ""); err != nil || st != 401 {
		return fmt.Errorf("wrong token: %d, %v", st, err)
	}
	return nil
}

var (
	rpsRE    = regexp.MustCompile(`Requests/sec:\s+([0-9.]+)`)
	countRE  = regexp.MustCompile(`(\d+) requests in`)
	non2xxRE = regexp.MustCompile(`Non-2xx or 3xx responses: (\d+)`)
	errorsRE = regexp.MustCompile(`Socket errors: .*`)
)

// wrk runs one load test and returns requests per second and the number
// of requests answered; any non-2xx/3xx answer or socket error fails the
// benchmark.
func wrk(o options, url, token, etag string) (float64, int64, error) {
	// A 5 MB answer to 32 connections at once takes seconds: wrk's default
	// 2 s timeout would count those as errors.
	args := []string{"-t", strconv.Itoa(o.threads), "-c", strconv.Itoa(o.conns), "-d", o.duration.String(), "--timeout", "30s",
		"-H", "Authorization: Bearer " + token}
	if etag != "" {
		args = append(args, "-H", "If-None-Match: "+etag)
	}
	out, err := exec.Command(o.wrk, append(args, url)...).CombinedOutput()
	if err != nil {
		return 0, 0, fmt.Errorf("wrk: %w: %s", err, out)
	}
	path := "200"
	if etag != "" {
		path = "304"
	}
	fmt.Printf("-- %s %s\n%s", url, path, out)
	if m := non2xxRE.FindSubmatch(out); m != nil {
		return 0, 0, fmt.Errorf("wrk against %s: %s responses were not 2xx/3xx", url, m[1])
	}
	if m := errorsRE.Find(out); m != nil {
		return 0, 0, fmt.Errorf("wrk against %s: %s", url, m)
	}
	m, c := rpsRE.FindSubmatch(out), countRE.FindSubmatch(out)
	if m == nil || c == nil {
		return 0, 0, fmt.Errorf("wrk: no Requests/sec or request count in %s", out)
	}
	rps, err := strconv.ParseFloat(string(m[1]), 64)
	if err != nil {
		return 0, 0, err
	}
	n, err := strconv.ParseInt(string(c[1]), 10, 64)
	return rps, n, err
}

func freePort() (int, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer ln.Close()
	return ln.Addr().(*net.TCPAddr).Port, nil
}

// syncWriter is a bytes.Buffer safe to read while the child writes to it.
type syncWriter struct {
	mu sync.Mutex
	b  *bytes.Buffer
}

func (w *syncWriter) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.b.Write(p)
}

func (w *syncWriter) String() string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.b.String()
}
