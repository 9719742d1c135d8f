package views

import "testing"

// pendingRequest is a pending expose request as web's approvals page
// fills it for an approver who did not ask for it.
func pendingRequest() ChangeRequestVM {
	return ChangeRequestVM{ID: 9, ToolName: "pets_delete", Class: "DESTRUCTIVE",
		Reasons: []RiskReasonVM{{Code: "method.delete", Class: "DESTRUCTIVE", Text: "DELETE removes data"}},
		Kind:    "Expose a destructive or privileged tool", Reason: "cleanup job " + evil, Requester: "bob@example.com", Age: "3 hours",
		Diff:   []DiffRowVM{{Field: "exposed", Before: "no", After: "yes"}},
		Status: "pending", CanDecide: true, Digest: "sha256:0123456789abcdef0123"}
}

// TestApprovalsPage: each pending request shows what it changes and why,
// and the approver's form approves, or rejects with a comment, with CSRF;
// a requester may only withdraw theirs; an approver who is not independent
// may only reject; the history lists outcomes.
func TestApprovalsPage(t *testing.T) {
	decide := pendingRequest()
	own := pendingRequest()
	own.ID, own.CanDecide, own.CanWithdraw = 10, false, true
	notIndep := pendingRequest()
	notIndep.ID, notIndep.NotIndependent = 11, "You created the account of bob@example.com less than 7 days ago."
	failed := pendingRequest()
	failed.ID, failed.Error, failed.Comment, failed.Stale = 12, "A rejection needs a comment.", evil, "its definition changed."
	m := ApprovalsView{Page: page("Approvals"), Pending: []ChangeRequestVM{decide, own, notIndep, failed},
		History: []ChangeRequestVM{{ID: 3, ToolName: "pets_list", Kind: "Lower the risk class", Requester: "bob@example.com",
			Status: "void", Decider: "ada@example.com", DecidedAt: "2026-11-30", VoidReason: "the tool changed"}},
		Notice: "Request approved.", Errors: []FormError{{Message: "Request 8 was decided meanwhile."}}}
	wantPage(t, ApprovalsPage(m), "Approvals",
		in("[data-testid=notice]", hasText("Request approved.")),
		in("[data-testid=form-error]", hasText("Request 8 was decided meanwhile.")),
		count("article[data-testid=approval-request]", 4),
		in("article#request-9", in("h3 a[href='/tools/pets_delete/policy']", hasText("pets_delete")),
			in("h3 .badge.risk-DESTRUCTIVE", hasText("DESTRUCTIVE")),
			hasText("asked by bob@example.com · 3 hours ago"), hasText("Reason: cleanup job "+evil),
			in("[data-testid=diff] td", hasText("yes")),
			in("[data-testid=pinned-digest] code", hasText("sha256:0123456789ab…"), hasAttr("title", "sha256:0123456789abcdef0123")),
			postForm("/approvals/9/approve", in("textarea#comment-9[name=comment]"),
				in("button[data-testid=approve]", hasText("Approve…")),
				in("button[data-testid=reject][formaction='/approvals/9/reject']"))),
		in("article#request-10", in("[data-testid=own-request]"), postForm("/approvals/10/withdraw"),
			none("form[action='/approvals/10/approve']")),
		in("article#request-11", in("[data-testid=not-independent]", hasText("less than 7 days ago")),
			postForm("/approvals/11/approve", none("[data-testid=approve]"), in("[data-testid=reject]"))),
		in("article#request-12", in("[data-testid=stale-request]", hasText("its definition changed.")),
			in("textarea#comment-12[aria-invalid=true][aria-describedby=comment-error-12]", hasText(evil)),
			in("#comment-error-12[role=alert]", hasText("A rejection needs a comment."))),
		in("[data-testid=decided] tbody tr", hasText("pets_list"), in("[data-testid=decided-outcome] .status-void", hasText("void")),
			hasText("by ada@example.com"), hasText("the tool changed")))
	empty := ApprovalsView{Page: page("Approvals")}
	wantPage(t, ApprovalsPage(empty), "Approvals", in("[data-testid=no-pending]"), none("article"),
		none("[data-testid=decided]"), in("section", hasText("No decisions yet.")))
}

// TestApproveConfirmPage: the confirmation shows the exact diff and what a
// runtime will do, then a plain POST form that confirms with CSRF.
func TestApproveConfirmPage(t *testing.T) {
	r := pendingRequest()
	r.Stale = "its class changed."
	m := ApproveConfirmView{Page: page("Approve"), Request: r,
		Effective: []string{"Exposed to agents.", "One attempt, 5 s each."}, WorstNow: "0 s", WorstAfter: "5 s",
		Warnings: []string{"agents can delete " + evil}, Comment: "ok"}
	wantPage(t, ApproveConfirmPage(m), "Approve: Expose a destructive or privileged tool on pets_delete?",
		in("[data-testid=approve-confirm] .badge.risk-DESTRUCTIVE"),
		in("[data-testid=diff] td", hasText("yes")),
		in("[data-testid=stale-request]", hasText("its class changed.")),
		in("ul[data-testid=effective-policy] li", hasText("One attempt, 5 s each.")),
		in("p:has([data-testid=worst-case])", hasText("Worst case: 5 s (now 0 s)")),
		in("[data-testid=approve-warning]", hasText("Warning: agents can delete "+evil+".")),
		postForm("/approvals/9/approve", in("input[type=hidden][name=confirm][value=yes]"),
			in("textarea#confirm-comment", hasText("ok")), in("button[data-testid=confirm-approve]"),
			in("a[href='/approvals#request-9']", hasText("Cancel"))))
	r.Stale = ""
	class := ApproveConfirmView{Page: page("Approve"), Request: r}
	wantPage(t, ApproveConfirmPage(class), "Approve:", none("[data-testid=effective-policy]"), none("[data-testid=stale-request]"),
		postForm("/approvals/9/approve"))
}
