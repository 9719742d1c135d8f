package e2e

import (
	"context"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/playwright-community/playwright-go"

	"github.com/toolgate/toolgate/internal/callrecord"
	"github.com/toolgate/toolgate/internal/cli"
	"github.com/toolgate/toolgate/internal/config"
	"github.com/toolgate/toolgate/internal/risk"
	"github.com/toolgate/toolgate/internal/store"
	"github.com/toolgate/toolgate/internal/store/storetest"
)

// tourPages are the console's pages in navigation order, with the heading
// each must show.
var tourPages = []struct{ path, name, h1 string }{
	{"/", "dashboard", "Dashboard"},
	{"/sources", "sources", "Sources"},
	{"/sources/orders", "source", "orders"},
	{"/tools", "tools", "Tools"},
	{"/tools/deleteOrder", "tool", "deleteOrder"},
	{"/risk-rules", "risk-rules", "How risk classes are decided"},
	{"/approvals", "approvals", "Approvals"},
	{"/bundles", "bundles", "Bundles"},
	{"/keys", "keys", "Signing keys"},
	{"/runtimes", "runtimes", "Runtimes"},
	{"/tokens", "tokens", "Runtime tokens"},
	{"/calls?tool=organizations_list", "calls", "Calls of organizations_list"},
	{"/defaults", "defaults", "Project defaults"},
	{"/audit", "audit", "Audit log"},
	{"/users", "users", "Users"},
	{"/webhooks", "webhooks", "Webhooks"},
	{"/account", "account", "Your account"},
}

// TestTour visits every page as an admin on a laptop and on a phone: each
// answers 200 with one h1, none scrolls sideways, each is saved as a
// screenshot for a person to look at, and on the laptop every control is
// reached by Tab with a visible focus outline.
func TestTour(t *testing.T) {
	a := startApp(t)
	password := a.addUser(t, "admin@example.com", "admin", "approver")
	a.addUser(t, "approver@example.com", "approver") // a second row on the users page
	seedTour(t, a)
	seedPictures(t, a)

	for _, size := range []struct {
		name string
		vp   *playwright.Size
	}{{"desktop", desktop}, {"narrow", narrow}} {
		t.Run(size.name, func(t *testing.T) {
			_, page := a.signIn(t, size.vp, "admin@example.com", password)
			csp := watchCSP(page)
			for _, p := range tourPages {
				resp, err := page.Goto(p.path)
				must(t, err)
				if resp.Status() != 200 {
					t.Fatalf("%s: status %d", p.path, resp.Status())
				}
				heading := page.Locator("h1")
				visible(t, heading)
				if got, err := heading.First().TextContent(); err != nil || !strings.Contains(got, p.h1) {
					t.Errorf("%s: h1 %q (%v), want %q", p.path, got, err, p.h1)
				}
				// "" when the page fits, else what is wider than the window.
				overflow, err := page.Evaluate(`() => {
					const d = document.documentElement;
					return d.scrollWidth <= window.innerWidth + 1 ? "" : d.scrollWidth + "px > " + window.innerWidth + "px";
				}`)
				must(t, err)
				if overflow != "" {
					t.Errorf("%s scrolls sideways: %v", p.path, overflow)
				}
				shot(t, page, p.name)
				if size.vp == narrow {
					noWideElements(t, page, p.path)
					shotScreen(t, page, p.name+"-top")
				}
				shotPictures(t, page, p.name)
				if size.vp == narrow {
					noWideElements(t, page, p.path+" (numbers open)")
				}
				if size.vp == desktop {
					checkKeyboard(t, page, p.path)
				}
			}
			// An HTMX sort and a filter: the swaps must not trip the CSP
			// (htmx's inline indicator styles are configured off).
			must(t, goTo(page, "/tools"))
			if size.vp == desktop {
				must(t, page.GetByRole("link", playwright.PageGetByRoleOptions{Name: "Path", Exact: playwright.Bool(true)}).Click())
			} else { // a phone's cards have no column headers: a select sorts
				_, err := page.GetByLabel("Sort by").SelectOption(playwright.SelectOptionValues{Values: &[]string{"path"}})
				must(t, err)
			}
			must(t, page.WaitForURL("**/tools?sort=path"))
			must(t, page.GetByLabel("Search").Fill("order"))
			must(t, page.WaitForURL("**/tools?*q=order*"))
			shot(t, page, "tools-sorted")

			// An audit entry opens as a field-by-field diff.
			must(t, goTo(page, "/audit?action=source.import"))
			must(t, page.GetByTestId("audit-change").First().Locator("summary").Click())
			visible(t, page.GetByTestId("audit-change").First().GetByTestId("diff"))
			if size.vp == narrow {
				noWideElements(t, page, "/audit (diff open)")
			}
			shot(t, page, "audit-diff")

			// A new runtime token is shown once: it fits the window and
			// the copy button (app.js, no inline script) works.
			must(t, goTo(page, "/tokens"))
			must(t, page.GetByLabel("Name").Fill("tour-token-"+size.name))
			must(t, page.GetByRole("button", playwright.PageGetByRoleOptions{Name: "Create token"}).Click())
			visible(t, page.GetByTestId("new-token-value"))
			must(t, page.GetByRole("button", playwright.PageGetByRoleOptions{Name: "Copy"}).Click())
			visible(t, page.Locator("#new-token-value-status").GetByText(regexp.MustCompile(`Copied|Selected`)))
			if size.vp == narrow {
				noWideElements(t, page, "/tokens (new token)")
			}
			shot(t, page, "token-created")
			if v := csp(); len(v) > 0 {
				t.Errorf("%d CSP violations in the console during the tour, e.g. %q", len(v), v[0])
			}
		})
	}
}

// watchCSP collects the console messages that report a Content Security
// Policy violation on page; call the returned function to read them.
func watchCSP(page playwright.Page) func() []string {
	var mu sync.Mutex
	var seen []string
	page.OnConsole(func(m playwright.ConsoleMessage) {
		if text := m.Text(); strings.Contains(text, "Content Security Policy") || strings.Contains(text, "Refused to") {
			mu.Lock()
			seen = append(seen, text)
			mu.Unlock()
		}
	})
	return func() []string {
		mu.Lock()
		defer mu.Unlock()
		return append([]string(nil), seen...)
	}
}

// focusables counts the controls Tab should stop at: visible, enabled,
// and one stop per radio group (arrow keys move inside a group).
const focusables = `() => {
	const sel = 'a[href], button, input:not([type=hidden]), select, textarea, summary, [tabindex]:not([tabindex="-1"])';
	const radios = new Set();
	return [...document.querySelectorAll(sel)].filter(e => {
		if (!e.checkVisibility() || e.disabled) return false;
		if (e.type === 'radio') { if (radios.has(e.name)) return false; radios.add(e.name); }
		return true;
	}).length;
}`

// focused describes the focused element and whether it shows a focus
// outline; it tags the element so each stop is counted once.
const focused = `() => {
	const e = document.activeElement;
	if (!e || e === document.body || e === document.documentElement) return null;
	if (!e.dataset.tourStop) e.dataset.tourStop = String(document.querySelectorAll('[data-tour-stop]').length + 1);
	const s = getComputedStyle(e);
	return {stop: e.dataset.tourStop, outlined: s.outlineStyle !== 'none' && parseFloat(s.outlineWidth) > 0,
		what: e.outerHTML.slice(0, 100)};
}`

// checkKeyboard tabs through the page: every control is reached, and each
// shows a visible focus outline when reached from the keyboard.
func checkKeyboard(t *testing.T, page playwright.Page, path string) {
	t.Helper()
	n, err := page.Evaluate(focusables)
	must(t, err)
	want, ok := n.(int)
	if !ok || want == 0 {
		t.Fatalf("%s: %v focusable controls", path, n)
	}
	// Some controls take several presses (a date input has a stop per
	// part), so tab until focus comes back to the first stop.
	seen := map[string]bool{}
	for range 3*want + 2 {
		must(t, page.Keyboard().Press("Tab"))
		v, err := page.Evaluate(focused)
		must(t, err)
		stop, ok := v.(map[string]any)
		if !ok {
			continue // focus left the document between the last and first stop
		}
		if id := stop["stop"].(string); seen[id] && id == "1" {
			break
		}
		if !seen[stop["stop"].(string)] && stop["outlined"] != true {
			t.Errorf("%s: no focus outline on %s", path, stop["what"])
		}
		seen[stop["stop"].(string)] = true
	}
	if len(seen) < want {
		t.Errorf("%s: Tab reached %d of %d controls", path, len(seen), want)
	}
}

// seedTour fills the pages the way an operator would (import through the
// CLI, publish through the CLI) plus a few store fixtures for what has no
// command: long names to stress narrow layouts, a pending change request,
// a runtime instance.
func seedTour(t *testing.T, a *app) {
	t.Helper()
	ctx := context.Background()
	run := func(args ...string) {
		var out strings.Builder
		if err := cli.Run(ctx, args, a.env, strings.NewReader(""), &out, &out); err != nil {
			t.Fatalf("toolgate %s: %v\n%s", strings.Join(args, " "), err, out.String())
		}
	}
	run("import", "--source", "orders", "--yes", filepath.Join("testdata", "orders.yaml"))

	db := storetest.Open(t, config.DBPath(a.dataDir))
	storetest.MustAddTool(t, db, storetest.FixtureTool{Source: "organization-administration", Origin: "https://admin.example.com",
		Name: "organizations_members_roles_replace_all_for_member", Method: "PUT",
		Path: "/admin/organizations/{organizationId}/members/{memberId}/roles/assignments", Class: risk.Privileged})
	storetest.MustAddTool(t, db, storetest.FixtureTool{Source: "organization-administration", Origin: "https://admin.example.com",
		Name: "organizations_list", Method: "GET", Path: "/admin/organizations", Class: risk.Read, Exposed: true})

	admin, err := db.UserByEmail(ctx, "admin@example.com")
	must(t, err)
	del, err := db.ToolPolicyByName(ctx, "deleteOrder")
	must(t, err)
	p := del.Policy
	p.Exposed = true
	_, err = db.CreateChangeRequest(ctx, admin, store.NewChangeRequest{ToolID: del.ToolID, Kind: store.KindExposeRisky,
		Reason: "The nightly clean-up agent cancels orders that were never paid for within thirty days.", Policy: p})
	must(t, err)
	must(t, db.Close())

	run("publish", "--note", "first publish with the organisation listing")
	run("token", "create", "--name", "production-fleet-eu-west")

	db, err = store.Open(ctx, config.DBPath(a.dataDir))
	must(t, err)
	tokens, err := db.ListRuntimeTokens(ctx)
	must(t, err)
	must(t, db.RecordRuntimeFetch(ctx, store.RuntimeFetch{TokenID: tokens[0].ID,
		InstanceID: "3f1c9a7e-5b2d-4c8e-9f60-0a1b2c3d4e5f", Name: "agent-runtime-eu-west-1a", Version: 1, RemoteAddr: "10.20.30.40"}))
	args, err := callrecord.ArgumentsDigest(map[string]any{"page": 2})
	must(t, err)
	must(t, db.RecordCalls(ctx, tokens[0].ID, []callrecord.Record{{ID: callrecord.NewID(), Tool: "organizations_list",
		DefinitionDigest: "sha256:" + strings.Repeat("ab", 32), ArgumentsDigest: args,
		Principal: callrecord.Principal{Kind: "oidc", Subject: "billing-reconciliation-agent@agents.example.com", ClientID: "claude-desktop"},
		Decision:  callrecord.Allowed, Class: callrecord.ClassOK, Status: 200, Attempts: 1, At: time.Now().Add(-time.Minute), DurationMS: 184}}))
	must(t, db.Close())
}
