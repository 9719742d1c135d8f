package store

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/toolgate/toolgate/internal/apperr"
	"github.com/toolgate/toolgate/internal/auth"
	"github.com/toolgate/toolgate/internal/policy"
	"github.com/toolgate/toolgate/internal/risk"
)

type crFixture struct {
	db                      *DB
	admin, approver, viewer *User
	adminApprover           *User // holds both roles
	del                     *PolicyRecord
}

func newCRFixture(t *testing.T) *crFixture {
	t.Helper()
	db := MustOpen(t)
	return &crFixture{
		db:            db,
		admin:         mustUser(t, db, "admin@example.com", auth.RoleAdmin),
		approver:      mustUser(t, db, "approver@example.com", auth.RoleApprover),
		viewer:        mustUser(t, db, "viewer@example.com", auth.RoleViewer),
		adminApprover: mustUser(t, db, "both@example.com", auth.RoleAdmin, auth.RoleApprover),
		del:           MustSeedTool(t, db, SeedTool{Name: "orders_delete", Method: "DELETE", Path: "/orders/{id}", Class: risk.Destructive}),
	}
}

// exposeRequest asks, as requester, to expose the DELETE tool.
func (f *crFixture) exposeRequest(t *testing.T, requester *User) *ChangeRequest {
	t.Helper()
	p := f.del.Policy
	p.Exposed = true
	cr, err := f.db.CreateChangeRequest(context.Background(), requester,
		NewChangeRequest{ToolID: f.del.ToolID, Kind: KindExposeRisky, Reason: "cleanup job needs it", Policy: p})
	if err != nil {
		t.Fatal(err)
	}
	return cr
}

func TestApproveAppliesExactlyTheDiff(t *testing.T) {
	ctx := context.Background()
	f := newCRFixture(t)
	cr := f.exposeRequest(t, f.admin)
	if cr.Status != StatusPending || cr.RequesterEmail != "admin@example.com" || cr.Class != risk.Destructive {
		t.Fatalf("created %+v", cr)
	}
	if stored, _ := f.db.ToolPolicy(ctx, f.del.ToolID); stored.Policy.Exposed {
		t.Fatal("the tool was exposed before approval")
	}
	if n, _ := f.db.CountPendingFor(ctx, f.approver.ID); n != 1 {
		t.Fatalf("pending for approver = %d, want 1", n)
	}
	if n, _ := f.db.CountPendingFor(ctx, f.admin.ID); n != 0 {
		t.Fatalf("pending for the requester = %d, want 0 (they cannot decide it)", n)
	}
	got, err := f.db.ApproveChangeRequest(ctx, f.approver.ID, cr.ID, "ok for the cleanup job")
	if err != nil {
		t.Fatal(err)
	}
	if got.Status != StatusApproved || got.DeciderEmail != "approver@example.com" || got.Comment != "ok for the cleanup job" {
		t.Fatalf("approved %+v", got)
	}
	stored, _ := f.db.ToolPolicy(ctx, f.del.ToolID)
	if !stored.Policy.Exposed || stored.Version != f.del.Version+1 {
		t.Fatalf("after approval %+v", stored)
	}
	entries, _, _ := f.db.QueryAudit(ctx, AuditFilter{Subject: "tool:orders_delete", Action: "change_request."})
	if len(entries) != 2 || entries[0].Action != "change_request.approve" || entries[1].Action != "change_request.create" {
		t.Fatalf("audit = %+v", entries)
	}
}

func TestWhoMayDecide(t *testing.T) {
	ctx := context.Background()
	f := newCRFixture(t)
	tests := []struct {
		name      string
		requester func() *User
		decider   func() *User
		want      string
	}{
		{"self-approval refused", func() *User { return f.adminApprover }, func() *User { return f.adminApprover }, apperr.Forbidden},
		{"viewer refused", func() *User { return f.admin }, func() *User { return f.viewer }, apperr.Forbidden},
		{"admin without approver role refused", func() *User { return f.adminApprover }, func() *User { return f.admin }, apperr.Forbidden},
		{"another approver may", func() *User { return f.admin }, func() *User { return f.adminApprover }, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cr := f.exposeRequest(t, tt.requester())
			_, err := f.db.ApproveChangeRequest(ctx, tt.decider().ID, cr.ID, "")
			wantCode(t, err, tt.want)
			_, err = f.db.RejectChangeRequest(ctx, tt.decider().ID, cr.ID, "no")
			if tt.want != "" {
				wantCode(t, err, tt.want)
				if got, _ := f.db.ChangeRequest(ctx, cr.ID); got.Status != StatusPending {
					t.Fatalf("refused decision changed the request to %s", got.Status)
				}
				// Withdraw it, or the next case's same request is a duplicate.
				if _, err := f.db.WithdrawChangeRequest(ctx, tt.requester().ID, cr.ID); err != nil {
					t.Fatal(err)
				}
				return
			}
			wantCode(t, err, apperr.Conflict) // already decided
			// Reset for the next case.
			p := f.del.Policy
			stored, _ := f.db.ToolPolicy(ctx, f.del.ToolID)
			if _, err := f.db.SavePolicy(ctx, "test", f.del.ToolID, stored.Version, p); err != nil {
				t.Fatal(err)
			}
		})
	}
}

func TestStaleApprovalIsVoid(t *testing.T) {
	ctx := context.Background()
	f := newCRFixture(t)
	cr := f.exposeRequest(t, f.admin)
	// Someone edits the tool after the request: the approved diff is stale.
	p := f.del.Policy
	p.TimeoutMS = 1234
	if _, err := f.db.SavePolicy(ctx, "other@example.com", f.del.ToolID, f.del.Version, p); err != nil {
		t.Fatal(err)
	}
	got, err := f.db.ApproveChangeRequest(ctx, f.approver.ID, cr.ID, "fine")
	if err != nil {
		t.Fatal(err)
	}
	if got.Status != StatusVoid || !strings.Contains(got.VoidReason, "timeout_ms") {
		t.Fatalf("stale approval = %+v, want void naming timeout_ms", got)
	}
	if stored, _ := f.db.ToolPolicy(ctx, f.del.ToolID); stored.Policy.Exposed {
		t.Fatal("a void approval exposed the tool")
	}
	if _, total, _ := f.db.QueryAudit(ctx, AuditFilter{Action: "change_request.void"}); total != 1 {
		t.Fatalf("void audited %d times, want 1", total)
	}
}

func TestLowerRiskAndRetryRequests(t *testing.T) {
	ctx := context.Background()
	f := newCRFixture(t)
	post := MustSeedTool(t, f.db, SeedTool{Name: "orders_create", Method: "POST", Path: "/orders", Class: risk.Write})
	// Lowering: WRITE → READ is not allowed to go up, and applies the class.
	_, err := f.db.CreateChangeRequest(ctx, f.admin, NewChangeRequest{ToolID: post.ToolID, Kind: KindLowerRisk, Reason: "r", NewClass: risk.Privileged})
	wantCode(t, err, apperr.Invalid)
	low, err := f.db.CreateChangeRequest(ctx, f.admin, NewChangeRequest{ToolID: post.ToolID, Kind: KindLowerRisk, Reason: "it only searches", NewClass: risk.Read})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.db.ApproveChangeRequest(ctx, f.approver.ID, low.ID, ""); err != nil {
		t.Fatal(err)
	}
	if stored, _ := f.db.ToolPolicy(ctx, post.ToolID); stored.Class != risk.Read {
		t.Fatalf("class after approval = %s", stored.Class)
	}
	// Retry: a key plus 3 attempts is one enable_mutation_retry request.
	stored, _ := f.db.ToolPolicy(ctx, post.ToolID)
	p := stored.Policy
	p.IdempotencyKey = &policy.IdempotencyKey{Header: "Idempotency-Key", Source: policy.KeyGenerated}
	p.Retry.Attempts = 3
	_, err = f.db.CreateChangeRequest(ctx, f.admin, NewChangeRequest{ToolID: post.ToolID, Kind: KindExposeRisky, Reason: "x", Policy: p})
	wantCode(t, err, apperr.Invalid) // wrong kind for this diff
	_, err = f.db.CreateChangeRequest(ctx, f.admin, NewChangeRequest{ToolID: post.ToolID, Kind: KindEnableMutationRetry, Reason: "  ", Policy: p})
	wantCode(t, err, apperr.Invalid) // no reason
	retry, err := f.db.CreateChangeRequest(ctx, f.admin, NewChangeRequest{ToolID: post.ToolID, Kind: KindEnableMutationRetry, Reason: "upstream dedups by key", Policy: p})
	if err != nil {
		t.Fatal(err)
	}
	// Only the requester may withdraw.
	_, err = f.db.WithdrawChangeRequest(ctx, f.approver.ID, retry.ID)
	wantCode(t, err, apperr.Forbidden)
	w, err := f.db.WithdrawChangeRequest(ctx, f.admin.ID, retry.ID)
	if err != nil || w.Status != StatusWithdrawn {
		t.Fatalf("withdraw = %+v, %v", w, err)
	}
	hist, err := f.db.ChangeRequests(ctx, ChangeRequestFilter{Decided: true})
	if err != nil || len(hist) != 2 {
		t.Fatalf("history = %d, %v; want 2", len(hist), err)
	}
	if d, _ := low.Diff(); len(d) != 1 || d[0].Before != "WRITE" || d[0].After != "READ" {
		t.Fatalf("lower-risk diff = %+v", d)
	}
}

// TestApprovalVoidWhenClassMoved: a request to expose a DESTRUCTIVE tool is
// void once the tool has become PRIVILEGED, even though its policy is the
// same: the approver would be approving a different risk than was asked.
func TestApprovalVoidWhenClassMoved(t *testing.T) {
	ctx := context.Background()
	f := newCRFixture(t)
	cr := f.exposeRequest(t, f.admin)
	if cr.ClassAtRequest != risk.Destructive {
		t.Fatalf("class at request = %s, want DESTRUCTIVE", cr.ClassAtRequest)
	}
	if err := f.db.RaiseToolClass(ctx, "admin@example.com", "orders_delete", risk.Privileged, "it deletes accounts too"); err != nil {
		t.Fatal(err)
	}
	got, err := f.db.ApproveChangeRequest(ctx, f.approver.ID, cr.ID, "fine")
	if err != nil {
		t.Fatal(err)
	}
	if got.Status != StatusVoid || !strings.Contains(got.VoidReason, "DESTRUCTIVE to PRIVILEGED") {
		t.Fatalf("approval after a class change = %+v, want void naming the classes", got)
	}
	if stored, _ := f.db.ToolPolicy(ctx, f.del.ToolID); stored.Policy.Exposed {
		t.Fatal("a void approval exposed the tool")
	}
}

// The Approvals badge counts only requests the approver may decide: not a
// request from the admin who created their account within the window.
func TestCountPendingForLeavesOutDependentRequests(t *testing.T) {
	ctx := context.Background()
	f := newCRFixture(t)
	created, err := f.db.CreateUser(ctx, f.adminApprover.Email,
		NewUser{Email: "new-approver@example.com", PasswordHash: "h", Roles: []auth.Role{auth.RoleApprover}})
	if err != nil {
		t.Fatal(err)
	}
	cr := f.exposeRequest(t, f.adminApprover)
	if n, _ := f.db.CountPendingFor(ctx, f.approver.ID); n != 1 {
		t.Fatalf("pending for an independent approver = %d, want 1", n)
	}
	if n, _ := f.db.CountPendingFor(ctx, created.ID); n != 0 {
		t.Fatalf("pending for the account the requester created = %d, want 0", n)
	}
	_, err = f.db.ApproveChangeRequest(ctx, created.ID, cr.ID, "")
	wantCode(t, err, apperr.Forbidden)
	f.db.Now = func() time.Time { return time.Now().Add(DefaultApproverIndependence + time.Hour) }
	if n, _ := f.db.CountPendingFor(ctx, created.ID); n != 1 {
		t.Fatalf("pending after the independence window = %d, want 1", n)
	}
}
