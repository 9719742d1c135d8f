package views

import (
	"testing"
	"time"
)

// deletePanel is the policy panel of an unexposed DESTRUCTIVE tool as an
// admin sees it (web's toolPolicyPanel): the risk class and reasons beside
// the retry settings, the explicit actions, a pending request and history.
func deletePanel() ToolPolicyPanelVM {
	return ToolPolicyPanelVM{
		CSRF: csrf, ToolName: "pets_delete", Method: "DELETE", Path: "/pets/{id}",
		Class: "DESTRUCTIVE", DetectedClass: "WRITE",
		Reasons:   []RiskReasonVM{{Code: "method.delete", Class: "DESTRUCTIVE", Text: "DELETE removes data " + evil}},
		Suspended: "risk class raised to DESTRUCTIVE",
		Summary:   "DELETE · 1 attempt (not idempotent)", Version: 4,
		Form: PolicyFormVM{TimeoutMS: "5000", DeadlineMS: "15000", MaxResponseBytes: "1048576", Attempts: "1",
			BackoffMS: "200", Multiplier: "2", Jitter: true, RetryOn: []int{429, 503}, KeyHeader: "Idempotency-Key",
			KeySource: "generated", BreakerThreshold: "5", BreakerResetMS: "30000",
			FieldErrors: map[string]string{"retry.attempts": "Attempts must be 1 to 10."}},
		Preview: PolicyPreviewVM{Lines: []string{"One attempt, 5 s each."}, WorstCase: "5 s",
			NeedsApproval: []string{"Expose a destructive or privileged tool"}},
		CanEdit: true,
		Actions: []ExplicitActionVM{{Label: "Expose this tool…", Href: "/tools/pets_delete/actions/expose?return_to=%2Ftools%2Fpets_delete",
			Hint: "DESTRUCTIVE tools are exposed only after approval."}},
		Pending: []ChangeRequestVM{{ID: 9, ToolName: "pets_delete", Kind: "Lower the risk class", Reason: "only a soft delete",
			Requester: "ada@example.com", Age: "2 hours", Diff: []DiffRowVM{{Field: "class", Before: "DESTRUCTIVE", After: "WRITE"}}, CanWithdraw: true}},
		History: []AuditEntryVM{{ID: 12, At: time.Date(2026, 11, 30, 9, 0, 0, 0, time.UTC), Actor: "ada@example.com",
			Action: "tool.policy", Subject: "tool:pets_delete", Diff: []DiffRowVM{{Field: "timeout_ms", Before: "3000", After: "5000"}}}},
		ReturnTo: "/tools/pets_delete",
	}
}

// TestToolPolicyPage: the panel shows the risk class beside the retry
// configuration; the editor posts with CSRF, the stored version and where
// to come back, and asks HTMX for a preview on change.
func TestToolPolicyPage(t *testing.T) {
	m := ToolPolicyPageView{Page: page("pets_delete policy"), Panel: deletePanel(), Summary: "Delete a pet " + evil}
	wantPage(t, ToolPolicyPage(m), "pets_delete",
		in("main > p", hasText("Delete a pet "+evil)),
		in("[data-testid=tool-policy] .policy-grid",
			in("[data-testid=risk-box] [data-testid=risk-class].risk-DESTRUCTIVE", hasText("DESTRUCTIVE")),
			in("[data-testid=retry-box] [data-testid=policy-summary]", hasText("DELETE · 1 attempt (not idempotent)"))),
		in("[data-testid=risk-box]", hasText("(detected WRITE)"), hasText("DELETE /pets/{id}"),
			in("[data-testid=risk-reasons] li", hasText("method.delete DELETE removes data "+evil)),
			in("[data-testid=suspended]", hasText("risk class raised to DESTRUCTIVE")),
			in("a.button[href='/tools/pets_delete/actions/expose?return_to=%2Ftools%2Fpets_delete']", hasText("Expose this tool…"))),
		postForm("/tools/pets_delete/policy", hasAttr("data-testid", "policy-form"),
			hasAttr("hx-post", "/tools/pets_delete/policy/preview"), hasAttr("hx-target", "#policy-preview"),
			in("input[type=hidden][name=version][value='4']"), in("input[type=hidden][name=return_to][value='/tools/pets_delete']"),
			in("input#pf-timeout_ms", hasAttr("value", "5000")),
			in("input#pf-retry\\.attempts[aria-invalid]", hasAttr("value", "1"), hasAttr("aria-describedby", "pf-retry.attempts-error")),
			in("[data-testid=field-error]#pf-retry\\.attempts-error", hasText("Attempts must be 1 to 10.")),
			none("input#pf-timeout_ms[aria-describedby]"),
			in("input[name=retry\\.retry_on][value='429'][checked]"), none("input[name=retry\\.retry_on][value='500'][checked]"),
			in("input[name=retry\\.jitter][checked]"), none("input[name=exposed][checked]"),
			in("select#pf-key-source option[value=generated][selected]"),
			in("button[data-testid=save-policy]", hasText("Save policy")),
			in("button[formaction='/tools/pets_delete/policy/preview']")),
		in("#policy-preview[aria-live=polite] [data-testid=policy-preview]", hasText("One attempt, 5 s each."),
			in("[data-testid=worst-case]", hasText("5 s")),
			in("[data-testid=needs-approval] li", hasText("Expose a destructive or privileged tool"))),
		in("[data-testid=pending-requests] article#request-9[data-testid=pending-request]", hasText("Lower the risk class"),
			in("[data-testid=diff] td", hasText("WRITE")),
			postForm("/approvals/9/withdraw", in("input[name=return_to][value='/tools/pets_delete']"))),
		in("[data-testid=tool-history] time[datetime='2026-11-30T09:00:00Z']", hasText("2026-11-30 09:00:00 UTC")),
		in("[data-testid=tool-history] details.change summary", hasText("1 field")),
		in("[data-testid=tool-history] a[href='/audit?subject=tool:pets_delete']"))
}

// TestToolPolicyPanelReadOnly: a viewer sees the facts, no form and no
// explicit actions; a conflict shows what differs and offers to reapply.
func TestToolPolicyPanelReadOnly(t *testing.T) {
	p := deletePanel()
	p.CanEdit, p.Pending = false, []ChangeRequestVM{{ID: 9, Kind: "Lower the risk class", CanDecide: true}}
	wantFragment(t, ToolPolicyPanel(p),
		none("form[data-testid=policy-form]"), none("a[href^='/tools/pets_delete/actions/']"),
		in("[data-testid=retry-box] [data-testid=policy-facts] dt:contains('Attempt timeout') + dd", hasText("5000 ms")),
		in("[data-testid=policy-facts] dt:contains('Idempotency key') + dd", hasText("none")),
		in("[data-testid=risk-box] [data-testid=risk-class]", hasText("DESTRUCTIVE")),
		in("[data-testid=pending-request] a[href='/approvals']", hasText("Decide on the approvals page")),
		none("form[action='/approvals/9/withdraw']"))
	c := deletePanel()
	c.Conflict = &PolicyConflictVM{CurrentVersion: 5, UpdatedBy: "bob@example.com", Diff: []DiffRowVM{{Field: "timeout_ms", Before: "3000", After: "5000"}}}
	wantFragment(t, ToolPolicyPanel(c),
		in("[data-testid=policy-conflict][role=alert]", hasText("bob@example.com, now version 5"),
			in("[data-testid=diff] th", hasText("Stored now")), in("a[href='/tools/pets_delete/policy']")),
		in("button[data-testid=save-policy]", hasText("Reapply my changes")))
}

// TestPolicyPreview is the fragment HTMX swaps in on every change: invalid
// values are an alert, warnings stand apart.
func TestPolicyPreview(t *testing.T) {
	wantFragment(t, PolicyPreview(PolicyPreviewVM{Invalid: []string{"timeout_ms: not a number " + evil}, Warnings: []string{"The deadline cuts retries short."}}),
		in("[data-testid=policy-preview] [data-testid=preview-invalid][role=alert]", hasText("not a number "+evil)),
		in("[data-testid=preview-warning]", hasText("The deadline cuts retries short.")),
		none("[data-testid=worst-case]"), none("[data-testid=needs-approval]"))
}

// TestExplicitActionPage: each kind posts to its action with CSRF, a
// required reason and the typed tool name; retry asks how retries are made
// safe, lower-risk for the new class; Cancel leads back.
func TestExplicitActionPage(t *testing.T) {
	base := ExplicitActionView{Page: page("Expose"), ToolName: "pets_delete", Method: "DELETE", Class: "DESTRUCTIVE",
		ReturnTo: "/tools/pets_delete", Reason: "needed by " + evil}
	tests := []struct {
		kind, heading string
		edit          func(*ExplicitActionView)
		checks        []check
	}{
		{"expose", "Expose pets_delete", func(m *ExplicitActionView) {
			m.Warning = "Agents could delete pets."
			m.Diff = []DiffRowVM{{Field: "exposed", Before: "no", After: "yes"}}
		}, []check{in("[data-testid=warning][role=note]", hasText("Agents could delete pets.")),
			in("form [data-testid=diff] td", hasText("yes")), none("select#new_class"), none("fieldset input[name=mode]")}},
		{"retry", "Enable retry on pets_delete", func(m *ExplicitActionView) {
			m.Mode, m.Attempts, m.Header, m.Source, m.Retry500 = "assert", "3", "Idempotency-Key", "argument", true
		}, []check{in("input[type=radio][name=mode][value=assert][checked]"), none("input[name=mode][value=key][checked]"),
			in("input#attempts", hasAttr("value", "3")), in("select#source option[value=argument][selected]"),
			in("input[name=retry_500][checked]"), none("input[name=retry_501][checked]")}},
		{"lower-risk", "Lower the risk class of pets_delete", func(m *ExplicitActionView) {
			m.Classes, m.NewClass = []string{"READ", "WRITE"}, "WRITE"
			m.Errors = []FormError{{Message: "A request for this tool is already pending.", Link: "/approvals#request-9", LinkText: "See it"}}
		}, []check{in("select#new_class option[value=WRITE][selected]"), count("select#new_class option", 2),
			in("[data-testid=form-error] a[data-testid=form-error-link][href='/approvals#request-9']", hasText("See it"))}},
	}
	for _, tc := range tests {
		t.Run(tc.kind, func(t *testing.T) {
			m := base
			m.Kind, m.Heading = tc.kind, tc.heading
			tc.edit(&m)
			wantPage(t, ExplicitActionPage(m), tc.heading, append(tc.checks,
				in("[data-testid=explicit-action] .badge.risk-DESTRUCTIVE", hasText("DESTRUCTIVE")),
				postForm("/tools/pets_delete/actions/"+tc.kind, in("input[name=return_to][value='/tools/pets_delete']"),
					in("textarea#reason[required]", hasText("needed by "+evil)),
					in("input#confirm_name[required][autocomplete=off]"),
					in("a[data-testid=cancel][href='/tools/pets_delete']")))...)
		})
	}
}
