package views

import "testing"

// pendingCall is an approve-mode call request as the Approvals page fills
// it for an approver who may decide it.
func pendingCall() CallRequestVM {
	return CallRequestVM{ID: "c0ffee", Tool: "refund", Class: "DESTRUCTIVE", Mode: "approve", Reason: "amount over 100 " + evil,
		Reasons:   []RiskReasonVM{{Code: "method.post", Class: "WRITE", Text: "POST changes data"}},
		Principal: "oidc:alice", Waited: "3 minutes", Version: 4, State: "pending", CanDecide: true,
		Arguments: []CallArgumentVM{{Name: "amount", Description: "In cents", Value: "250", Required: true},
			{Name: "card_token", Description: "The card", Masked: true}, {Name: "extra", Value: evil, Unknown: true}}}
}

// TestCallsSection: each waiting call shows the tool, its class, who it
// is for, how long it waited and its arguments against the schema (a
// masked one as masked), with the way to its decision page; the section
// polls itself.
func TestCallsSection(t *testing.T) {
	own := pendingCall()
	own.ID, own.CanDecide, own.OwnCall = "beef", false, true
	wantFragment(t, CallsSection(CallsSectionView{Calls: []CallRequestVM{pendingCall(), own}}),
		in("section#calls[hx-get='/approvals/calls'][hx-trigger='every 2s'][hx-swap=outerHTML]"),
		count("article[data-testid=call-request]", 2),
		in("article#call-c0ffee", in("h3 .badge.risk-DESTRUCTIVE", hasText("DESTRUCTIVE")),
			in("[data-testid=call-principal]", hasText("oidc:alice")), hasText("waiting 3 minutes"),
			in("[data-testid=call-reason]", hasText("amount over 100 "+evil)),
			count("[data-testid=call-argument]", 3),
			in("[data-testid=call-argument] [data-testid=argument-value]", hasText("250")),
			in("[data-testid=masked]", hasText("masked")),
			in("a[data-testid=decide-call][href='/approvals/calls/c0ffee']")),
		in("article#call-beef", in("[data-testid=own-call]"), none("[data-testid=decide-call]")))
	wantFragment(t, CallsSection(CallsSectionView{}), in("[data-testid=no-calls]"))
}

// TestCallRequestPage: the decision form for who may decide (approve or
// deny, with a comment, each to a confirmation step), the refusal for an
// approver who is not independent, and the principal's confirm wording.
func TestCallRequestPage(t *testing.T) {
	wantPage(t, CallRequestPage(CallRequestView{Page: page("Call"), Call: pendingCall()}), "Call to refund",
		in("[data-testid=call-state]", hasText("pending")),
		postForm("/approvals/calls/c0ffee/approve", in("textarea#call-comment[name=comment]"),
			in("button[data-testid=approve-call]", hasText("Approve…")),
			in("button[data-testid=deny-call][formaction='/approvals/calls/c0ffee/deny']", hasText("Deny…"))))
	refused := pendingCall()
	refused.Refusal = "You created the account of alice less than 7 days ago."
	wantPage(t, CallRequestPage(CallRequestView{Page: page("Call"), Call: refused}), "Call to refund",
		in("[data-testid=not-independent]", hasText("less than 7 days ago")), none("form[action^='/approvals/calls']"))
	confirm := pendingCall()
	confirm.Mode = "confirm"
	wantPage(t, CallRequestPage(CallRequestView{Page: page("Call"), Call: confirm}), "Confirm this call to refund?",
		in("button[data-testid=approve-call]", hasText("Confirm…")), in("button[data-testid=deny-call]", hasText("Decline…")))
	decided := pendingCall()
	decided.State, decided.DecidedBy, decided.Comment, decided.CanDecide = "denied", "bob@example.com", "no "+evil, false
	wantPage(t, CallRequestPage(CallRequestView{Page: page("Call"), Call: decided, Notice: "Denied."}), "Call to refund",
		in("[data-testid=notice]", hasText("Denied.")), in("[data-testid=call-state].status-denied", hasText("denied")),
		in("[data-testid=call-comment]", hasText("no "+evil)), none("form[action^='/approvals/calls']"))
}

// TestCallConfirmPage: the last step posts confirm=yes with the comment.
func TestCallConfirmPage(t *testing.T) {
	wantPage(t, CallConfirmPage(CallConfirmView{Page: page("Approve"), Call: pendingCall(), Approve: true, Comment: evil}),
		"Approve this call to refund?",
		postForm("/approvals/calls/c0ffee/approve", in("input[type=hidden][name=confirm][value=yes]"),
			in("textarea#confirm-call-comment", hasText(evil)), in("button[data-testid=confirm-approve-call]")))
	wantPage(t, CallConfirmPage(CallConfirmView{Page: page("Deny"), Call: pendingCall()}), "Deny this call to refund?",
		postForm("/approvals/calls/c0ffee/deny", in("button[data-testid=confirm-deny-call]")))
}
