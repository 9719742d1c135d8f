package store

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/toolgate/toolgate/internal/auth"
)

// TestAdminSetPasswordOpensOneSession: a password an admin chose in the
// console opens one session and then no more, until the person sets their
// own; host-made accounts and people's own passwords are not concerned.
func TestAdminSetPasswordOpensOneSession(t *testing.T) {
	ctx := context.Background()
	db := MustOpen(t)
	admin := mustUser(t, db, "admin@example.com", auth.RoleAdmin)
	if admin.MustSetPassword {
		t.Fatal("an account added on the host must set a password")
	}
	p := SessionPolicy{Idle: time.Hour, Absolute: time.Hour}
	login := func(u *User) error {
		t.Helper()
		_, err := db.Login(ctx, u, "192.0.2.1", p)
		return err
	}
	u := consoleUser(t, db, admin, "new@example.com", auth.RoleViewer)
	if !u.MustSetPassword {
		t.Fatal("an account added in the console keeps the admin's password")
	}
	if err := login(u); err != nil {
		t.Fatalf("first sign-in: %v", err)
	}
	if err := login(u); !errors.Is(err, ErrInitialPasswordUsed) {
		t.Fatalf("second sign-in with the admin's password: %v, want ErrInitialPasswordUsed", err)
	}
	if err := db.SetUserPassword(ctx, PasswordChange{Actor: u.Email, UserID: u.ID, Hash: "own"}); err != nil {
		t.Fatal(err)
	}
	if got, _ := db.UserByID(ctx, u.ID); got.MustSetPassword {
		t.Fatal("must still set a password after setting one")
	}
	for range 2 {
		if err := login(u); err != nil {
			t.Fatalf("sign-in with an own password: %v", err)
		}
	}

	// A reset by an admin is theirs again; a reset of one's own is not.
	if err := db.SetUserPassword(ctx, PasswordChange{Actor: admin.Email, UserID: u.ID, Hash: "reset", Reset: true}); err != nil {
		t.Fatal(err)
	}
	if got, _ := db.UserByID(ctx, u.ID); !got.MustSetPassword {
		t.Fatal("a password an admin reset need not be changed")
	}
	if err := db.SetUserPassword(ctx, PasswordChange{Actor: admin.Email, UserID: admin.ID, Hash: "mine", Reset: true}); err != nil {
		t.Fatal(err)
	}
	if got, _ := db.UserByID(ctx, admin.ID); got.MustSetPassword {
		t.Fatal("an admin resetting their own password must set it again")
	}
}
