package cli

import (
	"context"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/toolgate/toolgate/internal/apperr"
	"github.com/toolgate/toolgate/internal/risk"
	"github.com/toolgate/toolgate/internal/store"
	"github.com/toolgate/toolgate/internal/store/storetest"
)

// TestUserAddIsAnOperatorAct: `toolgate user add` may give the approver
// role (an operator act on the host, audited as operator@host), and an
// account added at someone's request (--requested-by) cannot approve that
// person's requests.
func TestUserAddIsAnOperatorAct(t *testing.T) {
	dir := t.TempDir()
	migrateCLI(t, dir)
	env := map[string]string{"TOOLGATE_DATA_DIR": dir}
	add := func(args ...string) (string, error) {
		t.Helper()
		out, _, err := runCmd(t, env, "", append([]string{"user", "add"}, args...)...)
		return out, err
	}
	for _, args := range [][]string{
		{"--email", "boss@example.com", "--role", "admin", "--role", "approver"},
		{"--email", "helper@example.com", "--role", "approver", "--requested-by", "Boss@Example.com"},
		{"--email", "peer@example.com", "--role", "approver"},
	} {
		if out, err := add(args...); err != nil {
			t.Fatalf("user add %v: %q %v", args, out, err)
		}
	}
	_, err := add("--email", "x@example.com", "--role", "approver", "--requested-by", "nobody@example.com")
	if exitCode(err) != 1 || !strings.Contains(err.Error(), "nobody@example.com") {
		t.Errorf("unknown --requested-by: exit %d, %v", exitCode(err), err)
	}
	if _, err := add("--email", "operator@host", "--role", "viewer"); exitCode(err) != 1 || !strings.Contains(err.Error(), "reserved") {
		t.Errorf("the operator's name as an email: %v", err)
	}

	ctx := context.Background()
	db := storetest.Open(t, filepath.Join(dir, "toolgate.db"))
	entries, err := db.AuditEntries(ctx)
	if err != nil {
		t.Fatal(err)
	}
	var adds int
	for _, e := range entries {
		if e.Action == "user.add" {
			adds++
			if e.Actor != store.OperatorActor {
				t.Errorf("user.add audited as %q, want %q", e.Actor, store.OperatorActor)
			}
		}
	}
	if adds != 3 {
		t.Errorf("%d user.add entries, want 3 (refused adds leave none)", adds)
	}

	boss, err := db.UserByEmail(ctx, "boss@example.com")
	if err != nil {
		t.Fatal(err)
	}
	del := storetest.MustSeedTool(t, db, storetest.SeedTool{Name: "orders_delete", Method: "DELETE", Path: "/orders/{id}", Class: risk.Destructive})
	p := del.Policy
	p.Exposed = true
	cr, err := db.CreateChangeRequest(ctx, boss, store.NewChangeRequest{ToolID: del.ToolID, Kind: store.KindExposeRisky, Reason: "job", Policy: p})
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct{ email, want string }{
		{"helper@example.com", "operator@host created your account at the request of its requester boss@example.com"},
		{"peer@example.com", ""}, // last: it approves
	} {
		email, want := tc.email, tc.want
		u, err := db.UserByEmail(ctx, email)
		if err != nil {
			t.Fatal(err)
		}
		_, err = db.ApproveChangeRequest(ctx, u.ID, cr.ID, "")
		switch {
		case want == "" && err != nil:
			t.Errorf("%s, added by the operator for nobody, cannot approve: %v", email, err)
		case want != "" && (apperr.CodeOf(err) != apperr.Forbidden || !strings.Contains(apperr.MessageOf(err), want)):
			t.Errorf("%s approving: %v, want Forbidden saying %q", email, err, want)
		}
	}
}

// TestUserEnable: an admin who is not an approver can disable every
// approver but not re-enable one; `toolgate user enable` on the host can,
// audited as the operator's act.
func TestUserEnable(t *testing.T) {
	dir := t.TempDir()
	migrateCLI(t, dir)
	env := map[string]string{"TOOLGATE_DATA_DIR": dir}
	for _, args := range [][]string{
		{"--email", "admin@example.com", "--role", "admin"},
		{"--email", "sec@example.com", "--role", "approver"},
	} {
		if out, _, err := runCmd(t, env, "", append([]string{"user", "add"}, args...)...); err != nil {
			t.Fatalf("user add %v: %q %v", args, out, err)
		}
	}
	ctx := context.Background()
	db := openDataDir(t, dir)
	sec, err := db.UserByEmail(ctx, "sec@example.com")
	if err != nil {
		t.Fatal(err)
	}
	if err := db.SetUserDisabled(ctx, "admin@example.com", sec.ID, true); err != nil {
		t.Fatal(err)
	}
	if err := db.SetUserDisabled(ctx, "admin@example.com", sec.ID, false); apperr.CodeOf(err) != apperr.Forbidden {
		t.Fatalf("the admin re-enabled the approver: %v", err)
	}

	out, _, err := runCmd(t, env, "", "user", "enable", "--email", "Sec@Example.com")
	if err != nil || !strings.Contains(out, "sec@example.com is enabled again") {
		t.Fatalf("user enable: %q %v", out, err)
	}
	if u, _ := db.UserByEmail(ctx, "sec@example.com"); u.Disabled {
		t.Fatal("still disabled")
	}
	entries, _, err := db.QueryAudit(ctx, store.AuditFilter{Action: "user.enable"})
	if err != nil || len(entries) != 1 || entries[0].Actor != store.OperatorActor {
		t.Fatalf("audit %+v %v, want one user.enable by %s", entries, err, store.OperatorActor)
	}
	if out, _, err := runCmd(t, env, "", "user", "enable", "--email", "sec@example.com"); err != nil || !strings.Contains(out, "enabled already") {
		t.Errorf("enabling an enabled account: %q %v", out, err)
	}
	if _, _, err := runCmd(t, env, "", "user", "enable", "--email", "nobody@example.com"); exitCode(err) != 1 ||
		!strings.Contains(err.Error(), "no console user has the email nobody@example.com") {
		t.Errorf("unknown account: %v", err)
	}
	if _, _, err := runCmd(t, env, "", "user", "enable", "--email", "not an email"); exitCode(err) != 2 {
		t.Errorf("bad address: %v", err)
	}
}

// TestBreakGlassOffEndsSessions: unmarking a break-glass account ends the
// sessions it opened during the emergency.
func TestBreakGlassOffEndsSessions(t *testing.T) {
	dir := t.TempDir()
	migrateCLI(t, dir)
	env := map[string]string{"TOOLGATE_DATA_DIR": dir}
	if _, _, err := runCmd(t, env, "", "user", "add", "--email", "glass@example.com", "--role", "admin"); err != nil {
		t.Fatal(err)
	}
	if _, _, err := runCmd(t, env, "", "user", "break-glass", "--email", "glass@example.com"); err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	db := openDataDir(t, dir)
	glass, err := db.UserByEmail(ctx, "glass@example.com")
	if err != nil {
		t.Fatal(err)
	}
	policy := store.SessionPolicy{Idle: time.Hour, Absolute: time.Hour}
	token, err := db.Login(ctx, glass, "192.0.2.1", policy)
	if err != nil {
		t.Fatal(err)
	}
	out, _, err := runCmd(t, env, "", "user", "break-glass", "--email", "glass@example.com", "--off")
	if err != nil || !strings.Contains(out, "its sessions have been ended") {
		t.Fatalf("unmark: %q %v", out, err)
	}
	if _, _, err := db.SessionUser(ctx, token, policy); apperr.CodeOf(err) != apperr.Unauthorized {
		t.Fatalf("the emergency's session still works after --off: %v", err)
	}
}

// openDataDir opens the SQLite database of a data directory the commands
// wrote, closed when the test ends.
func openDataDir(t *testing.T, dir string) *store.DB {
	t.Helper()
	db, err := store.Open(context.Background(), filepath.Join(dir, "toolgate.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return db
}
