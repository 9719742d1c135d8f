package e2e

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/playwright-community/playwright-go"

	"github.com/toolgate/toolgate/internal/cli"
)

// manyToolsDoc writes an OpenAPI document with n operations whose names and
// paths are as long as real catalogues have, and returns its path.
func manyToolsDoc(t *testing.T, n int) string {
	t.Helper()
	var b strings.Builder
	b.WriteString("openapi: 3.0.3\ninfo: {title: Catalogue, version: \"1\"}\nservers: [{url: https://catalogue.example.com}]\npaths:\n")
	verbs := []string{"get", "post", "put", "delete"}
	for i := 0; i < n; i += len(verbs) {
		fmt.Fprintf(&b, "  /organizations/{organizationId}/projects/{projectId}/resources%03d/{resourceId}/attachments:\n", i)
		b.WriteString("    parameters:\n")
		for _, p := range []string{"organizationId", "projectId", "resourceId"} {
			fmt.Fprintf(&b, "      - {name: %s, in: path, required: true, schema: {type: string}}\n", p)
		}
		for j, v := range verbs {
			if i+j >= n {
				break
			}
			fmt.Fprintf(&b, "    %s: {operationId: %s_project_resource_attachments_%03d, summary: \"%s attachments of resource %d\", tags: [t%d], responses: {\"200\": {description: ok}}}\n",
				v, v, i+j, v, i, i%5)
		}
	}
	path := filepath.Join(t.TempDir(), "catalogue.yaml")
	must(t, os.WriteFile(path, []byte(b.String()), 0o600))
	return path
}

// cliRun runs one toolgate command against a's data directory.
func (a *app) cliRun(t *testing.T, args ...string) {
	t.Helper()
	var out strings.Builder
	if err := cli.Run(context.Background(), args, a.env, strings.NewReader(""), &out, &out); err != nil {
		t.Fatalf("toolgate %s: %v\n%s", strings.Join(args, " "), err, out.String())
	}
}

// inFirstViewport counts the tool rows wholly inside the window as loaded,
// and the tallest row's height.
const inFirstViewport = `() => {
	const rows = [...document.querySelectorAll('[data-testid=tool-row]')];
	const h = window.innerHeight;
	return {visible: rows.filter(r => r.getBoundingClientRect().bottom <= h).length,
		tallest: Math.max(...rows.map(r => r.getBoundingClientRect().height)), rows: rows.length};
}`

// TestToolsListDense is DESIGN's Layout for the Tools list: with 300 tools at 1280×800,
// at least 15 rows show in the first screen with the filters above them,
// every row is one line, and on a phone nothing is wider than the window.
func TestToolsListDense(t *testing.T) {
	a := startApp(t)
	password := a.addUser(t, "admin@example.com", "admin")
	a.cliRun(t, "import", "--source", "catalogue-of-organisation-projects", "--yes", manyToolsDoc(t, 300))

	_, page := a.signIn(t, desktop, "admin@example.com", password)
	must(t, goTo(page, "/tools"))
	visible(t, page.GetByTestId("tool-filters"))
	visible(t, page.GetByTestId("tools-count").GetByText("300 tools"))
	v, err := page.Evaluate(inFirstViewport)
	must(t, err)
	m := v.(map[string]any)
	visibleRows, tallest := toFloat(m["visible"]), toFloat(m["tallest"])
	t.Logf("1280×800: %v tool rows in the first viewport, tallest row %vpx", visibleRows, tallest)
	if visibleRows < 15 {
		t.Errorf("%v tool rows in the first viewport, want ≥ 15", visibleRows)
	}
	if tallest > 40 {
		t.Errorf("tallest tool row is %vpx: a row wraps onto a second line", tallest)
	}
	shot(t, page, "desktop")

	// The header stays on screen while the rows scroll under it.
	top, err := page.Evaluate(`() => { window.scrollTo(0, 1200); return document.querySelector('[data-testid=tools-table] thead th').getBoundingClientRect().top; }`)
	must(t, err)
	if y := toFloat(top); y < -1 || y > 1 {
		t.Errorf("after scrolling, the table header is at %vpx, want it stuck at the top", y)
	}
	shotScreen(t, page, "desktop-scrolled")
	_, err = page.Evaluate(`() => window.scrollTo(0, 0)`)
	must(t, err)

	// The risk reasons open from the badge, over the rows below.
	must(t, page.GetByTestId("tool-row").First().GetByTestId("tool-class").Click())
	visible(t, page.GetByTestId("tool-row").First().Locator("details.reasons ul"))
	shot(t, page, "desktop-reasons")

	// A search with no match says so and offers to clear the filters.
	must(t, page.GetByLabel("Search").Fill("no-such-tool-anywhere"))
	visible(t, page.GetByTestId("tools-empty").GetByRole("link", playwright.LocatorGetByRoleOptions{Name: "Clear filters"}))
	shot(t, page, "desktop-no-match")

	_, phone := a.signIn(t, narrow, "admin@example.com", password)
	must(t, goTo(phone, "/tools"))
	visible(t, phone.GetByTestId("tools-table"))
	noWideElements(t, phone, "/tools")
	shot(t, phone, "narrow")
	shotScreen(t, phone, "narrow-top")
	must(t, phone.GetByTestId("menu").Locator("summary").Click())
	visible(t, phone.GetByRole("link", playwright.PageGetByRoleOptions{Name: "Approvals"}))
	shotScreen(t, phone, "narrow-menu")
}

func toFloat(v any) float64 {
	switch n := v.(type) {
	case int:
		return float64(n)
	case float64:
		return n
	}
	return -1
}

// wideElements lists visible elements that reach past the window's right
// edge, unless an ancestor that clips its overflow fits the window.
const wideElements = `() => {
	const vw = document.documentElement.clientWidth;
	const out = [];
	for (const e of document.body.querySelectorAll('*')) {
		const r = e.getBoundingClientRect();
		if (r.width === 0 || r.right <= vw + 1 || !e.checkVisibility()) continue;
		let clipped = false;
		for (let p = e.parentElement; p && p !== document.body; p = p.parentElement) {
			const s = getComputedStyle(p);
			if (s.overflowX !== 'visible' && p.getBoundingClientRect().right <= vw + 1) { clipped = true; break; }
		}
		if (!clipped) out.push(e.tagName.toLowerCase() + (e.className ? '.' + String(e.className).replace(/ /g, '.') : '') +
			' ' + Math.round(r.right) + 'px: ' + e.outerHTML.slice(0, 80));
	}
	// A box that scrolls or cuts its content sideways hides part of the
	// page too; ellipsis text (.clip), code blocks (pre) and
	// screen-reader text (.sr-only) may.
	for (const e of document.body.querySelectorAll('*')) {
		if (!e.checkVisibility() || e.closest('.clip, pre, .sr-only')) continue;
		const s = getComputedStyle(e);
		if (s.overflowX !== 'visible' && e.scrollWidth > e.clientWidth + 1)
			out.push('inside ' + e.tagName.toLowerCase() + (e.className ? '.' + String(e.className).replace(/ /g, '.') : '') +
				' ' + e.scrollWidth + 'px > ' + e.clientWidth + 'px: ' + e.outerHTML.slice(0, 80));
	}
	return out.slice(0, 5);
}`

// noWideElements fails when an element on the page is wider than the window.
func noWideElements(t *testing.T, page playwright.Page, path string) {
	t.Helper()
	v, err := page.Evaluate(wideElements)
	must(t, err)
	if wide, _ := v.([]any); len(wide) > 0 {
		t.Errorf("%s: elements wider than the %dpx window: %v", path, narrow.Width, wide)
	}
}

// TestPolicySaveNotice: saving a policy on the tool page ends on the tool
// page with a notice; an out-of-range value is refused at the field, the
// value kept, and the preview does not describe the clamped value.
func TestPolicySaveNotice(t *testing.T) {
	a := startApp(t)
	password := a.addUser(t, "admin@example.com", "admin")
	a.cliRun(t, "import", "--source", "orders", "--yes", filepath.Join("testdata", "orders.yaml"))
	_, page := a.signIn(t, desktop, "admin@example.com", password)

	must(t, goTo(page, "/tools/getOrder"))
	must(t, page.GetByLabel("Attempt timeout").Fill("4000"))
	must(t, page.GetByTestId("save-policy").Click())
	visible(t, page.GetByTestId("notice").GetByText("Policy saved."))
	must(t, page.WaitForURL("**/tools/getOrder?done=saved"))
	shot(t, page, "saved")

	must(t, page.GetByLabel("Attempts (total)").Fill("9"))
	preview := page.GetByTestId("policy-preview")
	visible(t, preview.GetByTestId("preview-invalid"))
	if n, err := preview.GetByText("up to 5 attempts").Count(); err != nil || n != 0 {
		t.Errorf("preview describes 5 attempts beside attempts = 9 (%d, %v)", n, err)
	}
	must(t, page.GetByTestId("save-policy").Click())
	visible(t, page.GetByTestId("field-error"))
	if v, err := page.GetByLabel("Attempts (total)").InputValue(); err != nil || v != "9" {
		t.Errorf("attempts after a refused save: %q (%v), want the typed 9", v, err)
	}
	if got := page.URL(); !strings.HasSuffix(got, "/tools/getOrder/policy") {
		t.Logf("refused save answered at %s", got)
	}
	visible(t, page.GetByTestId("tool-params")) // still the tool page, not another layout
	shot(t, page, "refused")
}

// TestBackAfterSortIsFullPage: after HTMX sorts (pushed URLs), Back asks
// the server again (no local snapshots) and gets the whole page, not the
// results fragment.
func TestBackAfterSortIsFullPage(t *testing.T) {
	a := startApp(t)
	password := a.addUser(t, "admin@example.com", "admin")
	a.cliRun(t, "import", "--source", "orders", "--yes", filepath.Join("testdata", "orders.yaml"))
	_, page := a.signIn(t, desktop, "admin@example.com", password)
	var mu sync.Mutex
	restores := 0
	page.OnRequest(func(r playwright.Request) {
		// Headers, not HeaderValue: the latter waits for the response,
		// which deadlocks inside an event handler.
		if r.Headers()["hx-history-restore-request"] == "true" {
			mu.Lock()
			restores++
			mu.Unlock()
		}
	})

	must(t, goTo(page, "/tools"))
	must(t, page.GetByRole("link", playwright.PageGetByRoleOptions{Name: "Path", Exact: playwright.Bool(true)}).Click())
	must(t, page.WaitForURL("**/tools?sort=path"))
	must(t, page.GetByRole("link", playwright.PageGetByRoleOptions{Name: "Method", Exact: playwright.Bool(true)}).Click())
	must(t, page.WaitForURL("**/tools?sort=method"))
	_, err := page.GoBack()
	must(t, err)
	must(t, page.WaitForURL("**/tools?sort=path"))
	visible(t, page.GetByRole("heading", playwright.PageGetByRoleOptions{Name: "Tools", Level: playwright.Int(1)}))
	visible(t, page.GetByTestId("tool-filters"))
	visible(t, page.GetByRole("navigation", playwright.PageGetByRoleOptions{Name: "Main"}))
	if n, err := page.Locator("header.topbar").Count(); err != nil || n != 1 {
		t.Errorf("%d top bars after Back (%v), want 1", n, err)
	}
	mu.Lock()
	defer mu.Unlock()
	if restores == 0 {
		t.Error("Back did not go to the server with HX-History-Restore-Request")
	}
	shot(t, page, "after-back")
}
