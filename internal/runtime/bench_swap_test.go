package runtime

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	goruntime "runtime"
	"runtime/debug"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/toolgate/toolgate/internal/bundle"
)

// benchSizes are the bundle sizes of the swap and memory benchmarks.
var benchSizes = []int{1000, 5000}

// BenchmarkRuntimeSwap measures taking in a bundle that changes one tool's
// description, alternately in both directions, against the reference
// go-sdk server taking in the same definitions, interleaved in the same
// loop so both see the same machine load:
//
//	runtime-swap-ms       verify the signed bundle, build the executor
//	                      (incrementally), swap it in, update the MCP list
//	runtime-swap-cpu-ms   the CPU time that took (all threads, GC included)
//	runtime-relist-ms     then a client's tools/list through every page
//	gosdk-swap-ms         decode the definitions and AddTool each (replace)
//	gosdk-relist-ms       then the same tools/list
//	swap+relist-ratio     (runtime swap + relist) / (go-sdk swap + relist)
func BenchmarkRuntimeSwap(b *testing.B) {
	for _, n := range benchSizes {
		b.Run(fmt.Sprintf("tools=%d", n), func(b *testing.B) { benchSwap(b, n) })
	}
}

func benchSwap(b *testing.B, n int) {
	k := testKey(b, 1)
	keys := keySet(k)
	now := time.Now()
	inB := variedTools(n, "a")
	inB[n/2].Description += " (changed)"
	signed := [2][]byte{signBundle(b, k, 1, now, 0, "https://api.example.com", variedTools(n, "a")...),
		signBundle(b, k, 1, now, 0, "https://api.example.com", inB...)}
	var defs [2][]byte
	for i, s := range signed {
		bd, _, err := bundle.Verify(s, *keys, bundle.VerifyOptions{Now: now})
		if err != nil {
			b.Fatal(err)
		}
		defs[i] = referenceDefs(b, bd)
	}
	r, err := New(Options{ConsoleURL: "http://127.0.0.1:1", Token: testToken, DataDir: b.TempDir(), TrustedKeys: keys})
	if err != nil {
		b.Fatal(err)
	}
	install := func(i int) {
		// As accept does (accept itself would refuse the alternating
		// versions): the runtime's memo of the last verified tools.
		bd, _, err := bundle.Verify(signed[i], *keys, bundle.VerifyOptions{Now: time.Now(), Memo: &r.memo})
		if err != nil {
			b.Fatal(err)
		}
		if err := r.install(bd, signed[i], "", time.Now()); err != nil {
			b.Fatal(err)
		}
	}
	ref := newReferenceServer()
	install(0)
	if err := loadReference(ref, defs[0], noopHandler); err != nil {
		b.Fatal(err)
	}
	rcs, gcs := connectServer(b, r.Server()), connectServer(b, ref)
	var rtSwap, rtList, refSwap, refList, rtCPU time.Duration
	i, count := 0, 0
	for b.Loop() {
		i ^= 1
		t0, c0 := time.Now(), cpuTime(b)
		install(i)
		t1 := time.Now()
		rtCPU += cpuTime(b) - c0
		if got := listAll(b, rcs); got != n {
			b.Fatalf("runtime lists %d tools, want %d", got, n)
		}
		t2 := time.Now()
		if err := loadReference(ref, defs[i], noopHandler); err != nil {
			b.Fatal(err)
		}
		t3 := time.Now()
		if got := listAll(b, gcs); got != n {
			b.Fatalf("reference lists %d tools, want %d", got, n)
		}
		t4 := time.Now()
		rtSwap, rtList, refSwap, refList = rtSwap+t1.Sub(t0), rtList+t2.Sub(t1), refSwap+t3.Sub(t2), refList+t4.Sub(t3)
		count++
	}
	ms := func(d time.Duration) float64 { return float64(d) / float64(count) / 1e6 }
	b.ReportMetric(ms(rtSwap), "runtime-swap-ms")
	b.ReportMetric(ms(rtCPU), "runtime-swap-cpu-ms")
	b.ReportMetric(ms(rtList), "runtime-relist-ms")
	b.ReportMetric(ms(refSwap), "gosdk-swap-ms")
	b.ReportMetric(ms(refList), "gosdk-relist-ms")
	b.ReportMetric(float64(rtSwap+rtList)/float64(refSwap+refList), "swap+relist-ratio")
}

// cpuTime is the CPU time (user + system, all threads, GC included) this
// process has used: on a shared machine a swap's wall time also counts the
// time other processes held the cores.
func cpuTime(b *testing.B) time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		b.Fatal(err)
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// rssSwaps is how many one-tool swaps the memory benchmark makes.
const rssSwaps = 20

// BenchmarkRuntimeRSS compares resident memory in two child processes of
// this same test binary (same code, same baseline): the runtime serving an
// n-tool bundle and then taking in rssSwaps bundles that each change one
// tool, and the reference go-sdk server holding the same definitions. Both
// list their tools once through an in-memory MCP client before each
// reading. RSS is read from /proc/self/status after a forced GC and
// FreeOSMemory, so garbage not yet returned to the OS does not count:
//
//	runtime-MB            after the first bundle
//	runtime-max-MB        highest reading over the swaps
//	growth-MB             last reading minus the first
//	gosdk-MB              the reference
//	rss-ratio             runtime-max-MB / gosdk-MB
func BenchmarkRuntimeRSS(b *testing.B) {
	if mode := os.Getenv(rssChildEnv); mode != "" {
		rssChild(b, mode, os.Getenv(rssDirEnv))
		return
	}
	for _, n := range benchSizes {
		b.Run(fmt.Sprintf("tools=%d", n), func(b *testing.B) {
			dir := writeRSSFixtures(b, n)
			for b.Loop() {
				rt := runRSSChild(b, "runtime", dir)
				ref := runRSSChild(b, "reference", dir)
				if len(rt) != rssSwaps+1 || len(ref) != 1 {
					b.Fatalf("readings: runtime %d, reference %d", len(rt), len(ref))
				}
				b.Logf("runtime readings (MB): %.1f", rt)
				peak := rt[0]
				for _, v := range rt {
					peak = max(peak, v)
				}
				b.ReportMetric(rt[0], "runtime-MB")
				b.ReportMetric(peak, "runtime-max-MB")
				b.ReportMetric(rt[len(rt)-1]-rt[0], "growth-MB")
				b.ReportMetric(ref[0], "gosdk-MB")
				b.ReportMetric(peak/ref[0], "rss-ratio")
			}
		})
	}
}

const (
	rssChildEnv = "TOOLGATE_BENCH_RSS_CHILD"
	rssDirEnv   = "TOOLGATE_BENCH_RSS_DIR"
)

// writeRSSFixtures signs bundle versions 1..rssSwaps+1 of n tools, each
// changing one more tool's description, and writes them with the keys and
// the reference definitions of version 1 to a temporary directory.
func writeRSSFixtures(b *testing.B, n int) string {
	dir := b.TempDir()
	k := testKey(b, 1)
	now := time.Now()
	tools := variedTools(n, "a")
	for v := 1; v <= rssSwaps+1; v++ {
		if v > 1 {
			tools[(v*7919)%n].Description += fmt.Sprintf(" (v%d)", v)
		}
		signed := signBundle(b, k, int64(v), now, 0, "https://api.example.com", tools...)
		if v == 1 {
			bd, _, err := bundle.Verify(signed, *keySet(k), bundle.VerifyOptions{Now: now})
			if err != nil {
				b.Fatal(err)
			}
			mustWrite(b, filepath.Join(dir, "defs.json"), referenceDefs(b, bd))
		}
		mustWrite(b, filepath.Join(dir, fmt.Sprintf("bundle-%02d.jws", v)), signed)
	}
	keys, err := json.Marshal(keySet(k))
	if err != nil {
		b.Fatal(err)
	}
	mustWrite(b, filepath.Join(dir, "keys.json"), keys)
	return dir
}

func mustWrite(b *testing.B, path string, data []byte) {
	b.Helper()
	if err := os.WriteFile(path, data, 0o600); err != nil {
		b.Fatal(err)
	}
}

// runRSSChild runs this benchmark in a child process in the given mode and
// returns its RSS readings in MB.
func runRSSChild(b *testing.B, mode, dir string) []float64 {
	b.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^$", "-test.bench=^BenchmarkRuntimeRSS$", "-test.benchtime=1x")
	cmd.Env = append(os.Environ(), rssChildEnv+"="+mode, rssDirEnv+"="+dir)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		b.Fatalf("%s child: %v\n%s%s", mode, err, out, stderr.String())
	}
	var readings []float64
	sc := bufio.NewScanner(bytes.NewReader(out))
	for sc.Scan() {
		if kb, ok := strings.CutPrefix(sc.Text(), "rss-kb "); ok {
			v, err := strconv.ParseFloat(kb, 64)
			if err != nil {
				b.Fatalf("%s child: reading %q", mode, sc.Text())
			}
			readings = append(readings, v/1024)
		}
	}
	return readings
}

// rssChild is the child side: it loads what mode says and prints one
// "rss-kb N" line per reading.
func rssChild(b *testing.B, mode, dir string) {
	for b.Loop() {
		switch mode {
		case "runtime":
			rssRuntime(b, dir)
		case "reference":
			ref := newReferenceServer()
			if err := loadReference(ref, mustRead(b, filepath.Join(dir, "defs.json")), noopHandler); err != nil {
				b.Fatal(err)
			}
			listAll(b, connectServer(b, ref))
			printRSS(b)
		default:
			b.Fatalf("unknown child mode %q", mode)
		}
	}
}

func rssRuntime(b *testing.B, dir string) {
	var keys bundle.KeySet
	if err := json.Unmarshal(mustRead(b, filepath.Join(dir, "keys.json")), &keys); err != nil {
		b.Fatal(err)
	}
	r, err := New(Options{ConsoleURL: "http://127.0.0.1:1", Token: testToken, DataDir: b.TempDir(), TrustedKeys: &keys})
	if err != nil {
		b.Fatal(err)
	}
	cs := connectServer(b, r.Server())
	for v := 1; v <= rssSwaps+1; v++ {
		signed := mustRead(b, filepath.Join(dir, fmt.Sprintf("bundle-%02d.jws", v)))
		if err := r.accept(signed, "", keys, r.snap.Load()); err != nil {
			b.Fatal(err)
		}
		signed = nil
		listAll(b, cs)
		printRSS(b)
	}
}

func mustRead(b *testing.B, path string) []byte {
	b.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		b.Fatal(err)
	}
	return data
}

// printRSS prints the process's resident set size after a forced GC that
// returns freed memory to the OS.
func printRSS(b *testing.B) {
	goruntime.GC()
	debug.FreeOSMemory()
	status, err := os.ReadFile("/proc/self/status")
	if err != nil {
		b.Fatal(err)
	}
	for line := range strings.SplitSeq(string(status), "\n") {
		if kb, ok := strings.CutPrefix(line, "VmRSS:"); ok {
			fmt.Printf("rss-kb %s\n", strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(kb), "kB")))
			return
		}
	}
	b.Fatal("no VmRSS in /proc/self/status")
}
