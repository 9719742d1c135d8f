// Command bundleapi benchmarks GET /api/v1/bundle against nginx serving the
// same signed bundle file with the same ETag and the same bearer check
// (make bench-bundle-api). For a ~2 KB and a ~5 MB bundle it seeds a data
// directory, starts `toolgate serve --runtime-api-addr` (measured on both
// listeners: the runtime API's fasthttp one, and the console's net/http
// one, which serves the same API), nginx and two minimal Go handlers
// doing the same checks (net/http, and valyala/fasthttp: the floor of each
// Go HTTP stack on this machine) on loopback ports, and runs wrk at the
// same concurrency against each, on the 304 path (If-None-Match matches,
// what every runtime sends every poll) in ABBA rounds, then the 200 path
// once. It prints requests per second and the ratios the issue sets
// targets for, each as the median of per-block ratios with its spread:
// toolgate's 304 rate (runtime API listener) ≥ 0.7 of nginx's, and the 5 MB 304 rate within 10 %
// of the 2 KB one. Everything is measured in the same run, on the same
// machine, which may be shared: compare ratios, not rates across runs.
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"slices"
	"strings"
	"time"

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
	flag.DurationVar(&o.duration, "d", 2*time.Second, "duration of each wrk run")
	flag.IntVar(&o.conns, "c", 32, "concurrent connections")
	flag.IntVar(&o.threads, "t", 2, "wrk threads")
	flag.IntVar(&o.rounds, "rounds", 8, "rounds of 304 runs, an even number (ABBA blocks of two; medians are reported)")
	flag.BoolVar(&o.keep, "keep", false, "keep the temporary directories")
	flag.Parse()
	if o.rounds < 2 || o.rounds%2 != 0 {
		fmt.Fprintln(os.Stderr, "bench-bundle-api: -rounds must be an even number >= 2 (rounds go in ABBA blocks of two)")
		os.Exit(2)
	}
	if err := run(context.Background(), o); err != nil {
		fmt.Fprintln(os.Stderr, "bench-bundle-api:", err)
		os.Exit(1)
	}
}

// Servers measured, in the order of the columns: toolgate and the
// references it is compared with, all serving the same bytes with the same
// checks.
const (
	srvToolgate = iota // the runtime API listener (--runtime-api-addr)
	srvConsole         // the console's listener (--addr), same process
	srvNginx
	srvNetHTTP
	srvFastHTTP
	nServers
)

var serverNames = [nServers]string{"toolgate", "tg-console", "nginx", "net/http", "fasthttp"}

// size is one bundle size to measure.
type size struct {
	label   string
	ops     int // READ operations, all exposed
	descLen int // characters of description per operation
	// 304 rates by server, one per round; the CPU time the server used per
	// 304 answered in each of those runs, µs; the 200 rate
	runs304  [nServers][]float64
	cpu304   [nServers][]float64
	rps200   [nServers]float64
	jwsBytes int
	token    string
	rec      *store.BundleRecord
	servers  [nServers]server
}

// runSpec is one wrk run in a round: a server serving a size.
type runSpec struct {
	s      *size
	server int
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
	if err := measure304(o, sizes); err != nil {
		return err
	}
	for _, s := range sizes {
		for i, srv := range s.servers {
			var err error
			if s.rps200[i], _, err = wrk(o, srv.url+"/api/v1/bundle", s.token, ""); err != nil {
				return err
			}
		}
	}
	report(o, sizes)
	return nil
}

// measure304 runs wrk on the 304 path of every server and size, in
// rounds. The machine is shared and its background load drifts, so the
// rounds go in ABBA blocks: each run of a round in the order below, then
// all of them again in reverse. Within a block every run's mean position
// in time is the same, so a load that rises or falls steadily through the
// block weighs on every server alike, and a ratio computed per block (sum
// of A's two runs over sum of B's) cancels it. The order keeps the pairs
// the targets compare next to each other (toolgate and nginx, toolgate
// 2 KB and 5 MB, fasthttp and nginx), against shorter swings of the load.
func measure304(o options, sizes []*size) error {
	small, big := sizes[0], sizes[1]
	order := []runSpec{{small, srvNginx}, {small, srvToolgate}, {big, srvToolgate}, {big, srvNginx},
		{big, srvFastHTTP}, {small, srvFastHTTP}, {small, srvConsole}, {big, srvConsole}, {big, srvNetHTTP}, {small, srvNetHTTP}}
	for r := range o.rounds {
		for i := range order {
			x := order[i]
			if r%2 == 1 {
				x = order[len(order)-1-i]
			}
			srv := x.s.servers[x.server]
			before, err := procCPU(srv.pids)
			if err != nil {
				return err
			}
			rps, n, err := wrk(o, srv.url+"/api/v1/bundle", x.s.token, x.s.rec.ETag)
			if err != nil {
				return err
			}
			after, err := procCPU(srv.pids)
			if err != nil {
				return err
			}
			x.s.runs304[x.server] = append(x.s.runs304[x.server], rps)
			us := float64((after - before).Microseconds()) / float64(n)
			x.s.cpu304[x.server] = append(x.s.cpu304[x.server], us)
			fmt.Printf("-- %s %s: %d requests, %v CPU, %.1f µs per request\n", serverNames[x.server], x.s.label, n, after-before, us)
		}
	}
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
