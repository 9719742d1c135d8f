package webhook

import (
	"context"
	"crypto/rand"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/toolgate/toolgate/internal/keyring"
	"github.com/toolgate/toolgate/internal/notify"
	"github.com/toolgate/toolgate/internal/store"
	"github.com/toolgate/toolgate/internal/store/storetest"
)

// received is one request a loopback receiver got.
type received struct {
	header http.Header
	body   []byte
}

// receiver answers with statuses in turn (the last one repeats).
func receiver(t *testing.T, statuses ...int) (*httptest.Server, func() []received) {
	var mu sync.Mutex
	var got []received
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		mu.Lock()
		got = append(got, received{r.Header.Clone(), body})
		n := len(got)
		mu.Unlock()
		w.WriteHeader(statuses[min(n, len(statuses))-1])
	}))
	t.Cleanup(srv.Close)
	return srv, func() []received { mu.Lock(); defer mu.Unlock(); return append([]received(nil), got...) }
}

func testKEK(t *testing.T) keyring.KEK {
	var b [32]byte
	_, _ = rand.Read(b[:])
	k, err := keyring.NewKEK(b[:])
	if err != nil {
		t.Fatal(err)
	}
	return k
}

func startDispatcher(t *testing.T, db *store.DB, kek keyring.KEK) *Dispatcher {
	d := NewDispatcher(Config{Store: db, Logger: slog.New(slog.DiscardHandler), Open: kek.Open, BaseBackoff: 20 * time.Millisecond, Poll: 20 * time.Millisecond})
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { defer close(done); d.Run(ctx) }()
	t.Cleanup(func() { cancel(); <-done })
	return d
}

func waitFor(t *testing.T, what string, ok func() bool) {
	t.Helper()
	deadline := time.Now().Add(15 * time.Second)
	for !ok() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

var testEvent = notify.Event{Kind: notify.ChangeRequest, ID: "42", Tool: "delete_order", RiskClass: "DESTRUCTIVE",
	Summary: "Expose a destructive tool", Who: "ann@example.com", URL: "http://127.0.0.1:8080/approvals#request-42"}

func TestSignedDeliveryRetriedAfter500(t *testing.T) {
	db, kek := storetest.MustOpen(t), testKEK(t)
	srv, got := receiver(t, http.StatusInternalServerError, http.StatusNoContent)
	ctx := context.Background()
	w, secret, err := Create(ctx, db, kek.Seal, "admin@example.com", New{Name: "approvers", URL: srv.URL,
		Format: FormatJSON, Events: []string{notify.ChangeRequest}})
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(w.SecretSealed, strings.TrimPrefix(secret, SecretPrefix)) {
		t.Fatal("the secret is stored in the clear")
	}
	d := startDispatcher(t, db, kek)
	d.Notify(ctx, testEvent)
	d.Notify(ctx, notify.Event{Kind: notify.CallRequest, ID: "cr_1"}) // not subscribed
	waitFor(t, "two attempts", func() bool { return len(got()) >= 2 })
	reqs := got()
	for i, r := range reqs {
		// Exactly what README "Webhooks" tells a receiver to do.
		if err := Verify(secret, r.header.Get(HeaderID), r.header.Get(HeaderTimestamp), r.header.Get(HeaderSignature), r.body, time.Now()); err != nil {
			t.Errorf("attempt %d: signature does not verify: %v", i+1, err)
		}
		if err := Verify(NewSecret(), r.header.Get(HeaderID), r.header.Get(HeaderTimestamp), r.header.Get(HeaderSignature), r.body, time.Now()); err == nil {
			t.Errorf("attempt %d verifies under another secret", i+1)
		}
		var p Payload
		if err := json.Unmarshal(r.body, &p); err != nil || p.Type != "toolgate.change_request.created" || p.Data != testEvent || p.ID != r.header.Get(HeaderID) {
			t.Errorf("attempt %d: body %s (%v)", i+1, r.body, err)
		}
	}
	if reqs[0].header.Get(HeaderID) != reqs[1].header.Get(HeaderID) {
		t.Error("a retry has another webhook-id: receivers cannot deduplicate it")
	}
	var log []store.Attempt
	waitFor(t, "the log", func() bool { log, _ = db.WebhookAttempts(ctx, w.ID, 10); return len(log) == 2 })
	if log[0].Outcome != store.DeliverySent || log[0].Status != 204 || log[1].Outcome != store.AttemptRetry || log[1].Status != 500 {
		t.Errorf("delivery log = %+v", log)
	}
	time.Sleep(100 * time.Millisecond)
	if n := len(got()); n != 2 {
		t.Errorf("%d requests, want 2 (the call request is not subscribed, and a sent delivery is not sent again)", n)
	}
}

func TestSlackBodyAndPermanentFailure(t *testing.T) {
	db, kek := storetest.MustOpen(t), testKEK(t)
	srv, got := receiver(t, http.StatusNotFound)
	ctx := context.Background()
	w, _, err := Create(ctx, db, kek.Seal, "admin@example.com", New{Name: "slack", URL: srv.URL, Format: FormatSlack,
		Events: []string{notify.ChangeRequest, notify.CallRequest}})
	if err != nil {
		t.Fatal(err)
	}
	d := startDispatcher(t, db, kek)
	e := testEvent
	e.Tool = "<b>&x"
	d.Notify(ctx, e)
	var log []store.Attempt
	waitFor(t, "the attempt", func() bool { log, _ = db.WebhookAttempts(ctx, w.ID, 10); return len(log) == 1 })
	r := got()[0]
	var body map[string]string
	if err := json.Unmarshal(r.body, &body); err != nil {
		t.Fatal(err)
	}
	if want := "*&lt;b&gt;&amp;x* (DESTRUCTIVE)"; !strings.Contains(body["text"], want) || !strings.Contains(body["text"], "<"+testEvent.URL+"|Open in toolgate>") {
		t.Errorf("slack text %q: want the escaped tool %q and the link", body["text"], want)
	}
	if r.header.Get(HeaderSignature) != "" {
		t.Error("a Slack body carries a signature header")
	}
	if log[0].Outcome != store.DeliveryFailed {
		t.Errorf("a 404 is %q, want failed without retry", log[0].Outcome)
	}
}

func TestCheckRefusesBadInputAndStoresNothing(t *testing.T) {
	for name, n := range map[string]New{
		"ftp scheme":        {Name: "a", URL: "ftp://example.com/x", Format: FormatJSON, Events: Events},
		"plain http remote": {Name: "a", URL: "http://hooks.example.com/x", Format: FormatJSON, Events: Events},
		"user info":         {Name: "a", URL: "https://u:p@example.com/x", Format: FormatJSON, Events: Events},
		"relative":          {Name: "a", URL: "/x", Format: FormatJSON, Events: Events},
		"no events":         {Name: "a", URL: "https://example.com/x", Format: FormatJSON},
		"unknown event":     {Name: "a", URL: "https://example.com/x", Format: FormatJSON, Events: []string{"x"}},
		"unknown format":    {Name: "a", URL: "https://example.com/x", Format: "xml", Events: Events},
		"bad name":          {Name: "", URL: "https://example.com/x", Format: FormatJSON, Events: Events},
	} {
		if errs := n.Check(false); len(errs) != 1 {
			t.Errorf("%s: Check = %v, want one refusal", name, errs)
		}
	}
	ok := New{Name: "ok", URL: "http://127.0.0.1:9/x", Format: FormatJSON, Events: Events}
	if errs := ok.Check(false); len(errs) != 0 {
		t.Errorf("loopback http refused: %v", errs)
	}
	remote := New{Name: "ok", URL: "http://hooks.example.com/x", Format: FormatJSON, Events: Events}
	if errs := remote.Check(true); len(errs) != 0 {
		t.Errorf("remote http with allowInsecure refused: %v", errs)
	}
}

func TestVerifyRefusesOldTimestamps(t *testing.T) {
	secret, body := NewSecret(), []byte(`{}`)
	old := time.Now().Add(-2 * Tolerance)
	sig, _ := Sign(secret, "whd_1", old, body)
	if err := Verify(secret, "whd_1", strings.TrimSpace(json.Number(itoa(old.Unix())).String()), sig, body, time.Now()); err == nil {
		t.Error("a delivery older than the tolerance verifies (replay)")
	}
}

func itoa(n int64) string { b, _ := json.Marshal(n); return string(b) }

func TestBackoffDoublesAndCaps(t *testing.T) {
	base := 5 * time.Second
	for n, want := range map[int]time.Duration{1: 5 * time.Second, 2: 10 * time.Second, 3: 20 * time.Second, 40: time.Hour} {
		if got := Backoff(base, n, 0.999999); got < want-10*time.Millisecond || got > want {
			t.Errorf("Backoff(attempt %d, top) = %s, want about %s", n, got, want)
		}
		if got := Backoff(base, n, 0); got != want/2 {
			t.Errorf("Backoff(attempt %d, bottom) = %s, want %s", n, got, want/2)
		}
	}
}

// TestPassReadsNoWebhookRowAndHonoursADeletion: a pass sends a batch of
// deliveries to two webhooks without a read transaction per delivery
// (the claim brings each webhook's URL, format and sealed secret, and a
// secret is opened once per webhook of the batch), and a webhook deleted
// between passes receives nothing more, its retries included.
func TestPassReadsNoWebhookRowAndHonoursADeletion(t *testing.T) {
	db, kek := storetest.MustOpen(t), testKEK(t)
	ctx := context.Background()
	now := time.Now()
	db.Now = func() time.Time { return now }
	failing, toFailing := receiver(t, http.StatusServiceUnavailable)
	ok, toOK := receiver(t, http.StatusNoContent)
	var secrets []string
	var gone *store.Webhook
	for _, r := range []struct{ name, url string }{{"failing", failing.URL}, {"ok", ok.URL}} {
		w, secret, err := Create(ctx, db, kek.Seal, "admin@example.com", New{Name: r.name, URL: r.url,
			Format: FormatJSON, Events: []string{notify.ChangeRequest}})
		if err != nil {
			t.Fatal(err)
		}
		if gone == nil {
			gone = w
		}
		secrets = append(secrets, secret)
	}
	opens := 0
	open := func(sealed, aad string) ([]byte, error) { opens++; return kek.Open(sealed, aad) }
	d := NewDispatcher(Config{Store: db, Logger: slog.New(slog.DiscardHandler), Open: open, BaseBackoff: time.Second})
	const events = 3
	for i := range events {
		e := testEvent
		e.ID = itoa(int64(i))
		d.Notify(ctx, e)
	}

	before := db.ReadTransactions()
	d.sendDue(ctx)
	if n := db.ReadTransactions() - before; n != 0 {
		t.Errorf("a pass over %d deliveries began %d read transactions, want 0 (the claim reads the webhooks)", 2*events, n)
	}
	if opens != 2 {
		t.Errorf("%d secrets opened for one batch to two webhooks, want 2", opens)
	}
	if len(toFailing()) != events || len(toOK()) != events {
		t.Fatalf("first pass: %d and %d requests, want %d each", len(toFailing()), len(toOK()), events)
	}
	for i, got := range [][]received{toFailing(), toOK()} {
		for _, r := range got {
			if err := Verify(secrets[i], r.header.Get(HeaderID), r.header.Get(HeaderTimestamp), r.header.Get(HeaderSignature), r.body, now); err != nil {
				t.Errorf("webhook %d: a delivery signed with another webhook's secret: %v", i, err)
			}
		}
	}

	// The failing webhook's deliveries are due again; it is deleted first.
	if err := db.DeleteWebhook(ctx, "admin@example.com", gone.ID); err != nil {
		t.Fatal(err)
	}
	now = now.Add(time.Minute)
	d.sendDue(ctx)
	if n := len(toFailing()); n != events {
		t.Errorf("the deleted webhook received %d requests, want the %d it had before", n, events)
	}
	if n := len(toOK()); n != events {
		t.Errorf("the other webhook received %d requests, want %d (sent ones are not sent again)", n, events)
	}
}

// A batch whose attempts are slow stops before its lease can run out:
// another console may claim a delivery once the lease has ended, so one
// begun after that would be sent twice.
func TestBatchStopsBeforeItsLeaseRunsOut(t *testing.T) {
	db, kek := storetest.MustOpen(t), testKEK(t)
	ctx := context.Background()
	var mu sync.Mutex
	now := time.Now()
	clock := func() time.Time { mu.Lock(); defer mu.Unlock(); return now }
	advance := func(d time.Duration) { mu.Lock(); now = now.Add(d); mu.Unlock() }
	db.Now = clock
	var got int
	// Each request takes half the lease on the console's clock.
	slow := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		got++
		mu.Unlock()
		advance(lease / 2)
		w.WriteHeader(http.StatusNoContent)
	}))
	t.Cleanup(slow.Close)
	if _, _, err := Create(ctx, db, kek.Seal, "admin@example.com", New{Name: "slow", URL: slow.URL,
		Format: FormatJSON, Events: []string{notify.ChangeRequest}}); err != nil {
		t.Fatal(err)
	}
	d := NewDispatcher(Config{Store: db, Logger: slog.New(slog.DiscardHandler), Open: kek.Open, BaseBackoff: time.Second})
	for i := range 3 {
		e := testEvent
		e.ID = itoa(int64(i))
		d.Notify(ctx, e)
	}
	sent := func() int { mu.Lock(); defer mu.Unlock(); return got }

	d.sendDue(ctx)
	if n := sent(); n != 2 {
		t.Fatalf("one pass sent %d of 3 deliveries taking half the lease each, want 2 (the third would start %s after the claim, with a %s lease and %s attempts)",
			n, lease, lease, attemptTimeout)
	}
	d.sendDue(ctx)
	if n := sent(); n != 2 {
		t.Fatalf("a pass while the lease still holds sent %d, want the 2 of before", n)
	}
	advance(time.Second)
	d.sendDue(ctx)
	if n := sent(); n != 3 {
		t.Fatalf("after the lease ended %d of 3 were sent, want 3", n)
	}
}
