// Command console is the console's load benchmark (make bench-console): it
// starts `toolgate serve` on loopback over a fresh data directory with a
// 1,000-operation source, signs in 50 viewers, and drives wrk against
// /tools alone and against a mix of /tools, a tool's page, /audit and
// /bundles, each with and without `toolgate import` re-importing the
// source in a loop from another process. It prints requests per second,
// non-2xx answers and p50/p99 latency per scenario. Given several binaries
// (-bin a,b) it runs every scenario against each in turn and prints their
// ratios to the first: on a shared machine only figures taken side by side
// compare.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"net/url"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"sync"
	"text/tabwriter"
	"time"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	if err := run(ctx, os.Args[1:], os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "bench-console:", err)
		os.Exit(1)
	}
}

type options struct {
	bins     []string
	duration time.Duration
	conns    int
	ops      int
	rounds   int
}

// target is one console under test, with its signed-in sessions.
type target struct {
	name    string
	c       *console
	cookies []string
}

func run(ctx context.Context, args []string, stdout io.Writer) error {
	var o options
	var bins string
	fs := flag.NewFlagSet("bench-console", flag.ContinueOnError)
	fs.StringVar(&bins, "bin", "bin/toolgate", "toolgate binary to measure; several, comma-separated, are measured "+
		"scenario by scenario in turn, so each pair meets the same machine load (the first is the reference)")
	fs.DurationVar(&o.duration, "duration", 20*time.Second, "length of each scenario")
	fs.IntVar(&o.conns, "viewers", 50, "concurrent signed-in viewers (connections, one session each)")
	fs.IntVar(&o.ops, "ops", 1000, "operations in the imported document")
	fs.IntVar(&o.rounds, "rounds", 1, "times to run every scenario")
	if err := fs.Parse(args); err != nil {
		return err
	}
	o.bins = strings.Split(bins, ",")
	if o.duration <= 0 || o.duration > 5*time.Minute || o.conns < 1 || o.conns > 500 || o.rounds < 1 || o.rounds > 5 || len(o.bins) > 4 {
		return errors.New("-duration must be in (0, 5m], -viewers in [1, 500], -rounds in [1, 5], at most 4 binaries")
	}
	dir, err := os.MkdirTemp("", "toolgate-bench-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	docA, docB, err := writeDocs(dir, o.ops)
	if err != nil {
		return err
	}
	var targets []*target
	defer func() {
		for _, t := range targets {
			t.c.stop()
		}
	}()
	for i, bin := range o.bins {
		t, err := prepare(ctx, bin, fmt.Sprintf("%s/data%d", dir, i), docA, o)
		if err != nil {
			return fmt.Errorf("%s: %w", bin, err)
		}
		targets = append(targets, t)
	}
	mix := []string{"/tools", "/tools/get_item_1", "/audit", "/bundles", "/tools", "/tools/post_item_7", "/audit", "/bundles"}
	scenarios := []struct {
		name       string
		paths      []string
		withImport bool
	}{
		{"dashboard", []string{"/"}, false},
		{"dashboard + import", []string{"/"}, true},
		{"/tools", []string{"/tools"}, false},
		{"/tools + import", []string{"/tools"}, true},
		{"mix", mix, false},
		{"mix + import", mix, true},
	}
	tw := tabwriter.NewWriter(stdout, 0, 0, 2, ' ', 0)
	fmt.Fprintf(tw, "console load: %d signed-in viewers, %s per scenario, %d-operation source, wrk -t2 on loopback\n", o.conns, o.duration, o.ops)
	fmt.Fprintln(tw, "scenario\tbinary\trequests\treq/s\tnon-2xx\tsocket errors\tp50\tp99\tmax\timports (failed)")
	for range o.rounds {
		for _, sc := range scenarios {
			var ref wrkResult
			for i, t := range targets {
				res, imp, err := measure(ctx, dir, t, sc.paths, sc.withImport, docA, docB, o)
				if err != nil {
					return err
				}
				imports := "-"
				if sc.withImport {
					imports = fmt.Sprintf("%d (%d)", imp.done, imp.failed)
				}
				fmt.Fprintf(tw, "%s\t%s\t%d\t%.0f\t%d\t%d\t%s\t%s\t%s\t%s\n", sc.name, t.name, res.Requests, res.RPS(), res.Non2xx,
					res.SocketErrors, ms(res.P50), ms(res.P99), ms(res.Max), imports)
				if err := imp.check(sc.withImport); err != nil {
					tw.Flush()
					return fmt.Errorf("%s, %s: %w", sc.name, t.name, err)
				}
				if i == 0 {
					ref = res
				} else {
					fmt.Fprintf(tw, "\t  vs %s\t\t%.2fx\t\t\t%.2fx\t%.2fx\n", targets[0].name, res.RPS()/ref.RPS(),
						ratio(res.P50, ref.P50), ratio(res.P99, ref.P99))
				}
			}
		}
	}
	return tw.Flush()
}

func ratio(a, b time.Duration) float64 {
	if b == 0 {
		return 0
	}
	return float64(a) / float64(b)
}

// prepare gives bin a data directory with the source imported, an admin
// and a viewer, starts it, exposes and publishes, and signs the viewers in.
func prepare(ctx context.Context, bin, dataDir, docA string, o options) (*target, error) {
	t := &target{name: filepath.Base(bin), c: &console{bin: bin, dataDir: dataDir}}
	c := t.c
	// Only serve and migrate create a database.
	if _, err := c.cli(ctx, "", "migrate"); err != nil {
		return nil, err
	}
	if _, err := c.cli(ctx, "", "import", "--source", "bench", "--yes", docA); err != nil {
		return nil, err
	}
	for _, u := range []struct{ email, role string }{{"admin@bench.test", "admin"}, {"viewer@bench.test", "viewer"}} {
		if _, err := c.cli(ctx, benchPassword+"\n", "user", "add", "--email", u.email, "--role", u.role, "--password-stdin"); err != nil {
			return nil, err
		}
	}
	if err := c.start(ctx); err != nil {
		return nil, err
	}
	if err := exposeAndPublish(ctx, c, o.ops); err != nil {
		return nil, err
	}
	t.cookies = make([]string, o.conns)
	for i := range t.cookies {
		cl, _, err := c.signIn("viewer@bench.test", benchPassword)
		if err != nil {
			return nil, err
		}
		t.cookies[i] = "toolgate_session=" + c.cookie(cl, "toolgate_session")
	}
	return t, nil
}

// measure runs one scenario against t, with the import loop when asked.
func measure(ctx context.Context, dir string, t *target, paths []string, withImport bool, docA, docB string, o options) (wrkResult, *importLoop, error) {
	imp := &importLoop{}
	var wg sync.WaitGroup
	ictx, cancel := context.WithCancel(ctx)
	if withImport {
		wg.Add(1)
		go func() { defer wg.Done(); imp.run(ictx, t.c, docA, docB) }()
	}
	res, err := runWrk(ctx, dir, t.c.base, t.cookies, paths, o.conns, o.duration)
	cancel()
	wg.Wait()
	return res, imp, err
}

const benchPassword = "bench password 0123456789"

func ms(d time.Duration) string { return fmt.Sprintf("%.1f ms", float64(d.Microseconds())/1000) }

// exposeAndPublish exposes the READ tools as the admin (bulk action) and
// publishes, so /bundles has a history and a next bundle to preview.
func exposeAndPublish(ctx context.Context, c *console, ops int) error {
	cl, csrf, err := c.signIn("admin@bench.test", benchPassword)
	if err != nil {
		return err
	}
	form := url.Values{"action": {"expose"}}
	for p := 0; p*4 < ops; p++ {
		form.Add("tool", fmt.Sprintf("get_item_%d", p))
	}
	if err := c.post(cl, csrf, "/tools/bulk/apply", form); err != nil {
		return err
	}
	_, err = c.cli(ctx, "", "publish", "--note", "bench")
	return err
}

// importLoop re-imports the source alternately from two documents until
// its context ends, as a second process (the CLI) would.
type importLoop struct {
	done, failed int
	firstErr     error
}

// check fails a scenario whose background import did not run: figures
// "during an import" measured without one would be false.
func (l *importLoop) check(wanted bool) error {
	switch {
	case !wanted:
		return nil
	case l.failed > 0:
		return fmt.Errorf("the import loop failed %d of %d times; first failure: %w", l.failed, l.failed+l.done, l.firstErr)
	case l.done == 0:
		return errors.New("the import loop finished no import during the scenario; lengthen -duration")
	}
	return nil
}

func (l *importLoop) run(ctx context.Context, c *console, docA, docB string) {
	for i := 0; ctx.Err() == nil; i++ {
		doc := docB
		if i%2 == 1 {
			doc = docA
		}
		// The documents change what agents read of exposed tools, which a
		// re-import applies only when told to.
		_, err := c.cli(context.WithoutCancel(ctx), "", "import", "--source", "bench", "--yes", "--confirm-definitions", doc)
		switch {
		case err == nil:
			l.done++
		case ctx.Err() == nil:
			l.failed++
			if l.firstErr == nil {
				l.firstErr = err
			}
		}
	}
}
