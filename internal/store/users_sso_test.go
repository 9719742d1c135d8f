package store

import (
	"context"
	"slices"
	"testing"
	"time"

	"github.com/toolgate/toolgate/internal/apperr"
	"github.com/toolgate/toolgate/internal/auth"
)

const testIssuer = "https://idp.example"

var ssoPolicy = SessionPolicy{Idle: time.Hour, Absolute: time.Hour}

func ssoIn(sub, email string, roles ...auth.Role) SSOSignIn {
	return SSOSignIn{Provider: testIssuer, Subject: sub, Email: email, Roles: roles, Address: "192.0.2.1"}
}

// TestSignInSSOCreatesJustInTimeAndFollowsGroups: the first sign-in
// creates a managed account; later sign-ins replace its roles with what the
// groups say; no role left ends every session and refuses the sign-in.
func TestSignInSSOCreatesJustInTimeAndFollowsGroups(t *testing.T) {
	ctx := context.Background()
	db := MustOpen(t)
	mustUser(t, db, "admin@example.com", auth.RoleAdmin)
	u, tok, err := db.SignInSSO(ctx, ssoIn("sub-1", "Ann@Example.com", auth.RoleApprover, auth.RoleViewer), ssoPolicy)
	if err != nil {
		t.Fatal(err)
	}
	if !u.Managed() || u.Provider != testIssuer || u.Subject != "sub-1" || u.Email != "ann@example.com" || u.PasswordHash != "" ||
		!slices.Equal(u.Roles, []auth.Role{auth.RoleApprover, auth.RoleViewer}) {
		t.Fatalf("created %+v", u)
	}
	if _, _, err := db.SessionUser(ctx, tok, ssoPolicy); err != nil {
		t.Fatalf("session of the new account: %v", err)
	}
	// Groups changed at the provider: approver gone, viewer stays.
	u2, tok2, err := db.SignInSSO(ctx, ssoIn("sub-1", "ann@example.com", auth.RoleViewer), ssoPolicy)
	if err != nil {
		t.Fatal(err)
	}
	if u2.ID != u.ID || !slices.Equal(u2.Roles, []auth.Role{auth.RoleViewer}) {
		t.Fatalf("second sign-in: %+v", u2)
	}
	// The older session sees the new roles at once (roles are read per request).
	if su, _, err := db.SessionUser(ctx, tok, ssoPolicy); err != nil || su.Has(auth.RoleApprover) {
		t.Fatalf("old session after the role change: %+v, %v", su, err)
	}
	// In no mapped group: refused, roles and sessions gone.
	_, _, err = db.SignInSSO(ctx, ssoIn("sub-1", "ann@example.com"), ssoPolicy)
	if err != ErrNoSSORole {
		t.Fatalf("no role: %v", err)
	}
	for _, tk := range []string{tok, tok2} {
		if _, _, err := db.SessionUser(ctx, tk, ssoPolicy); apperr.CodeOf(err) != apperr.Unauthorized {
			t.Fatalf("session survived losing every role: %v", err)
		}
	}
	if got, _ := db.UserByID(ctx, u.ID); len(got.Roles) != 0 {
		t.Fatalf("roles after no group: %v", got.Roles)
	}
	acts := auditActions(t, db)
	for _, want := range []string{"user.add user:2", "login.success user:2", "user.roles user:2"} {
		if !slices.Contains(acts, want) {
			t.Errorf("audit lacks %s: %v", want, acts)
		}
	}
}

// TestSignInSSONeverTakesOverByEmail: an address a local account has is
// refused, and an unknown subject with no role creates nothing.
func TestSignInSSONeverTakesOverByEmail(t *testing.T) {
	ctx := context.Background()
	db := MustOpen(t)
	mustUser(t, db, "admin@example.com", auth.RoleAdmin)
	_, _, err := db.SignInSSO(ctx, ssoIn("sub-x", "admin@example.com", auth.RoleAdmin), ssoPolicy)
	wantCode(t, err, apperr.Conflict)
	if _, _, err := db.SignInSSO(ctx, ssoIn("sub-y", "y@example.com"), ssoPolicy); err != ErrNoSSORole {
		t.Fatalf("no role: %v", err)
	}
	if n, _ := db.CountUsers(ctx); n != 1 {
		t.Fatalf("%d users, want only the local admin", n)
	}
}

// TestManagedAccountsAreNotEditable: roles and password of a managed
// account are refused in the store; disabling it still works.
func TestManagedAccountsAreNotEditable(t *testing.T) {
	ctx := context.Background()
	db := MustOpen(t)
	admin := mustUser(t, db, "admin@example.com", auth.RoleAdmin, auth.RoleApprover)
	u, _, err := db.SignInSSO(ctx, ssoIn("sub-1", "ann@example.com", auth.RoleViewer), ssoPolicy)
	if err != nil {
		t.Fatal(err)
	}
	wantCode(t, db.SetUserRoles(ctx, admin.Email, u.ID, []auth.Role{auth.RoleApprover}), apperr.Invalid)
	wantCode(t, db.SetUserPassword(ctx, PasswordChange{Actor: admin.Email, UserID: u.ID, Hash: "h", Reset: true}), apperr.Invalid)
	if err := db.SetUserDisabled(ctx, admin.Email, u.ID, true); err != nil {
		t.Fatalf("disable a managed account: %v", err)
	}
	_, _, err = db.SignInSSO(ctx, ssoIn("sub-1", "ann@example.com", auth.RoleViewer), ssoPolicy)
	wantCode(t, err, apperr.Forbidden)
}

// TestSSORolesForbidConsoleApproverGrants: with single sign-on on, even an
// admin who is an approver cannot give the approver role in the console;
// the operator on the host still can.
func TestSSORolesForbidConsoleApproverGrants(t *testing.T) {
	ctx := context.Background()
	db := MustOpen(t)
	admin := mustUser(t, db, "admin@example.com", auth.RoleAdmin, auth.RoleApprover)
	viewer := mustUser(t, db, "viewer@example.com", auth.RoleViewer)
	db.SSOProvider = "Example IdP"
	wantCode(t, db.SetUserRoles(ctx, admin.Email, viewer.ID, []auth.Role{auth.RoleApprover}), apperr.Forbidden)
	_, err := db.CreateUser(ctx, admin.Email, NewUser{Email: "new@example.com", PasswordHash: "h", Roles: []auth.Role{auth.RoleApprover}})
	wantCode(t, err, apperr.Forbidden)
	if _, err := db.CreateUser(ctx, OperatorActor, NewUser{Email: "glass@example.com", PasswordHash: "h",
		Roles: []auth.Role{auth.RoleApprover}}); err != nil {
		t.Fatalf("operator on the host: %v", err)
	}
	// Roles other than approver stay editable for local accounts.
	if err := db.SetUserRoles(ctx, admin.Email, viewer.ID, []auth.Role{auth.RoleAdmin}); err != nil {
		t.Fatal(err)
	}
}

// TestBreakGlass: only local accounts can be marked; a marked account's
// sign-in is audited loudly and listed.
func TestBreakGlass(t *testing.T) {
	ctx := context.Background()
	db := MustOpen(t)
	local := mustUser(t, db, "glass@example.com", auth.RoleAdmin)
	managed, _, err := db.SignInSSO(ctx, ssoIn("sub-1", "ann@example.com", auth.RoleViewer), ssoPolicy)
	if err != nil {
		t.Fatal(err)
	}
	_, err = db.SetBreakGlass(ctx, OperatorActor, managed.Email, true)
	wantCode(t, err, apperr.Invalid)
	_, err = db.SetBreakGlass(ctx, OperatorActor, "nobody@example.com", true)
	wantCode(t, err, apperr.NotFound)
	u, err := db.SetBreakGlass(ctx, OperatorActor, local.Email, true)
	if err != nil || !u.BreakGlass {
		t.Fatalf("mark: %+v, %v", u, err)
	}
	before, _ := db.BreakGlassSignIns(ctx, time.Time{}, 10)
	if _, err := db.Login(ctx, u, "192.0.2.9", ssoPolicy); err != nil {
		t.Fatal(err)
	}
	got, err := db.BreakGlassSignIns(ctx, time.Time{}, 10)
	if err != nil || len(before) != 0 || len(got) != 1 || got[0].Actor != local.Email {
		t.Fatalf("break-glass sign-ins: before %v, after %v (%v)", before, got, err)
	}
}

// TestRecordSSOFailure keeps the reason and subject, never more.
func TestRecordSSOFailure(t *testing.T) {
	ctx := context.Background()
	db := MustOpen(t)
	if err := db.RecordSSOFailure(ctx, SSOFailure{Provider: testIssuer, Subject: "s", Address: "a", Reason: "nonce mismatch"}); err != nil {
		t.Fatal(err)
	}
	if acts := auditActions(t, db); !slices.Equal(acts, []string{"login.failure oidc:" + testIssuer}) {
		t.Fatalf("audit: %v", acts)
	}
}
