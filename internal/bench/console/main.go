// Command console is the console's load benchmark (make bench-console): it
// starts `toolgate serve` on loopback over a fresh data directory with a
// 1,000-operation source, signs in 50 viewers, and drives wrk against
// /tools alone and against a mix of /tools, a tool's page, /audit and
// /bundles, each with and without `toolgate import` re-importing the
// source in a loop from another process. It prints requests per second,
// non-2xx answers and p50/p99 latency per scenario.
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
	bin      string
	label    string
	duration time.Duration
	conns    int
	ops      int
}

func run(ctx context.Context, args []string, stdout io.Writer) error {
	var o options
	fs := flag.NewFlagSet("bench-console", flag.ContinueOnError)
	fs.StringVar(&o.bin, "bin", "bin/toolgate", "toolgate binary to measure")
	fs.StringVar(&o.label, "label", "", "name printed with the results (e.g. the commit)")
	fs.DurationVar(&o.duration, "duration", 20*time.Second, "length of each scenario")
	fs.IntVar(&o.conns, "viewers", 50, "concurrent signed-in viewers (connections, one session each)")
	fs.IntVar(&o.ops, "ops", 1000, "operations in the imported document")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if o.duration <= 0 || o.duration > 5*time.Minute || o.conns < 1 || o.conns > 500 {
		return errors.New("-duration must be in (0, 5m] and -viewers in [1, 500]")
	}
	dir, err := os.MkdirTemp("", "toolgate-bench-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	c := &console{bin: o.bin, dataDir: dir + "/data"}
	docA, docB, err := writeDocs(dir, o.ops)
	if err != nil {
		return err
	}
	if _, err := c.cli(ctx, "", "import", "--source", "bench", "--yes", docA); err != nil {
		return err
	}
	for _, u := range []struct{ email, role string }{{"admin@bench.test", "admin"}, {"viewer@bench.test", "viewer"}} {
		if _, err := c.cli(ctx, benchPassword+"\n", "user", "add", "--email", u.email, "--role", u.role, "--password-stdin"); err != nil {
			return err
		}
	}
	if err := c.start(ctx); err != nil {
		return err
	}
	defer c.stop()
	if err := exposeAndPublish(ctx, c, o.ops); err != nil {
		return err
	}
	cookies := make([]string, o.conns)
	for i := range cookies {
		cl, _, err := c.signIn("viewer@bench.test", benchPassword)
		if err != nil {
			return err
		}
		cookies[i] = "toolgate_session=" + c.cookie(cl, "toolgate_session")
	}
	mix := []string{"/tools", "/tools/get_item_1", "/audit", "/bundles", "/tools", "/tools/post_item_7", "/audit", "/bundles"}
	scenarios := []struct {
		name       string
		paths      []string
		withImport bool
	}{
		{"/tools", []string{"/tools"}, false},
		{"/tools + import", []string{"/tools"}, true},
		{"mix", mix, false},
		{"mix + import", mix, true},
	}
	tw := tabwriter.NewWriter(stdout, 0, 0, 2, ' ', 0)
	fmt.Fprintf(tw, "console load %s: %d viewers, %s per scenario, %d-operation source\n", o.label, o.conns, o.duration, o.ops)
	fmt.Fprintln(tw, "scenario\trequests\treq/s\tnon-2xx\tsocket errors\tp50\tp99\tmax\timports (failed)")
	for _, sc := range scenarios {
		var imp importLoop
		var wg sync.WaitGroup
		ictx, cancel := context.WithCancel(ctx)
		if sc.withImport {
			wg.Add(1)
			go func() { defer wg.Done(); imp.run(ictx, c, docA, docB) }()
		}
		res, err := runWrk(ctx, dir, c.base, cookies, sc.paths, o.conns, o.duration)
		cancel()
		wg.Wait()
		if err != nil {
			return err
		}
		imports := "-"
		if sc.withImport {
			imports = fmt.Sprintf("%d (%d)", imp.done, imp.failed)
		}
		fmt.Fprintf(tw, "%s\t%d\t%.0f\t%d\t%d\t%s\t%s\t%s\t%s\n", sc.name, res.Requests, res.RPS(), res.Non2xx, res.SocketErrors,
			ms(res.P50), ms(res.P99), ms(res.Max), imports)
		if imp.firstErr != nil {
			fmt.Fprintf(tw, "  first import failure: %v\n", imp.firstErr)
		}
	}
	return tw.Flush()
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

func (l *importLoop) run(ctx context.Context, c *console, docA, docB string) {
	for i := 0; ctx.Err() == nil; i++ {
		doc := docB
		if i%2 == 1 {
			doc = docA
		}
		_, err := c.cli(context.WithoutCancel(ctx), "", "import", "--source", "bench", "--yes", doc)
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
