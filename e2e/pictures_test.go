package e2e

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/playwright-community/playwright-go"

	"github.com/toolgate/toolgate/internal/callrecord"
	"github.com/toolgate/toolgate/internal/callsummary"
	"github.com/toolgate/toolgate/internal/cli"
	"github.com/toolgate/toolgate/internal/config"
	"github.com/toolgate/toolgate/internal/store"
)

// seedPictures gives the pictures something to draw: calls of every
// outcome over the last day, a fleet on two versions with a quiet
// instance, and a second bundle version.
func seedPictures(t *testing.T, a *app) {
	t.Helper()
	ctx := context.Background()
	var out strings.Builder
	if err := cli.Run(ctx, []string{"publish", "--note", "second publish"}, a.env, strings.NewReader(""), &out, &out); err != nil {
		t.Fatalf("toolgate publish: %v\n%s", err, out.String())
	}
	db, err := store.Open(ctx, config.DBPath(a.dataDir))
	must(t, err)
	defer db.Close()
	tokens, err := db.ListRuntimeTokens(ctx)
	must(t, err)
	now := time.Now()
	for i, f := range []struct {
		version int64
		ago     time.Duration
	}{{2, 0}, {2, time.Minute}, {1, 2 * time.Hour}} {
		must(t, db.RecordRuntimeFetch(ctx, store.RuntimeFetch{TokenID: tokens[0].ID, InstanceID: fmt.Sprintf("pic-%d", i),
			Name: fmt.Sprintf("agent-runtime-us-east-%d", i), Version: f.version, RemoteAddr: "10.0.0.1", At: now.Add(-f.ago)}))
	}
	args, err := callrecord.ArgumentsDigest(nil)
	must(t, err)
	classes := []string{callrecord.ClassOK, callrecord.ClassOK, callrecord.ClassOK, "REJECTED", "SERVER_ERROR", "OUTCOME_UNKNOWN", "TOOL_NOT_EXPOSED"}
	var recs []callrecord.Record
	for h := range 24 {
		for i := range (h*7)%11 + 2 {
			class := classes[(h+i)%len(classes)]
			recs = append(recs, callrecord.Record{ID: callrecord.NewID(), Tool: "organizations_list", ArgumentsDigest: args,
				Principal: callrecord.Principal{Kind: "local"}, Decision: callrecord.DecisionOf(class), Class: class, Attempts: 1,
				At: now.Add(-time.Duration(h)*time.Hour - time.Duration(i)*time.Minute), DurationMS: int64(80 + 13*i)})
		}
	}
	for len(recs) > 0 {
		n := min(len(recs), callrecord.MaxBatch)
		must(t, db.RecordCalls(ctx, tokens[0].ID, recs[:n]))
		recs = recs[n:]
	}
	// The tool page's pictures read call summaries: a day of deleteOrder
	// calls, mostly OK with some upstream failures, slower in some hours.
	var sums []callsummary.Summary
	for h := range 24 {
		minute := callsummary.Minute(now.Add(-time.Duration(h) * time.Hour))
		ok := callsummary.Counts{Decision: callrecord.Allowed, Class: callrecord.ClassOK, Calls: int64(h%5 + 1)}
		ok.Attempts, ok.Latency[3+h%4] = ok.Calls, ok.Calls
		sums = append(sums, callsummary.Summary{Minute: minute, Tool: "deleteOrder", Counts: ok})
		if h%6 == 0 {
			failed := callsummary.Counts{Decision: callrecord.Allowed, Class: "SERVER_ERROR", Status: 503, Calls: 1, Attempts: 1}
			failed.Latency[7] = 1
			sums = append(sums, callsummary.Summary{Minute: minute, Tool: "deleteOrder", Counts: failed})
		}
	}
	_, err = db.StoreCallSummaries(ctx, tokens[0].ID, "pic-0", sums, now.Add(-48*time.Hour))
	must(t, err)
}

// shotPictures saves each picture on the page on its own, its table of
// numbers open (artifacts/<test>-<page>-<picture>.png), after checking it
// is an SVG with role img and has its numbers beside it.
func shotPictures(t *testing.T, page playwright.Page, name string) {
	t.Helper()
	figures, err := page.Locator("figure.chart").All()
	must(t, err)
	for _, f := range figures {
		id, err := f.GetAttribute("data-testid")
		must(t, err)
		if n, err := f.Locator("svg.plot[role=img]").Count(); err != nil || n != 1 {
			t.Errorf("%s: picture %s has %d role=img SVGs (%v)", name, id, n, err)
		}
		numbers := f.Locator(`[data-testid="` + id + `-numbers"]`)
		if n, err := numbers.Count(); err != nil || n != 1 {
			t.Errorf("%s: picture %s has no numbers beside it (%v)", name, id, err)
		}
		// Open the table, so the screenshot shows the numbers too.
		if n, _ := numbers.Locator("summary").Count(); n == 1 {
			must(t, numbers.Locator("summary").Click())
			visible(t, numbers.Locator("table"))
		}
		file := strings.NewReplacer("/", "_", " ", "_").Replace(t.Name()) + "-" + name + "-" + id + ".png"
		path := filepath.Join(artifacts.dir, file)
		if _, err := f.Screenshot(playwright.LocatorScreenshotOptions{Path: playwright.String(path)}); err != nil {
			t.Fatalf("screenshot %s: %v", id, err)
		}
		artifacts.Lock()
		artifacts.files = append(artifacts.files, path)
		artifacts.Unlock()
	}
}
