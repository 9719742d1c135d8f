package views

import (
	"testing"
	"time"
)

// TestDashboardPage: one figure per area linking to its page, tools by
// class linking to the filtered list, break-glass sign-ins for everyone to
// see, and the first steps on an empty project.
func TestDashboardPage(t *testing.T) {
	m := DashboardView{Page: page("Dashboard"), Roles: []string{"admin", "approver"}, Sources: 2,
		Classes:    []DashboardClassVM{{Class: "READ", Tools: 10, Exposed: 6}, {Class: "WRITE", Tools: 4}, {Class: "DESTRUCTIVE", Tools: 2, Exposed: 1}, {Class: "PRIVILEGED"}},
		ToolsTotal: 16, ExposedTotal: 7, RulesVersion: 4, LowerVerdicts: 1, Pending: 3, IsApprover: true, PendingForYou: 2,
		Bundle:   &DashboardBundleVM{Version: 5, PublishedAt: "2026-11-30 07:00 UTC", PublishedBy: "ada@example.com", Age: "3 hours", ExpiresAt: "2026-12-07", Expired: true},
		Runtimes: 4, StaleRuntimes: 1, StaleAfter: "10 minutes",
		Recent:     []AuditEntryVM{{ID: 1, At: time.Date(2026, 11, 30, 9, 0, 0, 0, time.UTC), Actor: "ada@example.com", Action: "tool.policy", Subject: "tool:" + evil}},
		BreakGlass: []BreakGlassVM{{Who: "glass@example.com", At: "2026-11-29 22:00", Address: "192.0.2.7"}}}
	wantPage(t, DashboardPage(m), "Dashboard",
		in("[data-testid=dashboard] p.hint", hasText("Signed in as ada@example.com with the roles: admin, approver.")),
		in("[data-testid=break-glass-sign-ins][role=alert]", hasText("glass@example.com at 2026-11-29 22:00 from 192.0.2.7"),
			in("a[href='/audit?action=login.break_glass']")),
		none("[data-testid=first-steps]"),
		in("a[data-testid=dash-sources][href='/sources']", hasText("2")),
		in("a[data-testid=dash-pending][href='/approvals']", hasText("3")),
		in("a[data-testid=dash-pending-for-you]", hasText("2 waiting for you")),
		in("a[data-testid=dash-bundle][href='/bundles']", hasText("v5")),
		in("[data-testid=dash-bundle-published]", hasText("3 hours ago by ada@example.com")),
		in("[data-testid=dash-bundle-expires].warn", hasText("Expired 2026-12-07")),
		in("a[data-testid=dash-runtimes]", hasText("4")),
		in("p.warn a[data-testid=dash-stale-runtimes]", hasText("1 stale")),
		count("[data-testid=dash-classes] tbody tr", 4),
		in("tr[data-testid=dash-class-DESTRUCTIVE]", in(".badge.risk-DESTRUCTIVE"),
			in("a[data-testid=tools][href='/tools?class=DESTRUCTIVE']", hasText("2")),
			in("a[data-testid=exposed][href='/tools?class=DESTRUCTIVE&exposure=exposed']", hasText("1"))),
		in("a[data-testid=dash-tools-total][href='/tools']", hasText("16")),
		in("a[data-testid=dash-exposed-total]", hasText("7")),
		in("[data-testid=dash-rules-version]", hasText("rules version 4")),
		in("[data-testid=dash-lower-verdicts]", hasText("1 tools have a lower risk verdict")),
		in("[data-testid=dash-recent] [data-testid=dash-recent-entry]", hasText("tool.policy tool:"+evil), hasText("by ada@example.com, 2026-11-30 09:00:00 UTC")))
	empty := DashboardView{Page: page("Dashboard"), Roles: []string{"viewer"}, StaleAfter: "10 minutes"}
	wantPage(t, DashboardPage(empty), "Dashboard",
		in("[data-testid=first-steps] a[href='/sources']", hasText("Import an API")),
		in("a[data-testid=dash-bundle]", hasText("none")), none("[data-testid=dash-bundle-expires]"),
		none("[data-testid=dash-pending-for-you]"), none("[data-testid=break-glass-sign-ins]"),
		none("[data-testid=dash-lower-verdicts]"), none("[data-testid=dash-recent]"), none("p.warn a[data-testid=dash-stale-runtimes]"))
}

// defaultsForm is the project defaults as web's defaults page fills them.
func defaultsForm() DefaultsFormVM {
	return DefaultsFormVM{SafeAttempts: "2", SafeBackoffMS: "200", SafeMultiplier: "2", SafeJitter: true, SafeRetryOn: []int{429, 502, 503, 504},
		SafeTimeoutMS: "5000", AllTimeoutMS: "10000", AllDeadlineMS: "30000", AllMaxResponse: "1048576",
		BreakerThreshold: "5", BreakerResetMS: "30000"}
}

// TestDefaultsPage: admins edit the defaults in a POST form carrying CSRF
// and the version, with a live preview; a conflict shows what differs;
// others read the facts.
func TestDefaultsPage(t *testing.T) {
	f := defaultsForm()
	f.FieldErrors = map[string]string{"safe.attempts": "Attempts must be 1 to 10.", "safe.retry_on": "Pick at least one status."}
	m := DefaultsView{Page: page("Defaults"), Form: f, Version: 6, UpdatedBy: "ada@example.com", CanEdit: true,
		Preview:  DefaultsPreviewVM{Changed: 3, Total: 16},
		Conflict: []DiffRowVM{{Field: "safe.attempts", Before: "3", After: "2"}}, Notice: "Defaults saved."}
	wantPage(t, DefaultsPage(m), "Project defaults",
		in("[data-testid=notice]", hasText("Defaults saved.")),
		in("[data-testid=defaults-conflict][role=alert] [data-testid=diff] th", hasText("Stored now")),
		postForm("/defaults", hasAttr("hx-post", "/defaults/preview"), hasAttr("hx-target", "#defaults-preview"),
			in("input[type=hidden][name=version][value='6']"),
			in("input#pf-safe\\.attempts[aria-invalid]", hasAttr("value", "2"), hasAttr("aria-describedby", "pf-safe.attempts-error")),
			in("[data-testid=field-error]", hasText("Attempts must be 1 to 10.")),
			in(".field-error", hasText("Pick at least one status.")),
			in("input[name=safe\\.retry_on][value='429'][checked]"), none("input[name=safe\\.retry_on][value='500'][checked]"),
			in("input#pf-all\\.circuit_breaker\\.threshold", hasAttr("value", "5")),
			none("input[name=expose_new_read_tools][checked]"),
			in("#defaults-preview[aria-live=polite] [data-testid=defaults-changed]", hasText("3")),
			in("button[formaction='/defaults/preview']")),
		in("p.hint", hasText("Last saved by ada@example.com (version 6).")))
	wantPage(t, DefaultsPage(DefaultsView{Page: page("Defaults"), Form: defaultsForm(), Version: 6}), "Project defaults",
		none("form[action='/defaults']"),
		in("[data-testid=defaults-facts] dt:contains('Safe tools') + dd", hasText("2 attempts, backoff 200 ms × 2, timeout 5000 ms")),
		in("[data-testid=defaults-facts] dt:contains('Expose new READ tools') + dd", hasText("no")))
}

// TestDefaultsPreview is the fragment HTMX swaps in: invalid values are
// an alert instead of a count.
func TestDefaultsPreview(t *testing.T) {
	wantFragment(t, DefaultsPreview(DefaultsPreviewVM{Invalid: []string{"safe.attempts: " + evil}}),
		in("[data-testid=preview-invalid][role=alert]", hasText("safe.attempts: "+evil)), none("[data-testid=defaults-changed]"))
}
