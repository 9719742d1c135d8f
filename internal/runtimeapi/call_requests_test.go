package runtimeapi

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/json"
	"log/slog"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/toolgate/toolgate/internal/approval"
	"github.com/toolgate/toolgate/internal/auth"
	"github.com/toolgate/toolgate/internal/bundle"
	"github.com/toolgate/toolgate/internal/callgate"
	"github.com/toolgate/toolgate/internal/callrecord"
	"github.com/toolgate/toolgate/internal/keyring"
	"github.com/toolgate/toolgate/internal/notify"
	"github.com/toolgate/toolgate/internal/policy"
	"github.com/toolgate/toolgate/internal/risk"
	"github.com/toolgate/toolgate/internal/store"
	"github.com/toolgate/toolgate/internal/store/storetest"
)

const testBaseURL = "https://console.example.com"

// callApp is the runtime API with per-call tools published: refund
// (approve), note (confirm) and list_orders (no per-call mode).
type callApp struct {
	*testApp
	tb      testing.TB
	version int64
	digests map[string]string
	auth    map[string]string
	events  *recordingNotifier
}

type recordingNotifier struct{ events chan notify.Event }

// Notify keeps the first events; it never blocks (as notify.Notifier
// must not).
func (r *recordingNotifier) Notify(_ context.Context, e notify.Event) {
	select {
	case r.events <- e:
	default:
	}
}

func newCallApp(t testing.TB, db *store.DB, limits approval.Limits) *callApp {
	t.Helper()
	ctx := context.Background()
	a := &testApp{db: db, log: &bytes.Buffer{}}
	a.t, _ = t.(*testing.T)
	a.keys = &keyring.Files{Dir: bundle.KeyDir{Path: filepath.Join(t.TempDir(), "keys")}, DB: db}
	if _, _, err := a.keys.EnsureActive(ctx, "system"); err != nil {
		t.Fatal(err)
	}
	events := &recordingNotifier{events: make(chan notify.Event, 100)}
	srv, err := New(ctx, Config{Store: db, Logger: slog.New(slog.NewTextHandler(a.log, nil)), Keys: a.keys,
		PollInterval: time.Hour, BaseURL: testBaseURL, CallLimits: limits, Notifier: events})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { srv.Close(context.Background()) })
	a.srv = srv
	for name, mode := range map[string]string{"refund": policy.PerCallApprove, "note": policy.PerCallConfirm, "list_orders": ""} {
		p := policy.NewToolPolicy("POST", risk.Write, policy.BuiltinDefaults())
		p.PerCall = mode
		storetest.MustAddTool(t, db, storetest.FixtureTool{Source: "orders", Origin: "https://api.example.com", Name: name,
			Method: "POST", Path: "/" + name, Class: risk.Write, Exposed: true, Policy: &p})
	}
	rec := storetest.Publish(t, db, a.keys, "per-call tools")
	b, err := rec.Bundle()
	if err != nil {
		t.Fatal(err)
	}
	c := &callApp{testApp: a, tb: t, version: rec.Version, digests: map[string]string{}, events: events}
	for _, tool := range b.Tools {
		c.digests[tool.Name] = tool.Digest
	}
	c.auth = bearer(storetest.RuntimeToken(t, db, "edge"))
	return c
}

// call is a request for tool with arguments {"n": n, "password": masked}.
func (c *callApp) call(tool, mode, subject string, n int) callgate.Request {
	args := map[string]any{"n": n, "password": callgate.Masked}
	digest, err := callrecord.ArgumentsDigest(map[string]any{"n": n, "password": "hunter2"})
	if err != nil {
		c.tb.Fatal(err)
	}
	return callgate.Request{Schema: callgate.RequestSchema, Tool: tool, DefinitionDigest: c.digests[tool],
		ArgumentsDigest: digest, Arguments: args, Mode: mode, BundleVersion: c.version, Instance: "rt-1",
		Principal: callgate.Principal{Principal: callrecord.Principal{Kind: "oidc", Subject: subject, ClientID: "agent"}}}
}

func (c *callApp) send(method, path string, body any) *httptest.ResponseRecorder {
	c.tb.Helper()
	var raw []byte
	switch b := body.(type) {
	case nil:
	case string:
		raw = []byte(b)
	default:
		var err error
		if raw, err = json.Marshal(b); err != nil {
			c.tb.Fatal(err)
		}
	}
	req := httptest.NewRequest(method, path, bytes.NewReader(raw))
	for k, v := range c.auth {
		req.Header.Set(k, v)
	}
	rec := httptest.NewRecorder()
	c.srv.ServeHTTP(rec, req)
	return rec
}

func (c *callApp) status(rec *httptest.ResponseRecorder, want int) callgate.Status {
	c.tb.Helper()
	if rec.Code != want {
		c.tb.Fatalf("status %d, want %d: %s", rec.Code, want, rec.Body.String())
	}
	var st callgate.Status
	if err := json.Unmarshal(rec.Body.Bytes(), &st); err != nil {
		c.tb.Fatalf("status body %q: %v", rec.Body.String(), err)
	}
	return st
}

func mustApprover(t testing.TB, db *store.DB, email string) *store.User {
	t.Helper()
	u, err := db.CreateUser(context.Background(), "test", store.NewUser{Email: email, PasswordHash: "h", Roles: []auth.Role{auth.RoleApprover}})
	if err != nil {
		t.Fatal(err)
	}
	return u
}

func (c *callApp) grantKey() store.GrantKey {
	k, err := c.keys.Active(context.Background())
	if err != nil {
		c.tb.Fatal(err)
	}
	return store.GrantKey{Key: k, Lifetime: 15 * time.Minute}
}

// TestCallRequestFlow: filed (201, approvers notified), filed again (200,
// the same request), a long poll woken by the approval with the grant,
// which verifies, binds the call and is spent once (204, then 409).
func TestCallRequestFlow(t *testing.T) {
	c := newCallApp(t, storetest.MustOpen(t), approval.Limits{})
	bob := mustApprover(t, c.db, "bob@example.com")
	in := c.call("refund", policy.PerCallApprove, "alice", 1)
	st := c.status(c.send("POST", callgate.PathRequests, in), 201)
	if st.State != callgate.Pending || st.URL != testBaseURL+"/approvals/calls/"+st.ID || st.Grant != "" {
		t.Fatalf("filed: %+v", st)
	}
	select {
	case e := <-c.events.events:
		if e.Kind != notify.CallRequest || e.ID != st.ID || e.URL != st.URL || e.RiskClass != "WRITE" || e.Tool != "refund" {
			t.Fatalf("event %+v", e)
		}
	default:
		t.Fatal("approvers were not notified of the new request")
	}
	if again := c.status(c.send("POST", callgate.PathRequests, in), 200); again.ID != st.ID {
		t.Fatalf("filed again: %s, want %s", again.ID, st.ID)
	}
	if len(c.events.events) != 0 {
		t.Error("filing the same call again notified again")
	}
	if now := c.status(c.send("GET", callgate.PathRequests+"/"+st.ID, nil), 200); now.State != callgate.Pending {
		t.Fatalf("status without wait: %+v", now)
	}
	answered := make(chan *httptest.ResponseRecorder)
	start := time.Now()
	go func() { answered <- c.send("GET", callgate.PathRequests+"/"+st.ID+"?wait=20", nil) }()
	time.Sleep(100 * time.Millisecond)
	if _, err := c.db.DecideCallRequest(context.Background(), store.CallDecision{UserID: bob.ID, ID: st.ID, Approve: true,
		Comment: "ok once", Grant: c.grantKey()}); err != nil {
		t.Fatal(err)
	}
	got := c.status(<-answered, 200)
	if waited := time.Since(start); waited > 5*time.Second {
		t.Fatalf("the long poll answered after %s, not when the decision was made", waited)
	}
	if got.State != callgate.Approved || got.Grant == "" || got.DecidedBy != bob.Email || got.Comment != "ok once" {
		t.Fatalf("after approval: %+v", got)
	}
	g, err := bundle.VerifyGrant([]byte(got.Grant), c.keySet(), time.Now())
	if err != nil {
		t.Fatal(err)
	}
	if err := g.Binds(bundle.GrantedCall{Principal: bundle.GrantPrincipal{Kind: "oidc", Subject: "alice", ClientID: "agent"},
		Tool: "refund", DefinitionDigest: in.DefinitionDigest, ArgumentsDigest: in.ArgumentsDigest, BundleVersion: c.version}); err != nil {
		t.Fatal(err)
	}
	consume := callgate.Consume{Grant: got.Grant, Instance: "rt-1"}
	wantStatus(t, c.send("POST", callgate.PathConsume, consume), 204)
	wantStatus(t, c.send("POST", callgate.PathConsume, consume), 409)
	if spent := c.status(c.send("GET", callgate.PathRequests+"/"+st.ID, nil), 200); spent.State != callgate.Consumed || spent.Grant != "" {
		t.Fatalf("after consume: %+v", spent)
	}
}

// TestCallRequestRefusals: every body the contract refuses is 400 (413
// when too large) with the reason, and nothing is stored.
func TestCallRequestRefusals(t *testing.T) {
	c := newCallApp(t, storetest.MustOpen(t), approval.Limits{})
	with := func(f func(r *callgate.Request)) callgate.Request {
		r := c.call("refund", policy.PerCallApprove, "alice", 1)
		f(&r)
		return r
	}
	for _, tc := range []struct {
		name string
		body any
		want int
		says string
	}{
		{"not JSON", "{", 400, "not a JSON object"},
		{"unknown member", `{"schema":"toolgate.call-request/v1","extra":1}`, 400, "unknown field"},
		{"another schema", with(func(r *callgate.Request) { r.Schema = "toolgate.call-request/v2" }), 400, "schema"},
		{"a tool the bundle lacks", with(func(r *callgate.Request) { r.Tool = "drop_tables" }), 400, "has no tool drop_tables"},
		{"another definition", with(func(r *callgate.Request) { r.DefinitionDigest = c.digests["note"] }), 400, "another definition digest"},
		{"a version never published", with(func(r *callgate.Request) { r.BundleVersion = 99 }), 400, "no bundle version 99"},
		{"a tool that asks nobody", with(func(r *callgate.Request) { r.Tool, r.DefinitionDigest = "list_orders", c.digests["list_orders"] }), 400, "neither the tool's per-call mode"},
		{"less than the tool asks", with(func(r *callgate.Request) { r.Mode = policy.PerCallConfirm }), 400, "cannot be merely"},
		{"confirmed in approve mode", with(func(r *callgate.Request) { r.Confirmed = true }), 400, "only for mode confirm"},
		{"no mode", with(func(r *callgate.Request) { r.Mode = "" }), 400, "mode"},
		{"no arguments", with(func(r *callgate.Request) { r.Arguments = nil }), 400, "arguments must be a JSON object"},
		{"a bad principal kind", with(func(r *callgate.Request) { r.Principal.Kind = "root" }), 400, "principal kind"},
		{"a control character", with(func(r *callgate.Request) { r.Principal.Subject = "al\x00ice" }), 400, "printable"},
		{"no instance", with(func(r *callgate.Request) { r.Instance = "" }), 400, "instance"},
		{"arguments over the bound", with(func(r *callgate.Request) {
			r.Arguments = map[string]any{"blob": strings.Repeat("x", callgate.MaxArgumentsBytes)}
		}), 400, "at most"},
		{"a body over the bound", `{"pad":"` + strings.Repeat("x", maxRequestBody) + `"}`, 413, "at most"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			rec := c.send("POST", callgate.PathRequests, tc.body)
			wantStatus(t, rec, tc.want)
			wantBody(t, rec, tc.says)
		})
	}
	c.auth = nil
	wantStatus(t, c.send("POST", callgate.PathRequests, c.call("refund", policy.PerCallApprove, "alice", 1)), 401)
	wantStatus(t, c.send("GET", callgate.PathRequests+"/x", nil), 401)
	wantStatus(t, c.send("POST", callgate.PathConsume, callgate.Consume{Grant: "x", Instance: "i"}), 401)
	if pending, err := c.db.PendingCallRequests(context.Background(), "", -1); err != nil || len(pending) != 0 {
		t.Fatalf("refused requests stored: %d (%v)", len(pending), err)
	}
}

// TestCallRequestConfirmedAndLimits: a request the principal confirmed in
// their client is approved at once with a grant (and nobody notified);
// past the pending bound a request is refused with 429 and the sentence.
func TestCallRequestConfirmedAndLimits(t *testing.T) {
	c := newCallApp(t, storetest.MustOpen(t), approval.Limits{PerPrincipal: 1, PerTool: 10})
	in := c.call("note", policy.PerCallConfirm, "alice", 1)
	in.Confirmed = true
	st := c.status(c.send("POST", callgate.PathRequests, in), 201)
	if st.State != callgate.Approved || st.Grant == "" || st.DecidedBy != "oidc:alice" {
		t.Fatalf("confirmed: %+v", st)
	}
	if len(c.events.events) != 0 {
		t.Error("a confirmed request notified approvers")
	}
	c.status(c.send("POST", callgate.PathRequests, c.call("refund", policy.PerCallApprove, "alice", 1)), 201)
	rec := c.send("POST", callgate.PathRequests, c.call("refund", policy.PerCallApprove, "alice", 2))
	wantStatus(t, rec, 429)
	wantBody(t, rec, "already waiting for a decision (at most 1)")
}

// TestConsumeGrantRefusals: a grant of another key is 400, an expired one
// 410; a wait past the contract's bound is 400.
func TestConsumeGrantRefusals(t *testing.T) {
	c := newCallApp(t, storetest.MustOpen(t), approval.Limits{})
	other, err := bundle.GenerateKey(rand.Reader, time.Now())
	if err != nil {
		t.Fatal(err)
	}
	now := time.Now()
	g := bundle.Grant{ArgumentsDigest: c.digests["refund"], BundleVersion: 1, CallRequest: "x", DecidedBy: "bob",
		DefinitionDigest: c.digests["refund"], IssuedAt: now, Mode: "approve", Nonce: strings.Repeat("ab", 16),
		NotAfter: now.Add(time.Minute), Tool: "refund", Principal: bundle.GrantPrincipal{Kind: "oidc", Subject: "alice"}}
	forged, err := bundle.SignGrant(g, other)
	if err != nil {
		t.Fatal(err)
	}
	rec := c.send("POST", callgate.PathConsume, callgate.Consume{Grant: string(forged), Instance: "rt"})
	wantStatus(t, rec, 400)
	wantBody(t, rec, "does not verify")

	st := c.status(c.send("POST", callgate.PathRequests, c.call("refund", policy.PerCallApprove, "alice", 1)), 201)
	bob := mustApprover(t, c.db, "bob@example.com")
	cr, err := c.db.DecideCallRequest(context.Background(), store.CallDecision{UserID: bob.ID, ID: st.ID, Approve: true, Grant: c.grantKey()})
	if err != nil {
		t.Fatal(err)
	}
	later := time.Now().Add(20 * time.Minute)
	c.db.Now = func() time.Time { return later }
	wantStatus(t, c.send("POST", callgate.PathConsume, callgate.Consume{Grant: cr.Grant, Instance: "rt"}), 410)
	if expired := c.status(c.send("GET", callgate.PathRequests+"/"+st.ID, nil), 200); expired.State != callgate.Expired {
		t.Fatalf("an approved request past its grant: %+v", expired)
	}
	wantStatus(t, c.send("GET", callgate.PathRequests+"/"+st.ID+"?wait=61", nil), 400)
	wantStatus(t, c.send("GET", callgate.PathRequests+"/nope", nil), 404)
}

// TestCallLongPollSeesAnotherConsolesDecision: a decision made through a
// second handle on the database (another console) reaches a long poll
// here by reading the row, within a second.
func TestCallLongPollSeesAnotherConsolesDecision(t *testing.T) {
	path := filepath.Join(t.TempDir(), "toolgate.db")
	c := newCallApp(t, openDB(t, path), approval.Limits{})
	other := openDB(t, path)
	bob := mustApprover(t, other, "bob@example.com")
	st := c.status(c.send("POST", callgate.PathRequests, c.call("refund", policy.PerCallApprove, "alice", 1)), 201)
	answered := make(chan *httptest.ResponseRecorder)
	go func() { answered <- c.send("GET", callgate.PathRequests+"/"+st.ID+"?wait=20", nil) }()
	time.Sleep(100 * time.Millisecond)
	decidedAt := time.Now()
	if _, err := other.DecideCallRequest(context.Background(), store.CallDecision{UserID: bob.ID, ID: st.ID,
		Comment: "no refunds on Sundays"}); err != nil {
		t.Fatal(err)
	}
	got := c.status(<-answered, 200)
	if since := time.Since(decidedAt); since > 2*time.Second {
		t.Fatalf("another console's decision reached the long poll after %s", since)
	}
	if got.State != callgate.Denied || got.Comment != "no refunds on Sundays" {
		t.Fatalf("denied: %+v", got)
	}
}
