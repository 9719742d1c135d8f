package cli

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/toolgate/toolgate/internal/apperr"
	"github.com/toolgate/toolgate/internal/risk"
	"github.com/toolgate/toolgate/internal/store"
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
	db, err := store.Open(ctx, filepath.Join(dir, "toolgate.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
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
	del := store.MustSeedTool(t, db, store.SeedTool{Name: "orders_delete", Method: "DELETE", Path: "/orders/{id}", Class: risk.Destructive})
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
