package store

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/toolgate/toolgate/internal/apperr"
	"github.com/toolgate/toolgate/internal/risk"
)

func names(tools []ToolSummary) []string {
	out := make([]string, len(tools))
	for i, t := range tools {
		out[i] = t.Name
	}
	return out
}

func TestListTools(t *testing.T) {
	db := MustOpen(t)
	ctx := context.Background()
	mustImport(t, db, "pets", testDoc(t, "https://pets.example.com", petOps))
	mustImport(t, db, "zoo", testDoc(t, "https://zoo.example.com", petOps[:2]))
	setExposed(t, db, "listPets")
	tests := []struct {
		name string
		q    ToolQuery
		want []string
	}{
		{"all by name", ToolQuery{}, []string{"createPet", "deletePet", "getPet", "listPets", "zoo_createPet", "zoo_listPets"}},
		{"source", ToolQuery{Source: "zoo"}, []string{"zoo_createPet", "zoo_listPets"}},
		{"class", ToolQuery{Class: "destructive"}, []string{"deletePet"}},
		{"method", ToolQuery{Method: "post"}, []string{"createPet", "zoo_createPet"}},
		{"tag", ToolQuery{Tag: "pets", Source: "zoo"}, []string{"zoo_createPet", "zoo_listPets"}},
		{"unknown tag", ToolQuery{Tag: "nope"}, []string{}},
		{"exposed", ToolQuery{Exposure: "exposed"}, []string{"listPets"}},
		{"text in summary", ToolQuery{Text: "show"}, []string{"getPet"}},
		{"text wildcard is literal", ToolQuery{Text: "%"}, []string{}},
		{"sort by class desc", ToolQuery{Sort: "class", Desc: true, PerPage: 1}, []string{"deletePet"}},
		{"page 2", ToolQuery{PerPage: 4, Page: 2}, []string{"zoo_createPet", "zoo_listPets"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			page, err := db.ListTools(ctx, tt.q)
			if err != nil {
				t.Fatal(err)
			}
			if got := names(page.Tools); !slices.Equal(got, tt.want) {
				t.Errorf("got %v, want %v", got, tt.want)
			}
		})
	}
	page, err := db.ListTools(ctx, ToolQuery{PerPage: 2})
	if err != nil || page.Total != 6 || len(page.Tools) != 2 {
		t.Errorf("total %d, rows %d, %v", page.Total, len(page.Tools), err)
	}
	f, err := db.ListToolFacets(ctx)
	if err != nil || !slices.Equal(f.Sources, []string{"pets", "zoo"}) || !slices.Equal(f.Methods, []string{"DELETE", "GET", "POST"}) || !slices.Equal(f.Tags, []string{"pets"}) {
		t.Errorf("facets %+v, %v", f, err)
	}
}

func TestBulkTools(t *testing.T) {
	db := MustOpen(t)
	ctx := context.Background()
	mustImport(t, db, "pets", testDoc(t, "https://pets.example.com", petOps))
	all := []string{"listPets", "getPet", "createPet", "deletePet", "nosuch"}

	dry, err := db.BulkTools(ctx, "admin@x", BulkExpose, all, false)
	if err != nil {
		t.Fatal(err)
	}
	if got := outcomeNames(dry.Changed); !slices.Equal(got, []string{"listPets", "getPet", "createPet"}) {
		t.Errorf("would change %v", got)
	}
	if got := outcomeNames(dry.Skipped); !slices.Equal(got, []string{"deletePet", "nosuch"}) || !strings.Contains(dry.Skipped[0].Why, "R10") {
		t.Errorf("would skip %+v", dry.Skipped)
	}
	if mustTool(t, db, "listPets").Exposed || len(auditActions(t, db)) != 1 {
		t.Fatal("a dry run wrote something")
	}

	rep, err := db.BulkTools(ctx, "admin@x", BulkExpose, all, true)
	if err != nil || len(rep.Changed) != 3 {
		t.Fatalf("report %+v, %v", rep, err)
	}
	if mustTool(t, db, "deletePet").Exposed || !mustTool(t, db, "createPet").Exposed {
		t.Error("exposure wrong after bulk expose")
	}
	if got := auditActions(t, db); !slices.Contains(got, "policy.bulk_expose tool:createPet") || len(got) != 4 {
		t.Errorf("audit %v", got)
	}
	again, err := db.BulkTools(ctx, "admin@x", BulkExpose, []string{"listPets"}, true)
	if err != nil || len(again.Unchanged) != 1 {
		t.Errorf("second expose %+v, %v", again, err)
	}
	un, err := db.BulkTools(ctx, "admin@x", BulkUnexpose, all, true)
	if err != nil || len(un.Changed) != 3 || mustTool(t, db, "listPets").Exposed {
		t.Errorf("unexpose %+v, %v", un, err)
	}
	if _, err := db.BulkTools(ctx, "admin@x", "drop_all", all, true); apperr.CodeOf(err) != apperr.Invalid {
		t.Errorf("unknown action: %v", err)
	}
	if _, err := db.VerifyAudit(ctx); err != nil {
		t.Error(err)
	}
}

func TestBulkApplyDefaultsLeavesExplicitRetryAlone(t *testing.T) {
	db := MustOpen(t)
	ctx := context.Background()
	mustImport(t, db, "pets", testDoc(t, "https://pets.example.com", petOps))
	// An approved key on the POST and an odd timeout on the GET.
	c := mustTool(t, db, "createPet")
	p := c.Policy
	p.Retry.Attempts, p.IdempotencyKey = 3, nil
	p.Idempotent = true
	p.TimeoutMS = 1234
	if _, err := db.db.Exec(`UPDATE tool_policies SET policy_json = ? WHERE tool_id = ?`, auditJSON(p), c.ID); err != nil {
		t.Fatal(err)
	}
	rep, err := db.BulkTools(ctx, "admin@x", BulkDefaults, []string{"createPet", "listPets"}, true)
	if err != nil {
		t.Fatal(err)
	}
	after := mustTool(t, db, "createPet").Policy
	if !after.Idempotent || after.Retry.Attempts != 3 || after.TimeoutMS == 1234 {
		t.Errorf("apply defaults: %+v (report %+v)", after, rep)
	}
}

func outcomeNames(os []BulkOutcome) []string {
	out := make([]string, len(os))
	for i, o := range os {
		out[i] = o.Tool
	}
	return out
}

func TestRaiseToolClass(t *testing.T) {
	db := MustOpen(t)
	ctx := context.Background()
	mustImport(t, db, "pets", testDoc(t, "https://pets.example.com", petOps))
	setExposed(t, db, "getPet")
	tests := []struct {
		name, tool string
		to         risk.Class
		reason     string
		code       string
	}{
		{"no reason", "getPet", risk.Write, " ", apperr.Invalid},
		{"not higher", "deletePet", risk.Write, "x", apperr.Invalid},
		{"unknown tool", "nosuch", risk.Privileged, "x", apperr.NotFound},
		{"raise", "getPet", risk.Privileged, "returns API keys in the body", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if err := db.RaiseToolClass(ctx, "admin@x", tt.tool, tt.to, tt.reason); apperr.CodeOf(err) != tt.code {
				t.Errorf("err %v, want code %q", err, tt.code)
			}
		})
	}
	g := mustTool(t, db, "getPet")
	if g.Class != risk.Privileged || g.DetectedClass != risk.Read || g.RiskOverrideBy != "admin@x" || g.Exposed || g.SuspendedReason == "" {
		t.Errorf("getPet after raise: %+v", g)
	}
	// A re-import with the same verdict keeps the raise.
	mustImport(t, db, "pets", testDoc(t, "https://pets.example.com", petOps))
	if g := mustTool(t, db, "getPet"); g.Class != risk.Privileged || g.RiskOverrideReason == "" {
		t.Errorf("raise lost on re-import: %v %q", g.Class, g.RiskOverrideReason)
	}
	t.Run("an editor opened before a raise must reload", func(t *testing.T) {
		before, err := db.ToolPolicyByName(ctx, "listPets")
		if err != nil {
			t.Fatal(err)
		}
		if err := db.RaiseToolClass(ctx, "admin@x", "listPets", risk.Write, "lists owners too"); err != nil {
			t.Fatal(err)
		}
		edit := before.Policy
		edit.TimeoutMS++
		var conflict *PolicyConflictError
		if _, err := db.SavePolicy(ctx, "other@x", before.ToolID, before.Version, edit); !errors.As(err, &conflict) {
			t.Errorf("save at the version before the raise: %v, want a policy conflict", err)
		}
	})
	hist, _, err := db.QueryAudit(ctx, AuditFilter{Subject: SubjectTool("getPet"), Limit: 10})
	if err != nil || len(hist) != 2 || hist[0].Action != "tool.suspend" || hist[1].Action != "tool.raise_risk" {
		t.Errorf("history %+v, %v", hist, err)
	}
}
