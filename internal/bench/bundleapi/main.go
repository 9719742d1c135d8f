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
