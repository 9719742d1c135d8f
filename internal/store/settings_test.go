package store

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/toolgate/toolgate/internal/apperr"
	"github.com/toolgate/toolgate/internal/audit"
	"github.com/toolgate/toolgate/internal/auth"
	"github.com/toolgate/toolgate/internal/risk"
)

func TestProjectDefaults(t *testing.T) {
	ctx := context.Background()
	db := MustOpen(t)
	cur, err := db.ProjectDefaults(ctx)
	if err != nil || cur.Version != 0 {
		t.Fatalf("fresh defaults = %+v, %v; want built-in, version 0", cur, err)
	}
	d := cur.Defaults
	d.Safe.Attempts, d.ExposeNewReadTools = 3, true
	saved, err := db.SaveProjectDefaults(ctx, "admin@example.com", 0, d)
	if err != nil || saved.Version != 1 || saved.Defaults.Safe.Attempts != 3 {
		t.Fatalf("first save = %+v, %v", saved, err)
	}
	_, err = db.SaveProjectDefaults(ctx, "other@example.com", 0, cur.Defaults)
	var ce *DefaultsConflictError
	if !errors.As(err, &ce) || ce.Current.Version != 1 {
		t.Fatalf("stale save = %v, want a DefaultsConflictError at version 1", err)
	}
	bad := d
	bad.All.DeadlineMS = -1
	_, err = db.SaveProjectDefaults(ctx, "admin@example.com", 1, bad)
	wantCode(t, err, apperr.Invalid)
	if _, total, _ := db.QueryAudit(ctx, AuditFilter{Action: "defaults.change"}); total != 1 {
		t.Fatalf("defaults.change audited %d times, want 1", total)
	}
	// New tools start from the saved defaults.
	tool := MustSeedTool(t, db, SeedTool{Name: "list", Method: "GET", Path: "/l", Class: risk.Read})
	if !tool.Policy.Exposed || tool.Policy.Retry.Attempts != 3 {
		t.Fatalf("new READ tool policy %+v does not follow the saved defaults", tool.Policy)
	}
	states, err := db.ToolStates(ctx)
	if err != nil || len(states) != 1 || states[0].Method != "GET" {
		t.Fatalf("ToolStates = %+v, %v", states, err)
	}
}

func TestQueryAuditFilters(t *testing.T) {
	ctx := context.Background()
	db := MustOpen(t)
	clock := time.Date(2026, 3, 1, 10, 0, 0, 0, time.UTC)
	db.Now = func() time.Time { clock = clock.Add(time.Minute); return clock }
	mustUser(t, db, "a@example.com", auth.RoleViewer)
	tool := MustSeedTool(t, db, SeedTool{Name: "x", Method: "GET", Path: "/x", Class: risk.Read})
	p := tool.Policy
	p.TimeoutMS = 4000
	if _, err := db.SavePolicy(ctx, "Alice@Example.com", tool.ToolID, tool.Version, p); err != nil {
		t.Fatal(err)
	}
	all, _, err := db.QueryAudit(ctx, AuditFilter{})
	if err != nil || len(all) != 2 {
		t.Fatalf("QueryAudit = %d entries, %v", len(all), err)
	}
	edited := all[0].At // the newer entry
	tests := []struct {
		name string
		f    AuditFilter
		want []string // actions, newest first
	}{
		{"all", AuditFilter{}, []string{"policy.edit", "user.add"}},
		{"actor ignores case", AuditFilter{Actor: "alice@example.com"}, []string{"policy.edit"}},
		{"action prefix", AuditFilter{Action: "user."}, []string{"user.add"}},
		{"action exact", AuditFilter{Action: "user"}, nil},
		{"subject", AuditFilter{Subject: "tool:x"}, []string{"policy.edit"}},
		{"from", AuditFilter{From: edited}, []string{"policy.edit"}},
		{"to", AuditFilter{To: edited}, []string{"user.add"}},
		{"page", AuditFilter{Limit: 1, Offset: 1}, []string{"user.add"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, total, err := db.QueryAudit(ctx, tt.f)
			if err != nil {
				t.Fatal(err)
			}
			var actions []string
			for _, e := range got {
				actions = append(actions, e.Action)
			}
			if strings.Join(actions, ",") != strings.Join(tt.want, ",") {
				t.Errorf("actions %v, want %v", actions, tt.want)
			}
			if tt.f.Limit == 0 && total != len(tt.want) {
				t.Errorf("total %d, want %d", total, len(tt.want))
			}
		})
	}
	var exported []audit.Entry
	if err := db.EachAudit(ctx, AuditFilter{}, func(e audit.Entry) error { exported = append(exported, e); return nil }); err != nil {
		t.Fatal(err)
	}
	if len(exported) != 2 || exported[0].Action != "user.add" || audit.Verify(exported) != nil {
		t.Fatalf("export = %+v", exported)
	}
	if b, _ := json.Marshal(exported[1]); !strings.Contains(string(b), "policy.edit") {
		t.Fatalf("entry JSON %s", b)
	}
}
