package main

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"time"
)

// wrkScript rotates the signed-in sessions and the paths over requests and
// counts every answer that is not 2xx (wrk itself only counts >= 400, and a
// 303 to the sign-in page is a failure here too).
const wrkScript = `
local cookies = {%s}
local paths = {%s}
local i = 0
non2xx = 0
local threads = {}
function setup(thread) table.insert(threads, thread) end
function init(args) i = math.random(1, 1000) end
function request()
  i = i + 1
  return wrk.format("GET", paths[(i %% #paths) + 1], { ["Cookie"] = cookies[(i %% #cookies) + 1] })
end
function response(status, headers, body)
  if status < 200 or status > 299 then non2xx = non2xx + 1 end
end
function done(summary, latency, requests)
  local n = 0
  for _, t in ipairs(threads) do n = n + t:get("non2xx") end
  local e = summary.errors
  io.write(string.format("RESULT requests=%%d non2xx=%%d socket_errors=%%d p50_us=%%d p99_us=%%d max_us=%%d duration_us=%%d\n",
    summary.requests, n, e.connect + e.read + e.write + e.timeout, latency:percentile(50), latency:percentile(99),
    latency.max, summary.duration))
end
`

// wrkResult is one wrk run.
type wrkResult struct {
	Requests, Non2xx, SocketErrors int
	P50, P99, Max                  time.Duration
	Duration                       time.Duration
}

// RPS is requests per second.
func (r wrkResult) RPS() float64 { return float64(r.Requests) / r.Duration.Seconds() }

func quoted(items []string) string {
	q := make([]string, len(items))
	for i, s := range items {
		q[i] = strconv.Quote(s)
	}
	return strings.Join(q, ", ")
}

// runWrk runs wrk against base for d with conns connections and 2 threads;
// the timeout is long so slow answers are measured, not dropped.
func runWrk(ctx context.Context, dir, base string, cookies, paths []string, conns int, d time.Duration) (wrkResult, error) {
	script := filepath.Join(dir, "bench.lua")
	if err := os.WriteFile(script, []byte(fmt.Sprintf(wrkScript, quoted(cookies), quoted(paths))), 0o600); err != nil {
		return wrkResult{}, err
	}
	cmd := exec.CommandContext(ctx, "wrk", "-t2", "-c"+strconv.Itoa(conns), "-d"+d.String(), "--timeout", "30s", "-s", script, base)
	out, err := cmd.CombinedOutput()
	if err != nil {
		return wrkResult{}, fmt.Errorf("wrk: %w\n%s", err, out)
	}
	sc := bufio.NewScanner(strings.NewReader(string(out)))
	for sc.Scan() {
		line := sc.Text()
		if !strings.HasPrefix(line, "RESULT ") {
			continue
		}
		var r wrkResult
		var p50, p99, maxUS, dur int64
		if _, err := fmt.Sscanf(line, "RESULT requests=%d non2xx=%d socket_errors=%d p50_us=%d p99_us=%d max_us=%d duration_us=%d",
			&r.Requests, &r.Non2xx, &r.SocketErrors, &p50, &p99, &maxUS, &dur); err != nil {
			return wrkResult{}, fmt.Errorf("wrk result %q: %w", line, err)
		}
		r.P50, r.P99, r.Max = time.Duration(p50)*time.Microsecond, time.Duration(p99)*time.Microsecond, time.Duration(maxUS)*time.Microsecond
		r.Duration = time.Duration(dur) * time.Microsecond
		return r, nil
	}
	return wrkResult{}, fmt.Errorf("wrk printed no result:\n%s", out)
}
