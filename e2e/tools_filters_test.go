package e2e

import (
	"path/filepath"
	"regexp"
	"testing"

	"github.com/playwright-community/playwright-go"
)

// phone is the smallest common phone screen, 375×667 (an iPhone SE).
var phone = &playwright.Size{Width: 375, Height: 667}

// seedFilterTools imports the orders document and a catalogue with long
// names (45 tools in two sources) and returns the admin's password.
func seedFilterTools(t *testing.T, a *app) string {
	t.Helper()
	password := a.addUser(t, "admin@example.com", "admin")
	a.cliRun(t, "import", "--source", "orders", "--yes", filepath.Join("testdata", "orders.yaml"))
	a.cliRun(t, "import", "--source", "catalogue-of-organisation-projects", "--yes", manyToolsDoc(t, 40))
	return password
}

// firstRowBottom is how far down the window the first tool row ends, and
// the window's height.
const firstRowBottom = `() => {
	const r = document.querySelector('[data-testid=tool-row]');
	return {bottom: r ? r.getBoundingClientRect().bottom : -1, height: window.innerHeight};
}`

// wantFirstRowOnScreen fails unless the first tool row ends inside the
// window as loaded, with no scrolling.
func wantFirstRowOnScreen(t *testing.T, page playwright.Page) {
	t.Helper()
	v, err := page.Evaluate(firstRowBottom)
	must(t, err)
	m := v.(map[string]any)
	bottom, height := toFloat(m["bottom"]), toFloat(m["height"])
	t.Logf("%s: first tool row ends at %vpx of %vpx", page.URL(), bottom, height)
	if bottom < 0 || bottom > height {
		t.Errorf("the first tool row ends at %vpx, outside the %vpx window", bottom, height)
	}
}

// wantText waits until loc's whole text is want.
func wantText(t *testing.T, loc playwright.Locator, want string) {
	t.Helper()
	if err := playwright.NewPlaywrightAssertions(10000).Locator(loc).ToHaveText(want); err != nil {
		t.Fatal(err)
	}
}

// hidden waits until loc is hidden, failing the test otherwise.
func hidden(t *testing.T, loc playwright.Locator) {
	t.Helper()
	if err := playwright.NewPlaywrightAssertions(10000).Locator(loc).ToBeHidden(); err != nil {
		t.Fatal(err)
	}
}

// TestToolsFiltersOnAPhone: at 375×667 the Tools page shows the search and
// the sort, the five selects behind a closed "Filters" disclosure, and the
// first tool without scrolling. The disclosure opens from the keyboard; a
// select narrows the list through HTMX and the summary counts it, after a
// reload too (then open).
func TestToolsFiltersOnAPhone(t *testing.T) {
	a := startApp(t)
	password := seedFilterTools(t, a)
	_, page := a.signIn(t, phone, "admin@example.com", password)
	must(t, goTo(page, "/tools"))
	visible(t, page.GetByTestId("tools-table"))
	summary := page.GetByTestId("more-filters").Locator("summary")
	visible(t, byLabel(page, "Search"))
	visible(t, byLabel(page, "Sort by"))
	wantText(t, summary, "Filters")
	hidden(t, byLabel(page, "Risk class"))
	wantFirstRowOnScreen(t, page)
	noWideElements(t, page, "/tools")
	shotScreen(t, page, "closed")

	toggleFiltersByKeyboard(t, page)
	shotScreen(t, page, "open")
	narrowByHTMX(t, page, summary)
	sortKeepsFocus(t, page)

	// After a reload the disclosure is open, with the count and the choices.
	_, err := page.Reload()
	must(t, err)
	wantText(t, summary, "Filters (2)")
	if !isOpen(t, page) {
		t.Error("the disclosure is closed after a reload with two filters")
	}
	if v, err := byLabel(page, "Source").InputValue(); err != nil || v != "orders" {
		t.Errorf("Source after reload: %q (%v), want orders", v, err)
	}
	visible(t, page.GetByTestId("tools-count").GetByText("1 tools"))
	noWideElements(t, page, "/tools (filtered)")
	shotScreen(t, page, "filtered-reloaded")
}

// toggleFiltersByKeyboard: Tab from the search reaches the sort, then the
// summary; Enter opens it, Space closes and opens it again.
func toggleFiltersByKeyboard(t *testing.T, page playwright.Page) {
	t.Helper()
	must(t, byLabel(page, "Search").Focus())
	must(t, page.Keyboard().Press("Tab"))
	must(t, page.Keyboard().Press("Tab"))
	if tag, err := page.Evaluate(`() => document.activeElement.tagName`); err != nil || tag != "SUMMARY" {
		t.Fatalf("two Tabs after the search focus %v (%v), want the Filters summary", tag, err)
	}
	must(t, page.Keyboard().Press("Enter"))
	visible(t, byLabel(page, "Risk class"))
	must(t, page.Keyboard().Press("Space"))
	hidden(t, byLabel(page, "Risk class"))
	must(t, page.Keyboard().Press("Space"))
	visible(t, byLabel(page, "Source"))
}

// narrowByHTMX: two selects narrow the list in place (the page is not
// reloaded: a marker survives) and the summary counts them.
func narrowByHTMX(t *testing.T, page playwright.Page, summary playwright.Locator) {
	t.Helper()
	_, err := page.Evaluate(`() => { window.toolgateNoReload = true; }`)
	must(t, err)
	_, err = byLabel(page, "Source").SelectOption(playwright.SelectOptionValues{Values: &[]string{"orders"}})
	must(t, err)
	visible(t, page.GetByTestId("tools-count").GetByText("5 tools"))
	must(t, page.WaitForURL("**/tools?source=orders"))
	wantText(t, summary, "Filters (1)")
	_, err = byLabel(page, "Method").SelectOption(playwright.SelectOptionValues{Values: &[]string{"DELETE"}})
	must(t, err)
	visible(t, page.GetByTestId("tools-count").GetByText("1 tools"))
	wantText(t, summary, "Filters (2)")
	if v, err := page.Evaluate(`() => window.toolgateNoReload === true`); err != nil || v != true {
		t.Errorf("choosing a filter reloaded the page (%v), want an HTMX swap", err)
	}
}

// sortKeepsFocus: the sort select is swapped with the results (to follow
// a header's sort) yet keeps the focus.
func sortKeepsFocus(t *testing.T, page playwright.Page) {
	t.Helper()
	must(t, byLabel(page, "Sort by").Focus())
	_, err := page.Evaluate(`() => { document.getElementById("filter-sort").oldOne = true; }`)
	must(t, err)
	_, err = byLabel(page, "Sort by").SelectOption(playwright.SelectOptionValues{Values: &[]string{"path"}})
	must(t, err)
	must(t, page.WaitForURL("**/tools?method=DELETE&sort=path&source=orders"))
	_, err = page.WaitForFunction(`() => !document.getElementById("filter-sort").oldOne`, nil)
	must(t, err)
	if id, err := page.Evaluate(`() => document.activeElement.id`); err != nil || id != "filter-sort" {
		t.Errorf("after sorting, the focus is on %q (%v), want the sort select", id, err)
	}
}

// TestToolsFiltersOnALaptop: at 1280×800 the five selects and the search
// show on one row with no disclosure to open, and a column header's sort
// (HTMX) is kept by the next filter change, which submits the form with
// its hidden sort select.
func TestToolsFiltersOnALaptop(t *testing.T) {
	a := startApp(t)
	password := seedFilterTools(t, a)
	_, desk := a.signIn(t, desktop, "admin@example.com", password)
	must(t, goTo(desk, "/tools"))
	for _, label := range []string{"Source", "Risk class", "Method", "Tag", "Exposure", "Search"} {
		visible(t, byLabel(desk, label))
	}
	hidden(t, desk.GetByTestId("more-filters").Locator("summary"))
	hidden(t, byLabel(desk, "Sort by"))
	v, err := desk.Evaluate(`() => [...document.querySelectorAll('[data-testid=tool-filters] select, [data-testid=tool-filters] input[type=search]')]
		.filter(e => e.checkVisibility()).map(e => Math.round(e.getBoundingClientRect().top))`)
	must(t, err)
	if tops, _ := v.([]any); len(tops) != 6 || !allEqual(tops) {
		t.Errorf("desktop filter controls at tops %v, want 6 on one row", v)
	}
	shotScreen(t, desk, "desktop")

	pathHeader := desk.GetByRole("link", playwright.PageGetByRoleOptions{Name: "Path", Exact: playwright.Bool(true)})
	must(t, pathHeader.Click())
	must(t, desk.WaitForURL("**/tools?sort=path"))
	must(t, pathHeader.Click())
	must(t, desk.WaitForURL("**/tools?dir=desc&sort=path"))
	_, err = byLabel(desk, "Risk class").SelectOption(playwright.SelectOptionValues{Values: &[]string{"READ"}})
	must(t, err)
	if err := desk.WaitForURL("**/tools?class=READ&dir=desc&sort=path"); err != nil {
		v, _ := desk.Evaluate(`() => document.getElementById("filter-sort").outerHTML + document.getElementById("filter-dir").outerHTML`)
		t.Fatalf("after a header sort and a filter the URL is %s (%v); form: %v", desk.URL(), err, v)
	}
	visible(t, desk.Locator("th[aria-sort=descending]").GetByText("Path"))
	shotScreen(t, desk, "header-sort-kept")
}

// byLabel is the control labelled exactly name (the tool rows' checkboxes
// are labelled "Select <tool>", which a loose "Source" would match).
func byLabel(page playwright.Page, name string) playwright.Locator {
	return page.GetByLabel(name, playwright.PageGetByLabelOptions{Exact: playwright.Bool(true)})
}

// isOpen reports whether the "Filters" disclosure is open.
func isOpen(t *testing.T, page playwright.Page) bool {
	t.Helper()
	v, err := page.Evaluate(`() => document.querySelector('[data-testid=more-filters]').open`)
	must(t, err)
	return v == true
}

func allEqual(xs []any) bool {
	for _, x := range xs {
		if toFloat(x) != toFloat(xs[0]) {
			return false
		}
	}
	return true
}

// TestToolsFiltersWithoutScript: with JavaScript off, a phone opens the
// disclosure, picks a risk class and submits the plain GET form.
func TestToolsFiltersWithoutScript(t *testing.T) {
	a := startApp(t)
	password := seedFilterTools(t, a)
	bc, err := browser.NewContext(playwright.BrowserNewContextOptions{BaseURL: playwright.String(a.baseURL),
		Viewport: phone, JavaScriptEnabled: playwright.Bool(false)})
	must(t, err)
	t.Cleanup(func() { _ = bc.Close() })
	bc.SetDefaultTimeout(10000)
	page, err := bc.NewPage()
	must(t, err)
	must(t, goTo(page, "/login"))
	fillLogin(t, page, "admin@example.com", password)
	visible(t, page.GetByTestId("dashboard"))

	must(t, goTo(page, "/tools"))
	wantFirstRowOnScreen(t, page)
	must(t, page.GetByTestId("more-filters").Locator("summary").Click())
	_, err = byLabel(page, "Risk class").SelectOption(playwright.SelectOptionValues{Values: &[]string{"DESTRUCTIVE"}})
	must(t, err)
	must(t, page.GetByRole("button", playwright.PageGetByRoleOptions{Name: "Filter", Exact: playwright.Bool(true)}).Click())
	must(t, page.WaitForURL(regexp.MustCompile(`/tools\?.*class=DESTRUCTIVE`)))
	visible(t, page.GetByTestId("tools-count").GetByText("11 tools"))
	wantText(t, page.GetByTestId("more-filters").Locator("summary"), "Filters (1)")
	visible(t, byLabel(page, "Risk class"))
	shotScreen(t, page, "filtered")
}
