package web

import (
	"context"
	"net/url"
	"strconv"
	"testing"
)

// layoutChecks hold on every signed-in full page: one h1, the collapsible
// menu with the main navigation, the favicon, app.js, no inline script.
func layoutChecks(h1 string) []check {
	return []check{
		count("h1", 1),
		in("h1", hasText(h1)),
		in("header.topbar details.menu nav[aria-label=Main] a[href='/tools']"),
		in("link[rel=icon]"),
		in("meta[name=htmx-config]"),
		none("script:not([src])"),
		none("[style]"),
	}
}

// TestPagesKeyElements renders every console page as an admin over a small
// project and checks its key elements by selector.
func TestPagesKeyElements(t *testing.T) {
	a := newTestApp(t, true)
	a.importDoc("pets", petsDoc(""))
	admin := strconv.FormatInt(a.users["admin"].ID, 10)
	tests := []struct {
		path, h1 string
		checks   []check
	}{
		{"/", "Dashboard", []check{in("[data-testid=dashboard] .tiles"), in("[data-testid=dash-sources]", hasText("1")),
			none("[data-testid=first-steps]")}},
		{"/sources", "Sources", []check{in("table.dense[data-testid=sources-table] [data-testid=source-row]", hasText("pets")),
			in("form[data-testid=import-form]")}},
		{"/sources/pets", "pets", nil},
		{"/tools", "Tools", []check{in("form[data-testid=tool-filters] select#filter-class"),
			in("table.dense.tools thead th[aria-sort]"), count("[data-testid=tool-row]", 4),
			in("[data-testid=tool-row] td.c-path code.reveal[tabindex='0']", hasAttr("title", "/pets/{id}")),
			in("[data-testid=tool-row] details.reasons summary [data-testid=tool-class]", hasText("DESTRUCTIVE")),
			in("[data-testid=tool-retry]", hasText("off")), in("[data-testid=tool-retry]", hasText("2×")),
			in("[data-testid=tools-count]", hasText("4 tools"))}},
		{"/tools/getPet", "getPet", []check{in("[data-testid=tool-policy] form[data-testid=policy-form]"),
			in("[data-testid=policy-preview]"), in("[data-testid=tool-params]")}},
		{"/tools/getPet/policy", "getPet", []check{in("form[data-testid=policy-form] input[name=return_to]")}},
		{"/risk-rules", "How risk classes are decided", []check{in("[data-testid=risk-rules-table] [data-testid=risk-rule]")}},
		{"/approvals", "Approvals", []check{in("[data-testid=no-pending]")}},
		{"/defaults", "Project defaults", []check{in("[data-testid=defaults]")}},
		{"/audit", "Audit log", []check{in("table.dense[data-testid=audit-table] [data-testid=audit-row]"),
			in("[data-testid=audit-row] details[data-testid=audit-change] table.diff td", hasText("pets"))}},
		{"/bundles", "Bundles", []check{in("[data-testid=next-bundle-loading] a[href='/bundles/next']")}},
		{"/bundles/next", "Next bundle", []check{in("[data-testid=preview] [data-testid=warning]", hasText("No tool is exposed")),
			in("[data-testid=publish-empty]", hasText("Publish an empty bundle"))}},
		{"/keys", "Signing keys", nil},
		{"/runtimes", "Runtimes", []check{in("[data-testid=no-runtimes] a[href='/tokens']")}},
		{"/tokens", "Runtime tokens", []check{in("form[data-testid=token-form] input#name")}},
		{"/users", "Users", []check{in("table[data-testid=users-table] [data-testid=user-row]", hasText("admin@example.com"))}},
		{"/users/" + admin, "admin@example.com", nil},
		{"/account", "Your account", nil},
	}
	for _, tt := range tests {
		t.Run(tt.path, func(t *testing.T) {
			body := a.get(tt.path, "admin", nil)
			wantHTML(t, body, append(layoutChecks(tt.h1), tt.checks...)...)
		})
	}
}

// TestEmptyStates: a new project's pages say what to do next.
func TestEmptyStates(t *testing.T) {
	a := newTestApp(t, true)
	wantHTML(t, a.get("/", "admin", nil), in("[data-testid=first-steps] a[href='/sources']", hasText("Import an API")))
	wantHTML(t, a.get("/tools", "viewer", nil), in("[data-testid=tools-empty] a[href='/sources']"), none("[data-testid=tools-table]"))
	wantHTML(t, a.get("/sources", "admin", nil), in("[data-testid=no-sources]", hasText("Import one below")))
	a.importDoc("pets", petsDoc(""))
	wantHTML(t, a.get("/tools?q=nothing-matches-this", "viewer", nil),
		in("[data-testid=tools-empty]", hasText("No tool matches")), in("[data-testid=tools-empty] a[href='/tools']", hasText("Clear filters")))
	wantHTML(t, a.get("/audit?actor=nobody", "viewer", nil), in("[data-testid=audit-empty] a[href='/audit']"))
}

// TestHTMXHistoryRestoreGetsFullPage: htmx asks again with
// HX-History-Restore-Request when Back finds no snapshot; that must be the
// whole page, and every page says it varies by the htmx headers.
func TestHTMXHistoryRestoreGetsFullPage(t *testing.T) {
	a := newTestApp(t, true)
	a.importDoc("pets", petsDoc(""))
	frag := a.do(request{method: "GET", path: "/tools?sort=path", cookie: a.sessionCookie("viewer"), header: map[string]string{"HX-Request": "true"}})
	wantStatus(t, frag, 200)
	wantHTML(t, frag.Body.String(), none("html body header.topbar"), in("[data-testid=tools-table]"))
	if got := frag.Header().Get("HX-Push-Url"); got != "/tools?sort=path" {
		t.Errorf("HX-Push-Url %q, want the short /tools?sort=path", got)
	}
	restore := a.do(request{method: "GET", path: "/tools?sort=path", cookie: a.sessionCookie("viewer"),
		header: map[string]string{"HX-Request": "true", "HX-History-Restore-Request": "true"}})
	wantStatus(t, restore, 200)
	wantHTML(t, restore.Body.String(), layoutChecks("Tools")...)
	for _, rec := range []*testRec{{frag}, {restore}} {
		if v := rec.Header().Values("Vary"); !contains(v, "HX-Request") || !contains(v, "HX-History-Restore-Request") {
			t.Errorf("Vary %q lacks the htmx headers", v)
		}
	}
}

func contains(list []string, s string) bool {
	for _, v := range list {
		if v == s {
			return true
		}
	}
	return false
}

// TestFavicon: browsers ask for /favicon.ico on every page.
func TestFavicon(t *testing.T) {
	a := newTestApp(t, true)
	rec := a.do(request{method: "GET", path: "/favicon.ico"})
	wantStatus(t, rec, 200)
	if ct := rec.Header().Get("Content-Type"); ct != "image/x-icon" || rec.Body.Len() < 22 || rec.Body.String()[:4] != "\x00\x00\x01\x00" {
		t.Errorf("favicon: %s, %d bytes", ct, rec.Body.Len())
	}
}

// TestPolicySaveNoticeAndFailure: a save from the tool page comes back to
// it with a notice; a refused save re-renders the tool page with the typed
// value at its field and a preview that does not describe the clamped value.
func TestPolicySaveNoticeAndFailure(t *testing.T) {
	a := newTestApp(t, true)
	a.importDoc("pets", petsDoc(""))
	rec, err := a.db.ToolPolicyByName(context.Background(), "getPet")
	if err != nil {
		t.Fatal(err)
	}
	form := url.Values{"version": {strconv.FormatInt(rec.Version, 10)}, "return_to": {"/tools/getPet"},
		"timeout_ms": {"4000"}, "deadline_ms": {"30000"}, "max_response_bytes": {"1048576"}, "retry.attempts": {"2"},
		"retry.backoff_ms": {"500"}, "retry.multiplier": {"2"}, "circuit_breaker.threshold": {"5"}, "circuit_breaker.reset_ms": {"30000"}}
	res := a.do(request{method: "POST", path: "/tools/getPet/policy", cookie: a.sessionCookie("admin"), csrf: true, form: form})
	wantStatus(t, res, 303)
	if to := res.Header().Get("Location"); to != "/tools/getPet?done=saved" {
		t.Fatalf("saved → %s", to)
	}
	wantHTML(t, a.get("/tools/getPet?done=saved", "admin", nil), in("[data-testid=notice]", hasText("Policy saved.")))

	rec, _ = a.db.ToolPolicyByName(context.Background(), "getPet")
	form.Set("version", strconv.FormatInt(rec.Version, 10))
	form.Set("retry.attempts", "9")
	res = a.do(request{method: "POST", path: "/tools/getPet/policy", cookie: a.sessionCookie("admin"), csrf: true, form: form})
	wantStatus(t, res, 400)
	wantHTML(t, res.Body.String(),
		in("[data-testid=tool-detail]"), // the tool page, as the form was
		in("input[name='retry.attempts'][aria-invalid]", hasAttr("value", "9")),
		in("[data-testid=field-error]", hasText("between 1 and 5")),
		in("[data-testid=preview-invalid]"),
		none("[data-testid=worst-case]"),
		in("[data-testid=tool-detail]", lacks("up to 5 attempts"))) // the preview does not describe the clamped attempts
}

// TestFieldErrorsAtTheField: single-field forms put the refusal at the
// field, mark it invalid and keep what was typed.
func TestFieldErrorsAtTheField(t *testing.T) {
	a := newTestApp(t, true)
	a.importDoc("pets", petsDoc(""))
	res := a.do(request{method: "POST", path: "/tokens", cookie: a.sessionCookie("admin"), csrf: true,
		form: url.Values{"name": {"no spaces allowed"}}})
	wantStatus(t, res, 400)
	wantHTML(t, res.Body.String(), in("input#name[aria-invalid]", hasAttr("value", "no spaces allowed")),
		in("#name-error[data-testid=field-error]"), none("[data-testid=form-error]"))
	res = a.do(request{method: "POST", path: "/tools/getPet/risk", cookie: a.sessionCookie("admin"), csrf: true,
		form: url.Values{"class": {"PRIVILEGED"}, "reason": {" "}}})
	wantStatus(t, res, 400)
	wantHTML(t, res.Body.String(), in("textarea#raise-reason[aria-invalid]"), in("#raise-reason-error", hasText("Say why")))
	res = a.do(request{method: "POST", path: "/tools/getPet/risk", cookie: a.sessionCookie("admin"), csrf: true,
		form: url.Values{"class": {"READ"}, "reason": {"because"}}})
	wantStatus(t, res, 400)
	wantHTML(t, res.Body.String(), in("#raise-class-error", hasText("choose a higher class")))
}

// TestActionCancelReturns: an explicit action opened from the tool page
// cancels back to the tool page and, once requested, ends there.
func TestActionCancelReturns(t *testing.T) {
	a := newTestApp(t, true)
	a.importDoc("pets", petsDoc(""))
	wantHTML(t, a.get("/tools/deletePet", "admin", nil),
		in("a[href='/tools/deletePet/actions/expose?return_to=%2Ftools%2FdeletePet']"))
	wantHTML(t, a.get("/tools/deletePet/actions/expose?return_to=%2Ftools%2FdeletePet", "admin", nil),
		in("[data-testid=cancel]", hasAttr("href", "/tools/deletePet")),
		in("input[name=return_to]", hasAttr("value", "/tools/deletePet")),
		in("[data-testid=warning]"))
	res := a.do(request{method: "POST", path: "/tools/deletePet/actions/expose", cookie: a.sessionCookie("admin"), csrf: true,
		form: url.Values{"return_to": {"/tools/deletePet"}, "reason": {"the clean-up agent needs it"}, "confirm_name": {"deletePet"}}})
	wantStatus(t, res, 303)
	if to := res.Header().Get("Location"); to != "/tools/deletePet?done=requested" {
		t.Errorf("requested → %s", to)
	}
	wantHTML(t, a.get("/tools/deletePet?done=requested", "admin", nil), in("[data-testid=notice]", hasText("Change request created")))
	// Another site is never a return target.
	wantHTML(t, a.get("/tools/deletePet/actions/expose?return_to=https%3A%2F%2Fevil.example", "admin", nil),
		in("[data-testid=cancel]", hasAttr("href", "/")))
}
