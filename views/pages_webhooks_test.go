package views

import (
	"testing"

	"github.com/toolgate/toolgate/internal/testing/htmlcheck"
)

// TestWebhooksPage: the new secret shown with its copy button, the form's
// field errors, a row per webhook with its log link and a confirmed
// delete, imported strings escaped; no webhooks says so.
func TestWebhooksPage(t *testing.T) {
	m := WebhooksView{Page: page("Webhooks"), Formats: []string{"json", "slack"},
		Events: []Choice{{Value: "call_request", Label: "Call requests"}, {Value: "change_request", Label: "Change requests"}},
		Form:   WebhookForm{Name: evil, URL: "ftp://x", Format: "slack", Events: []string{"change_request"}},
		Errors: []FormError{{Field: "url", Message: "URL: the scheme must be https."}},
		Webhooks: []WebhookRow{{ID: "wh_1", Name: evil, URL: "https://hooks.example.com/" + evil, Format: "json",
			Events: []string{"call_request"}, Created: "2026-12-02 10:00 by ann"}},
		NewSecret: "whsec_abc", NewName: "approvers", NewFormat: "json"}
	wantPage(t, WebhooksPage(m), "Webhooks",
		in("[data-testid=new-webhook-secret]", htmlcheck.TextIs("whsec_abc")),
		in("#url-error", hasText("the scheme must be https")), in("input#url[aria-invalid]"),
		in("select#format option[value=slack][selected]"), in("input[name=events][value=change_request][checked]"),
		none("input[name=events][value=call_request][checked]"),
		count("tr[data-testid=webhook-row]", 1),
		in("tr[data-testid=webhook-row] a[href='/webhooks/wh_1']", hasText(evil)),
		in("form[action='/webhooks/wh_1/delete'] input[name=confirm][required]"))
	wantPage(t, WebhooksPage(WebhooksView{Page: page("Webhooks"), Formats: []string{"json"}}), "Webhooks",
		in("[data-testid=no-webhooks]"), none("[data-testid=webhooks-table]"), none("[data-testid=new-webhook]"))
}

// TestWebhookLogPage: one row per attempt with status, error and outcome;
// an empty log says so.
func TestWebhookLogPage(t *testing.T) {
	m := WebhookLogView{Page: page("Webhook approvers"), Name: "approvers", URL: "https://h.example.com", Format: "json", Limit: 100,
		Attempts: []AttemptRow{{At: "10:00:02", Event: "change_request 7", Attempt: 2, Status: "204", Outcome: "sent", DurationMS: 12},
			{At: "10:00:00", Event: "change_request 7", Attempt: 1, Status: "no answer", Error: "connection refused", Outcome: "retry"}}}
	wantPage(t, WebhookLogPage(m), "Webhook approvers",
		count("tr[data-testid=attempt-row]", 2),
		in("tr[data-testid=attempt-row]:nth-child(2) [data-testid=attempt-status]", hasText("no answer"), hasText("connection refused")),
		in("tr[data-testid=attempt-row]:nth-child(1) [data-testid=attempt-outcome]", htmlcheck.TextIs("sent")))
	wantPage(t, WebhookLogPage(WebhookLogView{Page: page("Webhook x"), Name: "x", Limit: 100}), "Webhook x", in("[data-testid=no-attempts]"))
}
