package approval

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
	"time"
)

var (
	now  = time.Date(2026, 3, 10, 12, 0, 0, 0, time.UTC)
	week = 7 * 24 * time.Hour
	x    = Account{ID: 1, Email: "x@example.com"}
	a    = Account{ID: 2, Email: "a@example.com"}
	b    = Account{ID: 3, Email: "b@example.com"}
	p    = Account{ID: 4, Email: "p@example.com"}
	q    = Account{ID: 5, Email: "q@example.com"}
	host = Account{Email: "operator@host"}
)

func ago(d time.Duration) time.Time { return now.Add(-d) }

func act(by Account, kind ActKind, subject Account, at time.Time) Act {
	return Act{By: by, Kind: kind, Subject: subject, At: at}
}

// asked is an act an operator on the host did at requester's request.
func asked(requester Account, kind ActKind, subject Account, at time.Time) Act {
	return Act{By: host, RequestedBy: requester, Kind: kind, Subject: subject, At: at}
}

// TestIndependence has one case per refusal sentence, and the cases that
// must be allowed.
func TestIndependence(t *testing.T) {
	t1, t2 := ago(3*time.Hour), ago(2*time.Hour)
	const tail = ". An approver must be independent of the requester (R10): another approver must decide it, or you can from "
	for _, tc := range []struct {
		name                string
		approver, requester Account
		acts                []Act
		code                Code
		want                string // the sentence; "" for allowed
		until               time.Time
	}{
		{name: "no acts", approver: x, requester: a},
		{name: "acts of the host and the provider make no controller", approver: p, requester: q,
			acts: []Act{act(host, ActCreate, p, t1), act(host, ActCreate, q, t1), act(Account{Email: "sso:https://idp"}, ActGrantApprover, p, t1)}},
		{name: "acts on one's own account", approver: x, requester: a, acts: []Act{act(x, ActPasswordReset, x, t1), act(a, ActEnable, a, t1)}},
		{name: "outside the window", approver: x, requester: b,
			acts: []Act{act(x, ActCreate, a, ago(week+time.Hour)), act(a, ActCreate, b, t1), act(x, ActCreate, q, ago(week))}},
		{name: "unrelated accounts", approver: p, requester: q, acts: []Act{act(x, ActCreate, a, t1), act(a, ActCreate, q, t1)}},

		{name: "the approver did it", approver: x, requester: a, acts: []Act{act(x, ActCreate, a, t1)},
			code: ApproverControlsRequester, until: t1.Add(week),
			want: "You cannot approve this request: you created the account of its requester a@example.com on 2026-03-10 09:00 UTC, less than 7 days ago" + tail + "2026-03-17 09:00 UTC."},
		{name: "done at the approver's request", approver: x, requester: a, acts: []Act{asked(x, ActCreate, a, t1)},
			code: ApproverControlsRequester, until: t1.Add(week),
			want: "You cannot approve this request: the account of its requester a@example.com was created at your request on 2026-03-10 09:00 UTC, less than 7 days ago" + tail + "2026-03-17 09:00 UTC."},
		{name: "the requester did it", approver: a, requester: x, acts: []Act{act(x, ActPasswordReset, a, t1)},
			code: RequesterControlsApprover, until: t1.Add(week),
			want: "You cannot approve this request: its requester x@example.com reset the password of your account on 2026-03-10 09:00 UTC, less than 7 days ago" + tail + "2026-03-17 09:00 UTC."},
		{name: "done at the requester's request", approver: a, requester: x, acts: []Act{asked(x, ActGrantApprover, a, t1)},
			code: RequesterControlsApprover, until: t1.Add(week),
			want: "You cannot approve this request: operator@host gave the approver role to your account at the request of its requester x@example.com on 2026-03-10 09:00 UTC, less than 7 days ago" + tail + "2026-03-17 09:00 UTC."},
		{name: "a creation is named over the role given with it", approver: a, requester: x,
			acts: []Act{act(x, ActGrantApprover, a, t1), act(x, ActCreate, a, t1)}, code: RequesterControlsApprover, until: t1.Add(week),
			want: "You cannot approve this request: its requester x@example.com created your account on 2026-03-10 09:00 UTC, less than 7 days ago" + tail + "2026-03-17 09:00 UTC."},

		{name: "a later act keeps a creation's control going", approver: a, requester: x,
			acts: []Act{act(x, ActCreate, a, ago(6*24*time.Hour)), act(x, ActPasswordReset, a, t2)}, code: RequesterControlsApprover, until: t2.Add(week),
			want: "You cannot approve this request: its requester x@example.com created your account on 2026-03-04 12:00 UTC, less than 7 days ago" + tail + "2026-03-17 10:00 UTC."},
		{name: "a two-hop chain from the approver", approver: x, requester: b,
			acts: []Act{act(x, ActCreate, a, t1), act(a, ActCreate, b, t2)}, code: ApproverControlsRequester, until: t1.Add(week),
			want: "You cannot approve this request: you control the account of its requester b@example.com through a@example.com " +
				"(you created a@example.com on 2026-03-10 09:00 UTC; a@example.com created b@example.com on 2026-03-10 10:00 UTC), " +
				"all less than 7 days ago" + tail + "2026-03-17 09:00 UTC."},
		{name: "a chain with an act on the host at the approver's request", approver: x, requester: b,
			acts: []Act{asked(x, ActCreate, a, t1), act(a, ActEnable, b, t2)}, code: ApproverControlsRequester, until: t1.Add(week),
			want: "You cannot approve this request: you control the account of its requester b@example.com through a@example.com " +
				"(operator@host created a@example.com at your request on 2026-03-10 09:00 UTC; a@example.com re-enabled b@example.com on 2026-03-10 10:00 UTC), " +
				"all less than 7 days ago" + tail + "2026-03-17 09:00 UTC."},
		{name: "a two-hop chain from the requester", approver: b, requester: x,
			acts: []Act{act(x, ActCreate, a, t1), act(a, ActCreate, b, t2)}, code: RequesterControlsApprover, until: t1.Add(week),
			want: "You cannot approve this request: its requester x@example.com controls your account through a@example.com " +
				"(x@example.com created a@example.com on 2026-03-10 09:00 UTC; a@example.com created your account on 2026-03-10 10:00 UTC), " +
				"all less than 7 days ago" + tail + "2026-03-17 09:00 UTC."},
		{name: "a shared controller", approver: p, requester: q,
			acts: []Act{act(x, ActCreate, p, t1), act(x, ActCreate, q, t2)}, code: SharedController, until: t1.Add(week),
			want: "You cannot approve this request: x@example.com controls both your account and the account of its requester q@example.com " +
				"(x@example.com created your account on 2026-03-10 09:00 UTC; x@example.com created q@example.com on 2026-03-10 10:00 UTC), " +
				"all less than 7 days ago" + tail + "2026-03-17 09:00 UTC."},
		{name: "a shared controller through chains", approver: p, requester: b,
			acts: []Act{act(x, ActCreate, a, t2), act(a, ActCreate, p, t2), act(a, ActCreate, b, t1)}, code: SharedController, until: t1.Add(week),
			want: "You cannot approve this request: a@example.com controls both your account and the account of its requester b@example.com " +
				"(a@example.com created your account on 2026-03-10 10:00 UTC; a@example.com created b@example.com on 2026-03-10 09:00 UTC), " +
				"all less than 7 days ago" + tail + "2026-03-17 09:00 UTC."},
		{name: "the chain that lasts longest is named", approver: x, requester: b,
			acts: []Act{act(x, ActCreate, b, ago(6*24*time.Hour)), act(x, ActEnable, a, t1), act(a, ActPasswordReset, b, t2)},
			code: ApproverControlsRequester, until: t1.Add(week),
			want: "You cannot approve this request: you control the account of its requester b@example.com through a@example.com " +
				"(you re-enabled a@example.com on 2026-03-10 09:00 UTC; a@example.com reset the password of b@example.com on 2026-03-10 10:00 UTC), " +
				"all less than 7 days ago" + tail + "2026-03-17 09:00 UTC."},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := Independence(Facts{Approver: tc.approver, Requester: tc.requester, Acts: tc.acts, Now: now, Window: week})
			if tc.want == "" {
				if r != nil {
					t.Fatalf("refused: %s", r.Message)
				}
				return
			}
			if r == nil {
				t.Fatal("allowed, want refused")
			}
			if r.Code != tc.code || r.Message != tc.want || !r.Until.Equal(tc.until) {
				t.Fatalf("got %s %v\n%s\nwant %s %v\n%s", r.Code, r.Until, r.Message, tc.code, tc.until, tc.want)
			}
		})
	}
}

// TestIndependenceWindow: a configured window counts in its sentence and
// ends a chain when its oldest act leaves it.
func TestIndependenceWindow(t *testing.T) {
	acts := []Act{act(x, ActCreate, a, ago(30*time.Hour)), act(a, ActCreate, b, ago(time.Hour))}
	f := Facts{Approver: x, Requester: b, Acts: acts, Now: now, Window: 48 * time.Hour}
	r := Independence(f)
	if r == nil || r.Until != ago(30*time.Hour).Add(48*time.Hour) {
		t.Fatalf("refusal %+v, want one until the oldest act leaves the window", r)
	}
	f.Window = 24 * time.Hour
	if r := Independence(f); r != nil {
		t.Fatalf("refused once the chain's oldest act left the window: %s", r.Message)
	}
	f.Window = 36 * time.Hour
	if r := Independence(f); r == nil || !strings.Contains(r.Message, "all less than 36h0m0s ago") {
		t.Fatalf("refusal %+v, want the window written as a duration", r)
	}
}

func TestMayDecide(t *testing.T) {
	for _, tc := range []struct {
		name string
		d    Decider
		code Code
		want string
	}{
		{"an approver", Decider{Account: p, Approver: true}, "", ""},
		{"not an approver", Decider{Account: p}, NotAnApprover, "Only a security approver can decide change requests."},
		{"a disabled approver", Decider{Account: p, Approver: true, Disabled: true}, NotAnApprover, "Only a security approver can decide change requests."},
		{"the requester", Decider{Account: q, Approver: true}, OwnRequest, "You asked for this change, so someone else must decide it."},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := MayDecide(tc.d, q.ID)
			if tc.want == "" {
				if r != nil {
					t.Fatalf("refused: %s", r.Message)
				}
				return
			}
			if r == nil || r.Code != tc.code || r.Message != tc.want {
				t.Fatalf("got %+v, want %s %q", r, tc.code, tc.want)
			}
		})
	}
}

func TestCouldBeOnePerson(t *testing.T) {
	for _, tc := range []struct{ requester, approver, want bool }{
		{true, true, true}, {true, false, true}, {false, true, true}, {false, false, false},
	} {
		if got := CouldBeOnePerson(tc.requester, tc.approver); got != tc.want {
			t.Errorf("CouldBeOnePerson(local requester %v, local approver %v) = %v", tc.requester, tc.approver, got)
		}
	}
}

// TestIndependenceAgainstClosure checks the rule as a rule: on random
// account graphs, Independence refuses exactly when a plain transitive
// closure over the acts in the window links the two accounts (either way,
// or through a common controller), and its Until is the latest time from
// which such a link exists, found by trying every act's time as a cut-off.
func TestIndependenceAgainstClosure(t *testing.T) {
	rng := rand.New(rand.NewPCG(20, 10))
	kinds := []ActKind{ActCreate, ActGrantApprover, ActEnable, ActPasswordReset}
	accounts := make([]Account, 6)
	for i := range accounts {
		accounts[i] = Account{ID: int64(i + 1), Email: fmt.Sprintf("u%d@example.com", i+1)}
	}
	for n := range 2000 {
		var acts []Act
		for range rng.IntN(9) {
			by, subject := accounts[rng.IntN(len(accounts))], accounts[rng.IntN(len(accounts))]
			at := ago(time.Duration(rng.IntN(10*24)) * time.Hour)
			kind := kinds[rng.IntN(len(kinds))]
			if rng.IntN(4) == 0 {
				acts = append(acts, asked(by, kind, subject, at))
			} else {
				acts = append(acts, act(by, kind, subject, at))
			}
		}
		f := Facts{Approver: accounts[0], Requester: accounts[1], Acts: acts, Now: now, Window: week}
		var want time.Time
		for _, cut := range acts {
			if cut.At.After(ago(week)) && cut.At.After(want) && linked(f, cut.At) {
				want = cut.At
			}
		}
		r := Independence(f)
		switch {
		case want.IsZero() && r != nil:
			t.Fatalf("graph %d: refused (%s), but no chain links the accounts: %+v", n, r.Message, acts)
		case !want.IsZero() && r == nil:
			t.Fatalf("graph %d: allowed, but a chain since %v links the accounts: %+v", n, want, acts)
		case r != nil && !r.Until.Equal(want.Add(week)):
			t.Fatalf("graph %d: until %v, want %v: %+v", n, r.Until, want.Add(week), acts)
		}
	}
}

// linked reports, by closure, whether the acts at or after cut link the
// approver and the requester of f.
func linked(f Facts, cut time.Time) bool {
	controls := map[[2]int64]bool{}
	for _, a := range f.Acts {
		if a.At.Before(cut) {
			continue
		}
		for _, c := range []Account{a.By, a.RequestedBy} {
			if c.ID != 0 && c.ID != a.Subject.ID {
				controls[[2]int64{c.ID, a.Subject.ID}] = true
			}
		}
	}
	ids := []int64{1, 2, 3, 4, 5, 6}
	for _, k := range ids { // Floyd–Warshall closure
		for _, i := range ids {
			for _, j := range ids {
				if controls[[2]int64{i, k}] && controls[[2]int64{k, j}] {
					controls[[2]int64{i, j}] = true
				}
			}
		}
	}
	ap, rq := f.Approver.ID, f.Requester.ID
	if controls[[2]int64{ap, rq}] || controls[[2]int64{rq, ap}] {
		return true
	}
	for _, c := range ids {
		if c != ap && c != rq && controls[[2]int64{c, ap}] && controls[[2]int64{c, rq}] {
			return true
		}
	}
	return false
}
