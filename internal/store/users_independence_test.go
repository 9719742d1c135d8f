package store

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/toolgate/toolgate/internal/apperr"
	"github.com/toolgate/toolgate/internal/auth"
)

// consoleUser adds a user as the console user by does, through the form's
// store call: a control act of by's.
func consoleUser(t *testing.T, db *DB, by *User, email string, roles ...auth.Role) *User {
	t.Helper()
	u, err := db.CreateUser(context.Background(), by.Email, NewUser{Email: email, PasswordHash: "h", Roles: roles})
	if err != nil {
		t.Fatalf("%s adds %s: %v", by.Email, email, err)
	}
	return u
}

// refused approves cr as approver and wants a Forbidden naming want, the
// request still pending, the badge and Approvals agreeing.
func (f *crFixture) refused(t *testing.T, approver *User, cr *ChangeRequest, want string) {
	t.Helper()
	ctx := context.Background()
	_, err := f.db.ApproveChangeRequest(ctx, approver.ID, cr.ID, "ok")
	wantCode(t, err, apperr.Forbidden)
	if msg := apperr.MessageOf(err); !strings.Contains(msg, want) {
		t.Fatalf("refusal %q, want it to say %q", msg, want)
	}
	if got, _ := f.db.ChangeRequest(ctx, cr.ID); got.Status != StatusPending {
		t.Fatalf("request %s after a refused approval", got.Status)
	}
	if n, _ := f.db.CountPendingFor(ctx, approver.ID); n != 0 {
		t.Errorf("badge counts %d requests the approver would be refused", n)
	}
	list, _ := f.db.ChangeRequests(ctx, ChangeRequestFilter{Pending: true})
	if why, _ := f.db.NotIndependent(ctx, approver.ID, list); !strings.Contains(why[cr.ID], want) {
		t.Errorf("Approvals says %q, want %q", why[cr.ID], want)
	}
	if err := f.db.CheckApprover(ctx, approver.ID, cr.ID); apperr.CodeOf(err) != apperr.Forbidden {
		t.Errorf("the confirmation step lets the approver on: %v", err)
	}
}

// TestIndependenceThroughChains: control passes through the accounts in
// between, and one account controlling both sides is refused too.
func TestIndependenceThroughChains(t *testing.T) {
	ctx := context.Background()
	t.Run("two hops: X made A, A made B, B asks, X approves", func(t *testing.T) {
		f := newCRFixture(t)
		x := f.adminApprover
		a := consoleUser(t, f.db, x, "a@example.com", auth.RoleAdmin)
		b := consoleUser(t, f.db, a, "b@example.com", auth.RoleAdmin)
		f.refused(t, x, f.exposeRequest(t, b),
			"You cannot approve this request: you control the account of its requester b@example.com through a@example.com (you created a@example.com on ")
	})
	t.Run("the reverse: X asks, an approver A made approves", func(t *testing.T) {
		f := newCRFixture(t)
		x := f.adminApprover
		a := consoleUser(t, f.db, x, "a@example.com", auth.RoleAdmin, auth.RoleApprover)
		b := consoleUser(t, f.db, a, "b@example.com", auth.RoleApprover)
		f.refused(t, b, f.exposeRequest(t, x),
			"its requester both@example.com controls your account through a@example.com (both@example.com created a@example.com on ")
	})
	t.Run("a shared controller: X made approver P and admin Q", func(t *testing.T) {
		f := newCRFixture(t)
		x := f.adminApprover
		p := consoleUser(t, f.db, x, "p@example.com", auth.RoleApprover)
		q := consoleUser(t, f.db, x, "q@example.com", auth.RoleAdmin)
		f.refused(t, p, f.exposeRequest(t, q),
			"both@example.com controls both your account and the account of its requester q@example.com (both@example.com created your account on ")
	})
	t.Run("outside the window", func(t *testing.T) {
		f := newCRFixture(t)
		x := f.adminApprover
		b := consoleUser(t, f.db, consoleUser(t, f.db, x, "a@example.com", auth.RoleAdmin), "b@example.com", auth.RoleAdmin)
		p := consoleUser(t, f.db, x, "p@example.com", auth.RoleApprover)
		cr := f.exposeRequest(t, b)
		f.db.Now = func() time.Time { return time.Now().Add(DefaultApproverIndependence + time.Minute) }
		if n, _ := f.db.CountPendingFor(ctx, p.ID); n != 1 {
			t.Fatalf("badge after the window = %d, want 1", n)
		}
		got, err := f.db.ApproveChangeRequest(ctx, x.ID, cr.ID, "a week later")
		if err != nil || got.Status != StatusApproved {
			t.Fatalf("approval after the window: %+v, %v", got, err)
		}
	})
	t.Run("accounts made on the host are independent", func(t *testing.T) {
		f := newCRFixture(t)
		consoleUser(t, f.db, f.adminApprover, "other@example.com", auth.RoleViewer)
		got, err := f.db.ApproveChangeRequest(ctx, f.approver.ID, f.exposeRequest(t, f.admin).ID, "fine")
		if err != nil || got.Status != StatusApproved {
			t.Fatalf("approval between host-made accounts: %+v, %v", got, err)
		}
	})
}

// TestRecentApprovals lists approvals with whether each account is local,
// newest first, from a time on.
func TestRecentApprovals(t *testing.T) {
	ctx := context.Background()
	f := newCRFixture(t)
	cr := f.exposeRequest(t, f.admin)
	if _, err := f.db.ApproveChangeRequest(ctx, f.approver.ID, cr.ID, "ok"); err != nil {
		t.Fatal(err)
	}
	got, err := f.db.RecentApprovals(ctx, time.Now().Add(-time.Hour), 10)
	if err != nil || len(got) != 1 {
		t.Fatalf("RecentApprovals = %+v, %v", got, err)
	}
	if r := got[0]; r.RequestID != cr.ID || r.ToolName != "orders_delete" || r.Requester != "admin@example.com" ||
		r.Approver != "approver@example.com" || !r.RequesterLocal || !r.ApproverLocal {
		t.Fatalf("approval %+v", r)
	}
	if got, _ := f.db.RecentApprovals(ctx, time.Now().Add(time.Hour), 10); len(got) != 0 {
		t.Fatalf("approvals after now: %+v", got)
	}
}
