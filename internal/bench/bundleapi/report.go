package main

import (
	"fmt"
	"slices"
)

// pairs are the servers compared (first / second), for each size.
var pairs = [][2]int{{srvToolgate, srvNginx}, {srvToolgate, srvFastHTTP}, {srvConsole, srvNginx},
	{srvConsole, srvNetHTTP}, {srvNetHTTP, srvNginx}, {srvFastHTTP, srvNginx}}

// report prints the rates, the CPU time per 304, and the per-block ratios
// the issue sets targets for, two ways: ratios of rates (the issue's
// measure, which follows the other programs' load), and ratios of CPU time
// per request written as rates (B's CPU time per request over A's: what
// A's rate over B's would be if each had the cores to itself), which stay
// put while the load swings.
func report(o options, sizes []*size) {
	fmt.Printf("\nbundle API, wrk -t%d -c%d -d%s, requests/s (304: median of %d runs, 200: one run) and CPU µs per 304 (median)\n",
		o.threads, o.conns, o.duration, o.rounds)
	fmt.Printf("%-7s %-9s", "bundle", "path")
	for _, n := range serverNames {
		fmt.Printf(" %10s", n)
	}
	fmt.Println()
	for _, s := range sizes {
		row := func(label string, f func(i int) float64, format string) {
			fmt.Printf("%-7s %-9s", s.label, label)
			for i := range nServers {
				fmt.Printf(format, f(i))
			}
			fmt.Println()
		}
		row("304", func(i int) float64 { return median(s.runs304[i]) }, " %10.0f")
		row("200", func(i int) float64 { return s.rps200[i] }, " %10.0f")
		row("µs/304", func(i int) float64 { return median(s.cpu304[i]) }, " %10.1f")
	}
	fmt.Printf("signed bundle sizes: %d and %d bytes\n", sizes[0].jwsBytes, sizes[1].jwsBytes)
	fmt.Printf("304 ratios per ABBA block of two rounds: median [min–max] (each of the %d blocks)\n", o.rounds/2)
	fmt.Printf("  %-5s %-20s %-44s %s\n", "", "", "rates", "CPU per request, as rates")
	small, big := sizes[0], sizes[1]
	var rate, cpu [2]float64
	for k, s := range sizes {
		for _, p := range pairs {
			rs, cs := ratios(s.runs304[p[0]], s.runs304[p[1]]), ratios(s.cpu304[p[1]], s.cpu304[p[0]])
			fmt.Printf("  %-5s %-20s %-44s %s\n", s.label, serverNames[p[0]]+" / "+serverNames[p[1]], spread(rs), spread(cs))
			if p == pairs[0] {
				rate[k], cpu[k] = median(rs), median(cs)
			}
		}
	}
	for srv := range nServers {
		fmt.Printf("  %-26s %-44s %s\n", serverNames[srv]+" 5 MB / 2 KB", spread(ratios(big.runs304[srv], small.runs304[srv])),
			spread(ratios(small.cpu304[srv], big.cpu304[srv])))
	}
	flatRate := median(ratios(big.runs304[srvToolgate], small.runs304[srvToolgate]))
	flatCPU := median(ratios(small.cpu304[srvToolgate], big.cpu304[srvToolgate]))
	fmt.Println("toolgate: the runtime API listener (--runtime-api-addr, fasthttp); tg-console: the console's listener (--addr, net/http)")
	fmt.Printf("target toolgate 304 >= 0.70 of nginx: rates %.2f (2 KB), %.2f (5 MB) %s; CPU per request %.2f, %.2f %s\n",
		rate[0], rate[1], verdict(rate[0] >= 0.7 && rate[1] >= 0.7), cpu[0], cpu[1], verdict(cpu[0] >= 0.7 && cpu[1] >= 0.7))
	fmt.Printf("target toolgate 5 MB 304 within 10 %% of 2 KB: rates %.2f %s; CPU per request %.2f %s\n",
		flatRate, verdict(flatRate >= 0.9 && flatRate <= 1.1), flatCPU, verdict(flatCPU >= 0.9 && flatCPU <= 1.1))
	fmt.Println("(the machine may be shared: compare ratios within this run, not rates across runs)")
}

// ratios divides a by b block by block: the sum of a's two runs in an ABBA
// block (see measure304) over the sum of b's.
func ratios(a, b []float64) []float64 {
	out := make([]float64, min(len(a), len(b))/2)
	for i := range out {
		out[i] = (a[2*i] + a[2*i+1]) / (b[2*i] + b[2*i+1])
	}
	return out
}

// spread is "median [min–max] (each)".
func spread(xs []float64) string {
	if len(xs) == 0 {
		return "-"
	}
	return fmt.Sprintf("%.2f [%.2f–%.2f] (%s)", median(xs), slices.Min(xs), slices.Max(xs), fmtRatios(xs))
}
