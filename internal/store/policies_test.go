package store

import (
	"context"
	"errors"
	"testing"

	"github.com/toolgate/toolgate/internal/apperr"
	"github.com/toolgate/toolgate/internal/policy"
	"github.com/toolgate/toolgate/internal/risk"
)

func TestSavePolicyOrdinaryEdit(t *testing.T) {
	ctx := context.Background()
	db := MustOpen(t)
	tool := MustSeedTool(t, db, SeedTool{Name: "orders_list", Method: "GET", Path: "/orders", Class: risk.Read})
	p := tool.Policy
	p.Exposed, p.TimeoutMS, p.Retry.Attempts = true, 2500, 3
	got, err := db.SavePolicy(ctx, "admin@example.com", tool.ToolID, tool.Version, p)
	if err != nil {
		t.Fatal(err)
	}
	if got.Version != tool.Version+1 || !policy.Equal(got.Policy, p) || got.UpdatedBy != "admin@example.com" {
		t.Fatalf("saved %+v", got)
	}
	entries, total, err := db.QueryAudit(ctx, AuditFilter{Subject: "tool:orders_list", Action: "policy.edit"})
	if err != nil || total != 1 || entries[0].Before != auditJSON(tool.Policy) || entries[0].After != auditJSON(p) {
		t.Fatalf("audit = %+v, %d, %v", entries, total, err)
	}
	// Saving the same values again writes nothing and keeps the version.
	again, err := db.SavePolicy(ctx, "admin@example.com", tool.ToolID, got.Version, p)
	if err != nil || again.Version != got.Version {
		t.Fatalf("no-op save: %+v %v", again, err)
	}
}

func TestSavePolicyConflictKeepsTheFirstSave(t *testing.T) {
	ctx := context.Background()
	db := MustOpen(t)
	tool := MustSeedTool(t, db, SeedTool{Name: "orders_update", Method: "PUT", Path: "/orders/{id}", Class: risk.Write})
	first, second := tool.Policy, tool.Policy
	first.TimeoutMS, second.DeadlineMS = 1000, 9000
	if _, err := db.SavePolicy(ctx, "a@example.com", tool.ToolID, tool.Version, first); err != nil {
		t.Fatal(err)
	}
	_, err := db.SavePolicy(ctx, "b@example.com", tool.ToolID, tool.Version, second)
	var ce *PolicyConflictError
	if !errors.As(err, &ce) || apperr.CodeOf(err) != apperr.Conflict {
		t.Fatalf("second save: %v, want a PolicyConflictError", err)
	}
	if ce.Current.Policy.TimeoutMS != 1000 || ce.Current.Version != tool.Version+1 {
		t.Fatalf("conflict carries %+v, want the first save", ce.Current)
	}
	stored, _ := db.ToolPolicy(ctx, tool.ToolID)
	if stored.Policy.TimeoutMS != 1000 || stored.Policy.DeadlineMS == 9000 {
		t.Fatalf("stored %+v: lost update", stored.Policy)
	}
	// Reapplying on top of the current version works.
	if _, err := db.SavePolicy(ctx, "b@example.com", tool.ToolID, ce.Current.Version, second); err != nil {
		t.Fatalf("reapply: %v", err)
	}
}

func TestSavePolicyRefusesExplicitChanges(t *testing.T) {
	ctx := context.Background()
	db := MustOpen(t)
	del := MustSeedTool(t, db, SeedTool{Name: "orders_delete", Method: "DELETE", Path: "/orders/{id}", Class: risk.Destructive})
	post := MustSeedTool(t, db, SeedTool{Name: "orders_create", Method: "POST", Path: "/orders", Class: risk.Write})
	key := &policy.IdempotencyKey{Header: "Idempotency-Key", Source: policy.KeyGenerated}
	tests := []struct {
		name   string
		tool   *PolicyRecord
		change func(*policy.Policy)
	}{
		{"expose a DESTRUCTIVE tool", del, func(p *policy.Policy) { p.Exposed = true }},
		{"assert idempotency of a POST", post, func(p *policy.Policy) { p.Idempotent = true }},
		{"configure a key on a POST", post, func(p *policy.Policy) { p.IdempotencyKey = key }},
		{"raise POST attempts (R2)", post, func(p *policy.Policy) { p.Retry.Attempts = 3 }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := tt.tool.Policy
			tt.change(&p)
			_, err := db.SavePolicy(ctx, "admin@example.com", tt.tool.ToolID, tt.tool.Version, p)
			if !errors.Is(err, ErrNeedsApproval) || apperr.CodeOf(err) != apperr.Invalid {
				t.Fatalf("SavePolicy = %v, want a refusal needing approval", err)
			}
			stored, _ := db.ToolPolicy(ctx, tt.tool.ToolID)
			if stored.Version != tt.tool.Version || !policy.Equal(stored.Policy, tt.tool.Policy) {
				t.Fatalf("refused change was stored: %+v", stored)
			}
		})
	}
	// Taking something away is ordinary: unexposing, fewer attempts.
	p := post.Policy
	p.Exposed = true // WRITE: ordinary
	if _, err := db.SavePolicy(ctx, "admin@example.com", post.ToolID, post.Version, p); err != nil {
		t.Fatalf("exposing a WRITE tool: %v", err)
	}
}

func TestSavePolicyValidates(t *testing.T) {
	db := MustOpen(t)
	tool := MustSeedTool(t, db, SeedTool{Name: "t", Method: "GET", Path: "/t", Class: risk.Read})
	p := tool.Policy
	p.TimeoutMS = 1
	_, err := db.SavePolicy(context.Background(), "a", tool.ToolID, tool.Version, p)
	var ve *policy.ValidationError
	if !errors.As(err, &ve) || ve.Fields[policy.FieldTimeoutMS] == "" || apperr.CodeOf(err) != apperr.Invalid {
		t.Fatalf("SavePolicy = %v, want a validation error on timeout_ms", err)
	}
	_, err = db.ToolPolicyByName(context.Background(), "nope")
	wantCode(t, err, apperr.NotFound)
}
