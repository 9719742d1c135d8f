package store

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/toolgate/toolgate/internal/apperr"
	"github.com/toolgate/toolgate/internal/audit"
	"github.com/toolgate/toolgate/internal/auth"
)

func mustUser(t *testing.T, db *DB, email string, roles ...auth.Role) *User {
	t.Helper()
	u, err := db.CreateUser(context.Background(), "test", NewUser{Email: email, PasswordHash: "h", Roles: roles})
	if err != nil {
		t.Fatalf("CreateUser(%s): %v", email, err)
	}
	return u
}

func wantCode(t *testing.T, err error, code string) {
	t.Helper()
	if got := apperr.CodeOf(err); got != code {
		t.Fatalf("error %v has code %q, want %q", err, got, code)
	}
}

func TestMigrateIsIdempotentAndCurrent(t *testing.T) {
	ctx := context.Background()
	db, _ := mustOpenUnmigrated(t, engineUnderTest())
	if db.MigrationsCurrent(ctx) == nil {
		t.Fatal("empty database reported as current")
	}
	applied, err := db.Migrate(ctx)
	if err != nil || len(applied) == 0 || applied[0] != 1 {
		t.Fatalf("first Migrate = %v, %v", applied, err)
	}
	if applied, err = db.Migrate(ctx); err != nil || len(applied) != 0 {
		t.Fatalf("second Migrate applied %v, %v; want nothing", applied, err)
	}
	if err := db.MigrationsCurrent(ctx); err != nil {
		t.Fatalf("MigrationsCurrent after Migrate: %v", err)
	}
}

func TestUsers(t *testing.T) {
	ctx := context.Background()
	db := MustOpen(t)
	admin := mustUser(t, db, " Admin@Example.com ", auth.RoleAdmin)
	if admin.Email != "admin@example.com" || !admin.Has(auth.RoleAdmin) || admin.Has(auth.RoleViewer) {
		t.Fatalf("created %+v", admin)
	}
	t.Run("duplicate email is a conflict", func(t *testing.T) {
		_, err := db.CreateUser(ctx, "test", NewUser{Email: "ADMIN@example.com", PasswordHash: "h", Roles: []auth.Role{auth.RoleViewer}})
		wantCode(t, err, apperr.Conflict)
	})
	t.Run("bad email is invalid", func(t *testing.T) {
		_, err := db.CreateUser(ctx, "test", NewUser{Email: "nope", PasswordHash: "h", Roles: []auth.Role{auth.RoleViewer}})
		wantCode(t, err, apperr.Invalid)
	})
	t.Run("no role is invalid", func(t *testing.T) {
		_, err := db.CreateUser(ctx, "test", NewUser{Email: "x@example.com", PasswordHash: "h"})
		wantCode(t, err, apperr.Invalid)
	})
	t.Run("lookup", func(t *testing.T) {
		u, err := db.UserByEmail(ctx, "ADMIN@example.com")
		if err != nil || u.ID != admin.ID {
			t.Fatalf("UserByEmail = %+v, %v", u, err)
		}
		_, err = db.UserByEmail(ctx, "ghost@example.com")
		wantCode(t, err, apperr.NotFound)
		_, err = db.UserByID(ctx, 999)
		wantCode(t, err, apperr.NotFound)
	})
	t.Run("last admin is protected", func(t *testing.T) {
		wantCode(t, db.SetUserRoles(ctx, "test", admin.ID, []auth.Role{auth.RoleViewer}), apperr.Conflict)
		wantCode(t, db.SetUserDisabled(ctx, "test", admin.ID, true), apperr.Conflict)
		u, _ := db.UserByID(ctx, admin.ID)
		if !u.Has(auth.RoleAdmin) || u.Disabled {
			t.Fatalf("refused change was applied: %+v", u)
		}
	})
	t.Run("roles and disable", func(t *testing.T) {
		v := mustUser(t, db, "v@example.com", auth.RoleViewer)
		if err := db.SetUserRoles(ctx, "test", v.ID, []auth.Role{auth.RoleApprover, auth.RoleViewer}); err != nil {
			t.Fatal(err)
		}
		if err := db.SetUserDisabled(ctx, "test", v.ID, true); err != nil {
			t.Fatal(err)
		}
		u, _ := db.UserByID(ctx, v.ID)
		if !u.Disabled || !u.Has(auth.RoleApprover) {
			t.Fatalf("after changes: %+v", u)
		}
	})
	list, err := db.ListUsers(ctx)
	if err != nil || len(list) != 2 || list[0].Email != "admin@example.com" {
		t.Fatalf("ListUsers = %v, %v", list, err)
	}
}

func TestCreateFirstAdminOnlyOnce(t *testing.T) {
	ctx := context.Background()
	db := MustOpen(t)
	var wg sync.WaitGroup
	errs := make([]error, 4)
	for i := range errs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			_, errs[i] = db.CreateFirstAdmin(ctx, "a"+string(rune('0'+i))+"@example.com", "h")
		}()
	}
	wg.Wait()
	ok := 0
	for _, err := range errs {
		if err == nil {
			ok++
		} else {
			wantCode(t, err, apperr.Conflict)
		}
	}
	if n, _ := db.CountUsers(ctx); ok != 1 || n != 1 {
		t.Fatalf("%d setups succeeded, %d users exist; want exactly one", ok, n)
	}
}

func TestSessions(t *testing.T) {
	ctx := context.Background()
	db := MustOpen(t)
	now := time.Date(2025, 6, 1, 12, 0, 0, 0, time.UTC)
	db.Now = func() time.Time { return now }
	p := SessionPolicy{Idle: 30 * time.Minute, Absolute: 2 * time.Hour}
	u := mustUser(t, db, "a@example.com", auth.RoleAdmin)
	other := mustUser(t, db, "b@example.com", auth.RoleAdmin)

	login := func(u *User) string {
		t.Helper()
		tok, err := db.Login(ctx, u, "127.0.0.1", p)
		if err != nil {
			t.Fatal(err)
		}
		return tok
	}
	t.Run("new token each login", func(t *testing.T) {
		if first, second := login(u), login(u); first == second {
			t.Fatal("two logins returned the same token")
		}
	})
	t.Run("idle expiry and touch", func(t *testing.T) {
		tok := login(u)
		now = now.Add(20 * time.Minute)
		if got, _, err := db.SessionUser(ctx, tok, p); err != nil || got.ID != u.ID {
			t.Fatalf("SessionUser = %v, %v", got, err)
		}
		now = now.Add(20 * time.Minute) // 40 min after login but 20 after last use
		if _, _, err := db.SessionUser(ctx, tok, p); err != nil {
			t.Fatalf("touched session expired: %v", err)
		}
		now = now.Add(31 * time.Minute)
		_, _, err := db.SessionUser(ctx, tok, p)
		wantCode(t, err, apperr.Unauthorized)
	})
	t.Run("absolute expiry", func(t *testing.T) {
		tok := login(u)
		for range 5 {
			now = now.Add(25 * time.Minute)
			_, _, _ = db.SessionUser(ctx, tok, p)
		}
		_, _, err := db.SessionUser(ctx, tok, p)
		wantCode(t, err, apperr.Unauthorized)
	})
	t.Run("logout ends it", func(t *testing.T) {
		tok := login(u)
		if err := db.Logout(ctx, tok, u); err != nil {
			t.Fatal(err)
		}
		_, _, err := db.SessionUser(ctx, tok, p)
		wantCode(t, err, apperr.Unauthorized)
	})
	t.Run("password change ends other sessions", func(t *testing.T) {
		keep, drop := login(u), login(u)
		if err := db.SetUserPassword(ctx, PasswordChange{Actor: u.Email, UserID: u.ID, Hash: "h2", KeepSessionToken: keep}); err != nil {
			t.Fatal(err)
		}
		if _, _, err := db.SessionUser(ctx, keep, p); err != nil {
			t.Errorf("kept session ended: %v", err)
		}
		_, _, err := db.SessionUser(ctx, drop, p)
		wantCode(t, err, apperr.Unauthorized)
	})
	t.Run("disable ends sessions", func(t *testing.T) {
		tok := login(other)
		if err := db.SetUserDisabled(ctx, u.Email, other.ID, true); err != nil {
			t.Fatal(err)
		}
		_, _, err := db.SessionUser(ctx, tok, p)
		wantCode(t, err, apperr.Unauthorized)
	})
}

func TestAuditChain(t *testing.T) {
	ctx := context.Background()
	db := MustOpen(t)
	u := mustUser(t, db, "a@example.com", auth.RoleAdmin)
	v := mustUser(t, db, "v@example.com", auth.RoleViewer)
	if err := db.SetUserRoles(ctx, u.Email, v.ID, []auth.Role{auth.RoleApprover}); err != nil {
		t.Fatal(err)
	}
	if err := db.RecordLoginFailure(ctx, "ghost@example.com", "10.0.0.1", "unknown"); err != nil {
		t.Fatal(err)
	}
	// A refused change leaves no audit entry.
	_ = db.SetUserRoles(ctx, u.Email, u.ID, []auth.Role{auth.RoleViewer})

	entries, err := db.AuditEntries(ctx)
	if err != nil {
		t.Fatal(err)
	}
	var actions []string
	for _, e := range entries {
		actions = append(actions, e.Action)
	}
	if got, want := len(actions), 4; got != want {
		t.Fatalf("audit actions %v, want %d", actions, want)
	}
	if e := entries[2]; e.Action != "user.roles" || e.Before != `{"disabled":false,"email":"v@example.com","roles":["viewer"]}` ||
		e.After != `{"disabled":false,"email":"v@example.com","roles":["approver"]}` {
		t.Errorf("roles entry = %+v", e)
	}
	if n, err := db.VerifyAudit(ctx); err != nil || n != 4 {
		t.Fatalf("VerifyAudit = %d, %v", n, err)
	}

	t.Run("append-only", func(t *testing.T) {
		_, err := db.db.ExecContext(ctx, `UPDATE audit_log SET actor = 'x' WHERE id = 2`)
		if err == nil {
			t.Fatal("UPDATE of audit_log succeeded")
		}
	})
	t.Run("tamper detected", func(t *testing.T) {
		tamper(t, db, 3, "mallory@example.com")
		_, err := db.VerifyAudit(ctx)
		var be *audit.BrokenError
		if !errors.As(err, &be) || be.ID != 3 {
			t.Fatalf("VerifyAudit = %v, want entry 3 broken", err)
		}
	})
}
