package web

import (
	"context"
	"github.com/PuerkitoBio/goquery"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/toolgate/toolgate/internal/notify"
	"github.com/toolgate/toolgate/internal/testing/htmlcheck"
	"github.com/toolgate/toolgate/internal/webhook"
)

func webhookForm(name, u string, events ...string) url.Values {
	return url.Values{"name": {name}, "url": {u}, "format": {webhook.FormatJSON}, "events": events}
}

func TestWebhooksAreAdminsOnly(t *testing.T) {
	a := newTestApp(t, true)
	for _, role := range []string{"viewer", "approver"} {
		wantStatus(t, a.do(request{method: "GET", path: "/webhooks", cookie: a.sessionCookie(role)}), 403)
		wantStatus(t, a.do(request{method: "POST", path: "/webhooks", cookie: a.sessionCookie(role), csrf: true,
			form: webhookForm("x", "https://example.com/h", notify.ChangeRequest)}), 403)
	}
	wantStatus(t, a.do(request{method: "POST", path: "/webhooks", cookie: a.sessionCookie("admin"),
		form: webhookForm("x", "https://example.com/h", notify.ChangeRequest)}), 403) // no CSRF token
	if hooks, _ := a.db.Webhooks(context.Background()); len(hooks) != 0 {
		t.Fatalf("a refused request stored %d webhooks", len(hooks))
	}
}

func TestWebhookBadInputStoresNothing(t *testing.T) {
	a := newTestApp(t, true)
	admin := a.sessionCookie("admin")
	for name, tc := range map[string]struct {
		form  url.Values
		field string
	}{
		"ftp":       {webhookForm("x", "ftp://example.com/h", notify.ChangeRequest), "#url-error"},
		"http":      {webhookForm("x", "http://hooks.example.com/h", notify.ChangeRequest), "#url-error"},
		"no events": {webhookForm("x", "https://example.com/h"), "#events-error"},
		"bad name":  {webhookForm("", "https://example.com/h", notify.CallRequest), "#name-error"},
	} {
		rec := a.do(request{method: "POST", path: "/webhooks", cookie: admin, csrf: true, form: tc.form})
		wantStatus(t, rec, 422)
		htmlcheck.Run(t, rec.Body.String(), htmlcheck.Count(tc.field, 1), htmlcheck.None("[data-testid=new-webhook]"))
		if hooks, _ := a.db.Webhooks(context.Background()); len(hooks) != 0 {
			t.Fatalf("%s: stored a webhook", name)
		}
	}
}

// TestWebhookDeliversAChangeRequest: a webhook added on the page receives
// a signed delivery for a change request made in the console, retried
// after a 500, and the page's delivery log shows both attempts. The
// secret is shown once, on creation.
func TestWebhookDeliversAChangeRequest(t *testing.T) {
	var mu sync.Mutex
	var got []*http.Request
	var bodies []string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		mu.Lock()
		defer mu.Unlock()
		got, bodies = append(got, r), append(bodies, string(b))
		if len(got) == 1 {
			w.WriteHeader(500)
		}
	}))
	defer srv.Close()
	kek, err := ephemeralKEK()
	if err != nil {
		t.Fatal(err)
	}
	var disp *webhook.Dispatcher
	a := newPublishApp(t, func(d *Deps) {
		disp = webhook.NewDispatcher(webhook.Config{Store: d.Store, Logger: slog.New(slog.DiscardHandler), Open: kek.Open,
			BaseBackoff: 10 * time.Millisecond, Poll: 20 * time.Millisecond})
		d.Notifier, d.Webhooks = disp, WebhookDeps{Seal: kek.Seal}
	})
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { defer close(done); disp.Run(ctx) }()
	defer func() { cancel(); <-done }()

	admin := a.sessionCookie("admin")
	rec := a.do(request{method: "POST", path: "/webhooks", cookie: admin, csrf: true, form: webhookForm("approvers", srv.URL, notify.ChangeRequest)})
	wantStatus(t, rec, 200)
	if rec.Header().Get("Cache-Control") != "no-store" {
		t.Error("the page with the secret may be cached")
	}
	secret := selectedText(t, rec.Body.String(), "[data-testid=new-webhook-secret]")
	if !strings.HasPrefix(secret, webhook.SecretPrefix) {
		t.Fatalf("secret %q", secret)
	}
	page := a.do(request{method: "GET", path: "/webhooks", cookie: admin}).Body.String()
	htmlcheck.Run(t, page, htmlcheck.None("[data-testid=new-webhook-secret]"), htmlcheck.Count("[data-testid=webhook-row]", 1))
	if strings.Contains(page, strings.TrimPrefix(secret, webhook.SecretPrefix)) {
		t.Error("the secret is shown again")
	}

	wantStatus(t, a.upload("/sources", map[string]string{"name": "pets"}, uploadFile{"pets.yaml", petsDoc("")}), 303)
	wantStatus(t, a.requestAction("deletePet", "expose", url.Values{}).ResponseRecorder, 303)
	deadline := time.Now().Add(15 * time.Second)
	for {
		mu.Lock()
		n := len(got)
		mu.Unlock()
		if n >= 2 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("%d deliveries, want 2", n)
		}
		time.Sleep(10 * time.Millisecond)
	}
	mu.Lock()
	r, body := got[1], bodies[1]
	mu.Unlock()
	if err := webhook.Verify(secret, r.Header.Get("webhook-id"), r.Header.Get("webhook-timestamp"), r.Header.Get("webhook-signature"), []byte(body), time.Now()); err != nil {
		t.Errorf("the retried delivery does not verify with the secret shown: %v", err)
	}
	if !strings.Contains(body, `"tool":"deletePet"`) || !strings.Contains(body, "/approvals#request-") {
		t.Errorf("delivery body %s: want the tool and the link to the request", body)
	}
	hooks, _ := a.db.Webhooks(context.Background())
	var log string
	for i := 0; i < 200; i++ {
		log = a.do(request{method: "GET", path: "/webhooks/" + hooks[0].ID, cookie: admin}).Body.String()
		if strings.Count(log, `data-testid="attempt-row"`) == 2 {
			break
		}
		time.Sleep(20 * time.Millisecond)
	}
	htmlcheck.Run(t, log, htmlcheck.Count("[data-testid=attempt-row]", 2),
		htmlcheck.In("[data-testid=attempt-row]:nth-child(1) [data-testid=attempt-outcome]", htmlcheck.TextIs("sent")),
		htmlcheck.In("[data-testid=attempt-row]:nth-child(2) [data-testid=attempt-status]", htmlcheck.HasText("500")),
		htmlcheck.In("[data-testid=attempt-row]:nth-child(2) [data-testid=attempt-outcome]", htmlcheck.TextIs("retry")))

	wantStatus(t, a.do(request{method: "POST", path: "/webhooks/" + hooks[0].ID + "/delete", cookie: admin, csrf: true}), 400)
	wantStatus(t, a.do(request{method: "POST", path: "/webhooks/" + hooks[0].ID + "/delete", cookie: admin, csrf: true,
		form: url.Values{"confirm": {"yes"}}}), 303)
	if hooks, _ := a.db.Webhooks(context.Background()); len(hooks) != 0 {
		t.Error("the webhook was not deleted")
	}
}

// selectedText is the text of the one element sel matches.
func selectedText(t *testing.T, body, sel string) string {
	t.Helper()
	doc, err := goquery.NewDocumentFromReader(strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	found := doc.Find(sel)
	if found.Length() != 1 {
		t.Fatalf("%d elements match %q, want 1", found.Length(), sel)
	}
	return strings.TrimSpace(found.Text())
}
