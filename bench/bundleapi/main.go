// Command bundleapi benchmarks GET /api/v1/bundle against nginx serving the
// same signed bundle file with the same ETag and the same bearer check
// (make bench-bundle-api). For a ~2 KB and a ~5 MB bundle it seeds a data
// directory, starts `toolgate serve` and nginx on loopback ports, and runs
// wrk at the same concurrency against both, on the 304 path (If-None-Match
// matches, what every runtime sends every poll) and the 200 path. It prints
// requests per second and the ratios the issue sets targets for: toolgate's
// 304 rate ≥ 0.7 of nginx's, and the 5 MB 304 rate within 10 % of the 2 KB
// one. Everything is measured in the same run, on the same machine.
package main

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/toolgate/toolgate/internal/bundle"
	"github.com/toolgate/toolgate/internal/config"
	"github.com/toolgate/toolgate/internal/openapi"
	"github.com/toolgate/toolgate/internal/store"
)

type options struct {
	toolgate, nginx, wrk string
	duration             time.Duration
	conns, threads       int
	rounds               int
	keep                 bool
}

func main() {
	var o options
	flag.StringVar(&o.toolgate, "toolgate", "bin/toolgate", "the toolgate binary to benchmark")
	flag.StringVar(&o.nginx, "nginx", "/usr/sbin/nginx", "the nginx binary (Debian nginx-light)")
	flag.StringVar(&o.wrk, "wrk", "/usr/bin/wrk", "the wrk binary")
	flag.DurationVar(&o.duration, "d", 3*time.Second, "duration of each wrk run")
	flag.IntVar(&o.conns, "c", 32, "concurrent connections")
	flag.IntVar(&o.threads, "t", 2, "wrk threads")
	flag.IntVar(&o.rounds, "rounds", 5, "rounds of 304 runs (medians are reported)")
	flag.BoolVar(&o.keep, "keep", false, "keep the temporary directories")
	flag.Parse()
	if err := run(context.Background(), o); err != nil {
		fmt.Fprintln(os.Stderr, "bench-bundle-api:", err)
		os.Exit(1)
	}
}

// size is one bundle size to measure.
type size struct {
	label   string
	ops     int // READ operations, all exposed
	descLen int // characters of description per operation
	// rates by server: toolgate, nginx, a minimal net/http handler
	runs304  [3][]float64
	rps304   [3]float64
	rps200   [3]float64
	jwsBytes int
	token    string
	rec      *store.BundleRecord
	urls     [3]string
}

func run(ctx context.Context, o options) error {
	sizes := []*size{{label: "2 KB", ops: 2, descLen: 200}, {label: "5 MB", ops: 1000, descLen: 3600}}
	for _, s := range sizes {
		stop, err := start(ctx, o, s)
		if err != nil {
			return fmt.Errorf("%s bundle: %w", s.label, err)
		}
		defer stop()
	}
	// The machine is shared and its background load drifts, so the 304
	// path is measured in rounds, each running the servers back to back in
	// an order that keeps every compared pair adjacent (toolgate 2 KB and
	// 5 MB, toolgate and nginx, toolgate and net/http); a ratio is the
	// median of its per-round ratios, a rate the median of its runs.
	small, big := sizes[0], sizes[1]
	order := []struct {
		s      *size
		server int
	}{{small, 0}, {big, 0}, {big, 1}, {small, 1}, {small, 2}, {big, 2}}
	var perRound [3][]float64 // tg/nginx 2 KB, tg/nginx 5 MB, tg 5 MB / tg 2 KB
	for range o.rounds {
		for _, x := range order {
			rps, err := wrk(o, x.s.urls[x.server]+"/api/v1/bundle", x.s.token, x.s.rec.ETag)
			if err != nil {
				return err
			}
			x.s.runs304[x.server] = append(x.s.runs304[x.server], rps)
		}
		n := len(small.runs304[0]) - 1
		perRound[0] = append(perRound[0], small.runs304[0][n]/small.runs304[1][n])
		perRound[1] = append(perRound[1], big.runs304[0][n]/big.runs304[1][n])
		perRound[2] = append(perRound[2], big.runs304[0][n]/small.runs304[0][n])
	}
	for _, s := range sizes {
		for i, base := range s.urls {
			s.rps304[i] = median(s.runs304[i])
			var err error
			if s.rps200[i], err = wrk(o, base+"/api/v1/bundle", s.token, ""); err != nil {
				return err
			}
		}
	}
	fmt.Printf("\nbundle API, wrk -t%d -c%d -d%s, requests/s (304: median of %d rounds); toolgate / nginx and / a minimal Go net/http handler\n", o.threads, o.conns, o.duration, o.rounds)
	fmt.Printf("%-7s %-5s %10s %10s %10s %9s %9s\n", "bundle", "path", "toolgate", "nginx", "net/http", "/nginx", "/net/http")
	for _, s := range sizes {
		for _, r := range []struct {
			path string
			rps  [3]float64
		}{{"304", s.rps304}, {"200", s.rps200}} {
			fmt.Printf("%-7s %-5s %10.0f %10.0f %10.0f %9.2f %9.2f\n", s.label, r.path, r.rps[0], r.rps[1], r.rps[2], r.rps[0]/r.rps[1], r.rps[0]/r.rps[2])
		}
	}
	r2, r5, flat := median(perRound[0]), median(perRound[1]), median(perRound[2])
	fmt.Printf("signed bundle sizes: %d and %d bytes\n", small.jwsBytes, big.jwsBytes)
	fmt.Printf("per-round ratios, toolgate/nginx 304: 2 KB %s, 5 MB %s; toolgate 5 MB/2 KB 304: %s\n",
		fmtRatios(perRound[0]), fmtRatios(perRound[1]), fmtRatios(perRound[2]))
	fmt.Printf("target 304 ratio >= 0.70 of nginx (median per round): %.2f (2 KB), %.2f (5 MB) %s\n", r2, r5, verdict(r2 >= 0.7 && r5 >= 0.7))
	fmt.Printf("target 5 MB 304 rate within 10 %% of the 2 KB one (median per round): %.2f %s\n", flat, verdict(flat >= 0.9 && flat <= 1.1))
	return nil
}

func median(xs []float64) float64 {
	if len(xs) == 0 {
		return 0
	}
	ys := slices.Clone(xs)
	slices.Sort(ys)
	n := len(ys)
	if n%2 == 0 {
		return (ys[n/2-1] + ys[n/2]) / 2
	}
	return ys[n/2]
}

func fmtRatios(xs []float64) string {
	parts := make([]string, len(xs))
	for i, x := range xs {
		parts[i] = fmt.Sprintf("%.2f", x)
	}
	return strings.Join(parts, " ")
}

func verdict(ok bool) string {
	if ok {
		return "met"
	}
	return "MISSED"
}

// start seeds a data directory for s and starts the three servers on it.
func start(ctx context.Context, o options, s *size) (stop func(), err error) {
	var stops []func()
	stop = func() {
		for i := len(stops) - 1; i >= 0; i-- {
			stops[i]()
		}
	}
	defer func() {
		if err != nil {
			stop()
		}
	}()
	dir, err := os.MkdirTemp("", "toolgate-bench-bundle-")
	if err != nil {
		return nil, err
	}
	if !o.keep {
		stops = append(stops, func() { _ = os.RemoveAll(dir) })
	}
	// nginx workers run as an unprivileged user and must read the file.
	if err := os.Chmod(dir, 0o755); err != nil {
		return nil, err
	}
	data := filepath.Join(dir, "data")
	if s.token, s.rec, err = seed(ctx, data, s); err != nil {
		return nil, fmt.Errorf("seed: %w", err)
	}
	s.jwsBytes = len(s.rec.Signed)
	file := filepath.Join(dir, "bundle.jws")
	if err := os.WriteFile(file, []byte(s.rec.Signed), 0o644); err != nil {
		return nil, err
	}
	fmt.Printf("== %s bundle: %d tools, %d bytes signed, ETag %s\n", s.label, s.rec.ToolCount, len(s.rec.Signed), s.rec.ETag)
	tgURL, stopTG, err := startToolgate(o, data, filepath.Join(dir, "toolgate.log"))
	if err != nil {
		return nil, err
	}
	stops = append(stops, stopTG)
	ngURL, stopNG, err := startNginx(o, dir, file, s.token, s.rec.ETag)
	if err != nil {
		return nil, err
	}
	stops = append(stops, stopNG)
	goURL, stopGo, err := startMinimal(s.token, s.rec)
	if err != nil {
		return nil, err
	}
	stops = append(stops, stopGo)
	s.urls = [3]string{tgURL, ngURL, goURL}
	for _, base := range s.urls {
		if err := check(base, s.token, s.rec); err != nil {
			return nil, fmt.Errorf("%s: %w", base, err)
		}
	}
	return stop, nil
}

// seed creates a database with one source of READ operations, all
// exposed, publishes it and creates a runtime token, the way serve would
// find them.
func seed(ctx context.Context, data string, s *size) (string, *store.BundleRecord, error) {
	if err := os.MkdirAll(data, 0o700); err != nil {
		return "", nil, err
	}
	db, err := store.Open(ctx, config.DBPath(data))
	if err != nil {
		return "", nil, err
	}
	defer db.Close()
	if _, err := db.Migrate(ctx); err != nil {
		return "", nil, err
	}
	d, err := db.ProjectDefaults(ctx)
	if err != nil {
		return "", nil, err
	}
	d.Defaults.ExposeNewReadTools = true
	if _, err := db.SaveProjectDefaults(ctx, "bench", d.Version, d.Defaults); err != nil {
		return "", nil, err
	}
	doc, err := openapi.LoadBytes("bench.json", benchDoc(s.ops, s.descLen), openapi.Options{})
	if err != nil {
		return "", nil, err
	}
	if _, err := db.ImportSource(ctx, "bench", store.SourceImport{Name: "bench", Doc: doc}); err != nil {
		return "", nil, err
	}
	keys := &bundle.KeyDir{Path: filepath.Join(data, "keys")}
	k, _, err := keys.EnsureActive(rand.Reader, time.Now())
	if err != nil {
		return "", nil, err
	}
	rec, err := db.Publish(ctx, store.PublishRequest{Actor: "bench", Key: k, Note: "bench"})
	if err != nil {
		return "", nil, err
	}
	_, token, err := db.CreateRuntimeToken(ctx, "bench", "bench")
	return token, rec, err
}

// benchDoc is an OpenAPI 3.0 document with n GET operations whose
// descriptions are descLen characters long.
func benchDoc(n, descLen int) []byte {
	paths := map[string]any{}
	word := "The quick brown fox jumps over the lazy dog. "
	desc := strings.Repeat(word, descLen/len(word)+1)[:descLen]
	for i := range n {
		paths[fmt.Sprintf("/things%04d/{id}", i)] = map[string]any{"get": map[string]any{
			"operationId": fmt.Sprintf("getThing%04d", i), "summary": fmt.Sprintf("Read thing %d", i), "description": desc,
			"parameters": []any{map[string]any{"name": "id", "in": "path", "required": true, "schema": map[string]any{"type": "string"}}},
			"responses":  map[string]any{"200": map[string]any{"description": "ok"}},
		}}
	}
	b, _ := json.Marshal(map[string]any{"openapi": "3.0.3", "info": map[string]any{"title": "Bench", "version": "1"},
		"servers": []any{map[string]any{"url": "https://bench.example.com"}}, "paths": paths})
	return b
}

var runningRE = regexp.MustCompile(`toolgate is running at (http://\S+)`)

// startToolgate runs `toolgate serve` on a free loopback port.
func startToolgate(o options, data, logFile string) (string, func(), error) {
	logf, err := os.Create(logFile)
	if err != nil {
		return "", nil, err
	}
	out := &syncWriter{b: &bytes.Buffer{}}
	cmd := exec.Command(o.toolgate, "serve", "--data-dir", data, "--addr", "127.0.0.1:0")
	cmd.Stdout, cmd.Stderr = out, logf
	if err := cmd.Start(); err != nil {
		return "", nil, fmt.Errorf("start %s: %w", o.toolgate, err)
	}
	stop := func() {
		_ = cmd.Process.Signal(os.Interrupt)
		_ = cmd.Wait()
		_ = logf.Close()
	}
	for deadline := time.Now().Add(30 * time.Second); time.Now().Before(deadline); time.Sleep(50 * time.Millisecond) {
		if m := runningRE.FindStringSubmatch(out.String()); m != nil {
			return m[1], stop, nil
		}
	}
	stop()
	return "", nil, errors.New("toolgate serve did not start (see its log)")
}

// startNginx writes a config serving file at /api/v1/bundle with the same
// strong ETag toolgate sends, a 304 for a matching If-None-Match and a 401
// for any other Authorization header, and runs nginx in the foreground.
func startNginx(o options, dir, file, token, etag string) (string, func(), error) {
	port, err := freePort()
	if err != nil {
		return "", nil, err
	}
	for _, sub := range []string{"client_body", "proxy", "fastcgi", "uwsgi", "scgi"} {
		if err := os.MkdirAll(filepath.Join(dir, "nginx", sub), 0o755); err != nil {
			return "", nil, err
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
		return "", nil, err
	}
	cmd := exec.Command(o.nginx, "-c", confFile, "-p", n, "-e", filepath.Join(n, "error.log"))
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		return "", nil, fmt.Errorf("start nginx: %w", err)
	}
	stop := func() {
		_ = cmd.Process.Signal(os.Interrupt)
		_ = cmd.Wait()
	}
	base := fmt.Sprintf("http://127.0.0.1:%d", port)
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(50 * time.Millisecond) {
		if resp, err := http.Get(base + "/"); err == nil {
			resp.Body.Close()
			return base, stop, nil
		}
	}
	stop()
	return "", nil, errors.New("nginx did not start (see its error.log)")
}

// startMinimal serves the bundle from a minimal net/http handler with the
// same checks: the floor of any Go server on this machine, to tell
// toolgate's own cost from the HTTP stack's.
func startMinimal(token string, rec *store.BundleRecord) (string, func(), error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", nil, err
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
	return "http://" + ln.Addr().String(), func() { _ = hs.Close() }, nil
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
	non2xxRE = regexp.MustCompile(`Non-2xx or 3xx responses: (\d+)`)
	errorsRE = regexp.MustCompile(`Socket errors: .*`)
)

// wrk runs one load test and returns requests per second; any non-2xx/3xx
// answer or socket error fails the benchmark.
func wrk(o options, url, token, etag string) (float64, error) {
	// A 5 MB answer to 32 connections at once takes seconds: wrk's default
	// 2 s timeout would count those as errors.
	args := []string{"-t", strconv.Itoa(o.threads), "-c", strconv.Itoa(o.conns), "-d", o.duration.String(), "--timeout", "30s",
		"-H", "Authorization: Bearer " + token}
	if etag != "" {
		args = append(args, "-H", "If-None-Match: "+etag)
	}
	out, err := exec.Command(o.wrk, append(args, url)...).CombinedOutput()
	if err != nil {
		return 0, fmt.Errorf("wrk: %w: %s", err, out)
	}
	path := "200"
	if etag != "" {
		path = "304"
	}
	fmt.Printf("-- %s %s\n%s", url, path, out)
	if m := non2xxRE.FindSubmatch(out); m != nil {
		return 0, fmt.Errorf("wrk against %s: %s responses were not 2xx/3xx", url, m[1])
	}
	if m := errorsRE.Find(out); m != nil {
		return 0, fmt.Errorf("wrk against %s: %s", url, m)
	}
	m := rpsRE.FindSubmatch(out)
	if m == nil {
		return 0, fmt.Errorf("wrk: no Requests/sec in %s", out)
	}
	return strconv.ParseFloat(string(m[1]), 64)
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
