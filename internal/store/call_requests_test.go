package store

import (
	"context"
	"crypto/rand"
	"encoding/json"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/toolgate/toolgate/internal/apperr"
	"github.com/toolgate/toolgate/internal/approval"
	"github.com/toolgate/toolgate/internal/auth"
	"github.com/toolgate/toolgate/internal/bundle"
	"github.com/toolgate/toolgate/internal/callgate"
	"github.com/toolgate/toolgate/internal/callrecord"
)

const testDigest = "sha256:" + "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef"

func testGrantKey(t *testing.T, db *DB) GrantKey {
	t.Helper()
	k, err := bundle.GenerateKey(rand.Reader, db.Now())
	if err != nil {
		t.Fatal(err)
	}
	return GrantKey{Key: k, Lifetime: 15 * time.Minute}
}

// callIn is a call request for subject with arguments digest args.
func callIn(subject, mode string, args byte) NewCallRequest {
	digest := "sha256:" + strings.Repeat(string("0123456789abcdef"[args%16]), 64)
	return NewCallRequest{Request: callgate.Request{Schema: callgate.RequestSchema, Tool: "delete_pet",
		DefinitionDigest: testDigest, ArgumentsDigest: digest, Arguments: map[string]any{"id": 7, "token": callgate.Masked},
		Mode: mode, BundleVersion: 3, Instance: "rt-1",
		Principal: callgate.Principal{Principal: callrecord.Principal{Kind: "oidc", Subject: subject, ClientID: "agent"}}},
		TokenID: 1, RiskClass: "DESTRUCTIVE", Lifetime: time.Hour, Limits: approval.DefaultLimits}
}

func mustFile(t *testing.T, db *DB, in NewCallRequest) (*CallRequest, bool) {
	t.Helper()
	cr, created, err := db.FileCallRequest(context.Background(), in)
	if err != nil {
		t.Fatalf("FileCallRequest: %v", err)
	}
	return cr, created
}

// TestFileCallRequestIsIdempotentOnTheCallsIdentity: the same call filed
// again is the same request (pending, then approved with its grant, then
// denied until its expiry); other arguments are a new request.
func TestFileCallRequestIsIdempotentOnTheCallsIdentity(t *testing.T) {
	ctx := context.Background()
	db := MustOpen(t)
	approver := mustUser(t, db, "appr@example.com", auth.RoleApprover)
	first, created := mustFile(t, db, callIn("alice", "approve", 1))
	if !created || first.State != callgate.Pending || string(first.Arguments) != `{"id":7,"token":"[masked]"}` {
		t.Fatalf("first = %+v, created %v", first, created)
	}
	again, created := mustFile(t, db, callIn("alice", "approve", 1))
	if created || again.ID != first.ID {
		t.Fatalf("same call filed again: id %s created %v, want %s and false", again.ID, created, first.ID)
	}
	if other, created := mustFile(t, db, callIn("alice", "approve", 2)); !created || other.ID == first.ID {
		t.Fatalf("other arguments gave request %s created %v", other.ID, created)
	}
	if _, err := db.DecideCallRequest(ctx, CallDecision{UserID: approver.ID, ID: first.ID, Approve: true, Grant: testGrantKey(t, db)}); err != nil {
		t.Fatal(err)
	}
	approved, _ := mustFile(t, db, callIn("alice", "approve", 1))
	if approved.ID != first.ID || approved.State != callgate.Approved || approved.Grant == "" {
		t.Fatalf("after approval: %+v", approved)
	}
	if _, err := db.ConsumeGrant(ctx, approved.ID, approved.GrantNonce, "rt-1"); err != nil {
		t.Fatal(err)
	}
	if next, created := mustFile(t, db, callIn("alice", "approve", 1)); !created || next.ID == first.ID {
		t.Fatalf("after the grant was spent the same call is a new request: got %s created %v", next.ID, created)
	}
}

// TestCallRequestLimits: past the pending bound per principal, and per
// tool, a new request is refused at once (TooMany), nothing stored.
func TestCallRequestLimits(t *testing.T) {
	db := MustOpen(t)
	limits := approval.Limits{PerPrincipal: 2, PerTool: 3}
	for i := range 2 {
		in := callIn("alice", "approve", byte(i))
		in.Limits = limits
		mustFile(t, db, in)
	}
	in := callIn("alice", "approve", 9)
	in.Limits = limits
	_, _, err := db.FileCallRequest(context.Background(), in)
	wantCode(t, err, apperr.TooMany)
	if !strings.Contains(apperr.MessageOf(err), "at most 2") {
		t.Errorf("refusal %q does not name the bound", apperr.MessageOf(err))
	}
	in = callIn("bob", "approve", 3)
	in.Limits = limits
	mustFile(t, db, in)
	in = callIn("carol", "approve", 4)
	in.Limits = limits
	_, _, err = db.FileCallRequest(context.Background(), in)
	wantCode(t, err, apperr.TooMany)
	pending, err := db.PendingCallRequests(context.Background(), "", -1)
	if err != nil || len(pending) != 3 {
		t.Fatalf("pending = %d (%v), want 3", len(pending), err)
	}
}

// TestDecideCallRequestPeopleRules: approve mode needs an approver other
// than the principal; confirm mode the principal alone (others do not
// even see it); a deny in approve mode needs a comment; a decided request
// is not decided again.
func TestDecideCallRequestPeopleRules(t *testing.T) {
	ctx := context.Background()
	db := MustOpen(t)
	alice := mustUser(t, db, "alice@example.com", auth.RoleApprover)
	bob := mustUser(t, db, "bob@example.com", auth.RoleApprover)
	viewer := mustUser(t, db, "view@example.com", auth.RoleViewer)
	key := testGrantKey(t, db)
	own, _ := mustFile(t, db, callIn("alice@example.com", "approve", 1))
	_, err := db.DecideCallRequest(ctx, CallDecision{UserID: alice.ID, ID: own.ID, Approve: true, Grant: key})
	wantCode(t, err, apperr.Forbidden)
	_, err = db.DecideCallRequest(ctx, CallDecision{UserID: viewer.ID, ID: own.ID, Approve: true, Grant: key})
	wantCode(t, err, apperr.Forbidden)
	_, err = db.DecideCallRequest(ctx, CallDecision{UserID: bob.ID, ID: own.ID, Approve: false})
	wantCode(t, err, apperr.Invalid)
	denied, err := db.DecideCallRequest(ctx, CallDecision{UserID: bob.ID, ID: own.ID, Comment: "not today"})
	if err != nil || denied.State != callgate.Denied || denied.Comment != "not today" || denied.DecidedBy != bob.Email {
		t.Fatalf("deny: %+v %v", denied, err)
	}
	_, err = db.DecideCallRequest(ctx, CallDecision{UserID: bob.ID, ID: own.ID, Approve: true, Grant: key})
	wantCode(t, err, apperr.Conflict)

	confirm, _ := mustFile(t, db, callIn("view@example.com", "confirm", 2))
	_, err = db.DecideCallRequest(ctx, CallDecision{UserID: bob.ID, ID: confirm.ID, Approve: true, Grant: key})
	wantCode(t, err, apperr.NotFound)
	ok, err := db.DecideCallRequest(ctx, CallDecision{UserID: viewer.ID, ID: confirm.ID, Approve: true, Grant: key})
	if err != nil || ok.State != callgate.Approved {
		t.Fatalf("the principal confirming: %+v %v", ok, err)
	}
	g, err := bundle.VerifyGrant([]byte(ok.Grant), bundle.KeySet{Keys: []bundle.PublicKey{key.Key.Public()}}, db.Now())
	if err != nil || g.Nonce != ok.GrantNonce || g.CallRequest != ok.ID || g.Mode != "confirm" {
		t.Fatalf("grant %+v: %v", g, err)
	}
}

// TestConsumeGrantOnceThenConflictOrGone: a grant is spent once; again
// is Conflict; an expired one is Gone, and the background close marks
// both kinds of expiry.
func TestConsumeGrantOnceThenConflictOrGone(t *testing.T) {
	ctx := context.Background()
	db := MustOpen(t)
	now := time.Now().UTC()
	db.Now = func() time.Time { return now }
	bob := mustUser(t, db, "bob@example.com", auth.RoleApprover)
	key := testGrantKey(t, db)
	approve := func(args byte) *CallRequest {
		cr, _ := mustFile(t, db, callIn("alice", "approve", args))
		cr, err := db.DecideCallRequest(ctx, CallDecision{UserID: bob.ID, ID: cr.ID, Approve: true, Grant: key})
		if err != nil {
			t.Fatal(err)
		}
		return cr
	}
	a := approve(1)
	if got, err := db.ConsumeGrant(ctx, a.ID, a.GrantNonce, "rt-1"); err != nil || got.State != callgate.Consumed || got.ConsumedBy != "rt-1" {
		t.Fatalf("first consume: %+v %v", got, err)
	}
	_, err := db.ConsumeGrant(ctx, a.ID, a.GrantNonce, "rt-2")
	wantCode(t, err, apperr.Conflict)
	_, err = db.ConsumeGrant(ctx, a.ID, strings.Repeat("ab", 16), "rt-1")
	wantCode(t, err, apperr.Gone)

	b := approve(2)
	stillPending, _ := mustFile(t, db, callIn("alice", "approve", 3))
	now = now.Add(16 * time.Minute)
	_, err = db.ConsumeGrant(ctx, b.ID, b.GrantNonce, "rt-1")
	wantCode(t, err, apperr.Gone)
	now = now.Add(time.Hour)
	if n, err := db.ExpireCallRequests(ctx); err != nil || n != 2 {
		t.Fatalf("ExpireCallRequests = %d, %v; want 2", n, err)
	}
	for _, id := range []string{b.ID, stillPending.ID} {
		if cr, err := db.CallRequest(ctx, id); err != nil || cr.State != callgate.Expired {
			t.Errorf("request %s: %+v %v, want expired", id, cr, err)
		}
	}
}

// TestConsumeGrantRaceAcrossConsoles: two consoles on one database (a
// PostgreSQL server when the engine is postgres) spend one grant at once,
// many times over: exactly one wins each time.
func TestConsumeGrantRaceAcrossConsoles(t *testing.T) {
	ctx := context.Background()
	a, b := MustOpenShared(t, engineUnderTest())
	bob := mustUser(t, a, "bob@example.com", auth.RoleApprover)
	key := testGrantKey(t, a)
	for i := range 10 {
		cr, _ := mustFile(t, a, callIn("alice", "approve", byte(i)))
		cr, err := a.DecideCallRequest(ctx, CallDecision{UserID: bob.ID, ID: cr.ID, Approve: true, Grant: key})
		if err != nil {
			t.Fatal(err)
		}
		var wg sync.WaitGroup
		errs := make([]error, 2)
		for j, db := range []*DB{a, b} {
			wg.Add(1)
			go func() {
				defer wg.Done()
				_, errs[j] = db.ConsumeGrant(ctx, cr.ID, cr.GrantNonce, "rt")
			}()
		}
		wg.Wait()
		wins := 0
		for _, err := range errs {
			if err == nil {
				wins++
			} else if apperr.CodeOf(err) != apperr.Conflict {
				t.Fatalf("loser's error %v, want a conflict", err)
			}
		}
		if wins != 1 {
			t.Fatalf("round %d: %d consoles spent the grant, want exactly 1 (%v)", i, wins, errs)
		}
	}
}

// TestExpiryIsAuditedOnceAcrossConsoles: two consoles on one database (a
// PostgreSQL server when the engine is postgres) close expired requests
// at once, several times over: each pending request past its expiry and
// each approved one whose grant passed unspent is closed once, with one
// "call_request.expire" entry in a chain that still verifies; a denied
// request and one still in its time are left alone.
func TestExpiryIsAuditedOnceAcrossConsoles(t *testing.T) {
	ctx := context.Background()
	a, b := MustOpenShared(t, engineUnderTest())
	now := time.Now().UTC().Truncate(time.Second)
	var mu sync.Mutex
	clock := func() time.Time { mu.Lock(); defer mu.Unlock(); return now }
	advance := func(d time.Duration) { mu.Lock(); defer mu.Unlock(); now = now.Add(d) }
	a.Now, b.Now = clock, clock
	bob := mustUser(t, a, "bob@example.com", auth.RoleApprover)
	key := testGrantKey(t, a)
	was := map[string]string{} // request id → the state it expires from
	for args := range byte(4) {
		cr, _ := mustFile(t, a, callIn("alice", "approve", args))
		was[cr.ID] = callgate.Pending
	}
	for args := byte(4); args < 6; args++ {
		cr, _ := mustFile(t, a, callIn("alice", "approve", args))
		if _, err := a.DecideCallRequest(ctx, CallDecision{UserID: bob.ID, ID: cr.ID, Approve: true, Grant: key}); err != nil {
			t.Fatal(err)
		}
		was[cr.ID] = callgate.Approved
	}
	denied, _ := mustFile(t, a, callIn("alice", "approve", 6))
	if _, err := a.DecideCallRequest(ctx, CallDecision{UserID: bob.ID, ID: denied.ID, Comment: "no"}); err != nil {
		t.Fatal(err)
	}
	advance(20 * time.Minute)
	inTime, _ := mustFile(t, a, callIn("alice", "approve", 7))
	advance(50 * time.Minute) // the first requests' hour is over, the grants' 15 min too; inTime has 10 min left

	var closed atomic.Int64
	for range 5 {
		var wg sync.WaitGroup
		for _, db := range []*DB{a, b} {
			wg.Go(func() {
				n, err := db.ExpireCallRequests(ctx)
				if err != nil {
					t.Error(err)
				}
				closed.Add(n)
			})
		}
		wg.Wait()
	}
	if n := closed.Load(); n != int64(len(was)) {
		t.Errorf("the consoles closed %d requests in all, want %d", n, len(was))
	}
	entries, total, err := b.QueryAudit(ctx, AuditFilter{Action: "call_request.expire", Limit: 50})
	if err != nil {
		t.Fatal(err)
	}
	if total != len(was) {
		t.Errorf("%d call_request.expire entries, want %d (one per expired request)", total, len(was))
	}
	for _, e := range entries {
		var after map[string]any
		if err := json.Unmarshal([]byte(e.After), &after); err != nil {
			t.Fatal(err)
		}
		id, _ := after["request"].(string)
		want, ok := was[id]
		switch {
		case !ok:
			t.Errorf("request %s expired: %s", id, e.After)
		case e.Actor != CallExpiryActor || e.Subject != SubjectTool("delete_pet") || after["was"] != want:
			t.Errorf("entry %+v: want actor %s, the tool, was %s", e, CallExpiryActor, want)
		}
		delete(was, id)
	}
	if len(was) > 0 {
		t.Errorf("expired without an entry: %v", was)
	}
	for id, state := range map[string]string{denied.ID: callgate.Denied, inTime.ID: callgate.Pending} {
		if cr, err := a.CallRequest(ctx, id); err != nil || cr.State != state {
			t.Errorf("request %s: %+v %v, want it still %s", id, cr, err, state)
		}
	}
	if _, err := a.VerifyAudit(ctx); err != nil {
		t.Errorf("the audit chain: %v", err)
	}
}
