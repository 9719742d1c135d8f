package store

import (
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/toolgate/toolgate/internal/apperr"
	"github.com/toolgate/toolgate/internal/importer"
	"github.com/toolgate/toolgate/internal/policy"
	"github.com/toolgate/toolgate/internal/risk"
)

func TestImportSourceFirstTime(t *testing.T) {
	db := MustOpen(t)
	ctx := context.Background()
	// Even a project that exposes new READ tools never exposes the DELETE.
	d := policy.BuiltinDefaults()
	d.ExposeNewReadTools = true
	if _, err := db.db.Exec(`INSERT INTO settings (key, value_json, updated_at, updated_by) VALUES ('defaults', ?, '2026-01-01T00:00:00.000000000Z', 't')`, auditJSON(d)); err != nil {
		t.Fatal(err)
	}
	res := mustImport(t, db, "pets", testDoc(t, "https://pets.example.com/v1", petOps))
	if res.Plan.Count(importer.Added) != 4 || res.Source.Revision != 1 || res.Source.Origin != "https://pets.example.com" {
		t.Fatalf("result: %+v, source %+v", res.Plan, res.Source)
	}
	if res.Source.Counts[risk.Read] != 2 || res.Source.Counts[risk.Write] != 1 || res.Source.Counts[risk.Destructive] != 1 {
		t.Errorf("counts %v", res.Source.Counts)
	}
	for name, exposed := range map[string]bool{"listPets": true, "getPet": true, "createPet": false, "deletePet": false} {
		tool := mustTool(t, db, name)
		if tool.Exposed != exposed || tool.Policy.Exposed != exposed {
			t.Errorf("%s exposed %v, want %v", name, tool.Exposed, exposed)
		}
		if !slices.Equal(tool.Tags, []string{"pets"}) || tool.Source != "pets" || tool.Operation.OperationID != name {
			t.Errorf("%s: tags %v, source %s, op %q", name, tool.Tags, tool.Source, tool.Operation.OperationID)
		}
	}
	if del := mustTool(t, db, "deletePet"); del.Class != risk.Destructive || len(del.Reasons) == 0 || del.Reasons[0].Code != "method:DELETE" {
		t.Errorf("deletePet class %v reasons %+v", del.Class, del.Reasons)
	}
	if got := auditActions(t, db); !slices.Equal(got, []string{"source.import source:pets"}) {
		t.Errorf("audit %v", got)
	}
	if _, err := db.VerifyAudit(ctx); err != nil {
		t.Error(err)
	}
}

func TestReimportAppliesTheDiff(t *testing.T) {
	db := MustOpen(t)
	mustImport(t, db, "pets", testDoc(t, "https://pets.example.com", petOps))
	setExposed(t, db, "listPets")
	setExposed(t, db, "createPet")
	setExposed(t, db, "getPet")
	before := mustTool(t, db, "createPet").PolicyVersion

	next := []testOp{
		{"GET", "/pets", "listPets", "List pets", []string{"limit"}}, // parameters changed, still READ
		{"POST", "/pets", "createPet", "Purge a pet", nil},           // WRITE → DESTRUCTIVE
		{"DELETE", "/pets/{id}", "deletePet", "Delete a pet", nil},
		{"GET", "/owners", "listOwners", "List owners", nil}, // new
	} // getPet removed
	res := mustImport(t, db, "pets", testDoc(t, "https://pets.example.com", next))
	if got := []int{res.Plan.Count(importer.Added), res.Plan.Count(importer.Changed), res.Plan.Count(importer.Removed)}; !slices.Equal(got, []int{1, 2, 1}) {
		t.Fatalf("added/changed/removed %v", got)
	}
	if res.Source.Revision != 2 || res.Source.Removed != 1 {
		t.Errorf("source %+v", res.Source)
	}
	if l := mustTool(t, db, "listPets"); !l.Exposed || l.SuspendedReason != "" {
		t.Errorf("a parameter change must not suspend: %+v", l.ToolSummary)
	}
	c := mustTool(t, db, "createPet")
	if c.Exposed || c.Policy.Exposed || !strings.Contains(c.SuspendedReason, "WRITE to DESTRUCTIVE") || c.PolicyVersion != before+1 || c.Class != risk.Destructive {
		t.Errorf("createPet not suspended: %+v", c.ToolSummary)
	}
	g := mustTool(t, db, "getPet")
	if g.RemovedAt == nil || g.Exposed || g.SuspendedReason == "" {
		t.Errorf("getPet not kept as removed and unexposed: %+v", g.ToolSummary)
	}
	actions := auditActions(t, db)
	for _, want := range []string{"tool.suspend tool:createPet", "tool.suspend tool:getPet", "tool.reimport_change tool:listPets", "source.import source:pets"} {
		if !slices.Contains(actions, want) {
			t.Errorf("audit lacks %q: %v", want, actions)
		}
	}
	// Importing the same document again changes nothing but the revision.
	if again := mustImport(t, db, "pets", testDoc(t, "https://pets.example.com", next)); !again.Plan.Empty() {
		t.Errorf("second import not empty: %+v", again.Plan.Changes)
	}
}

func TestImportRefusals(t *testing.T) {
	db := MustOpen(t)
	ctx := context.Background()
	mustImport(t, db, "pets", testDoc(t, "https://pets.example.com", petOps))
	doc := testDoc(t, "", petOps)
	tests := []struct {
		name string
		in   SourceImport
		code string
		msg  string
	}{
		{"bad name", SourceImport{Name: "Pets!", Doc: doc}, apperr.Invalid, "source name"},
		{"no origin anywhere", SourceImport{Name: "other", Doc: doc}, apperr.Invalid, "no absolute server"},
		{"origin with a path", SourceImport{Name: "other", Doc: doc, Origin: "https://x.example/v1"}, apperr.Invalid, "no path"},
		{"stale preview", SourceImport{Name: "pets", Doc: doc, BaseRevision: 0}, apperr.Conflict, "revision 1"},
		{"new source previewed as existing", SourceImport{Name: "fresh", Doc: doc, Origin: "https://x.example", BaseRevision: 3}, apperr.Conflict, "revision 0"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := db.ImportSource(ctx, "tester", tt.in)
			if apperr.CodeOf(err) != tt.code || !strings.Contains(apperr.MessageOf(err), tt.msg) {
				t.Errorf("err %v, want %s containing %q", err, tt.code, tt.msg)
			}
		})
	}
	// Nothing of the refused imports was stored.
	if got := auditActions(t, db); len(got) != 1 {
		t.Errorf("audit %v", got)
	}
	if srcs, err := db.ListSources(ctx); err != nil || len(srcs) != 1 {
		t.Errorf("sources %d, %v", len(srcs), err)
	}
}

func TestImportKeepsStoredOriginAndNamesAcrossSources(t *testing.T) {
	db := MustOpen(t)
	ctx := context.Background()
	mustImport(t, db, "pets", testDoc(t, "https://pets.example.com", petOps))
	res, err := db.ImportSource(ctx, "tester", SourceImport{Name: "zoo", Origin: "https://zoo.example.com", Doc: testDoc(t, "", petOps)})
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, c := range res.Plan.Changes {
		names = append(names, c.Tool)
	}
	slices.Sort(names)
	if want := []string{"zoo_createPet", "zoo_deletePet", "zoo_getPet", "zoo_listPets"}; !slices.Equal(names, want) {
		t.Fatalf("names %v, want %v", names, want)
	}
	// Re-importing without an origin keeps the stored one, and the names.
	again := mustImport(t, db, "zoo", testDoc(t, "", petOps))
	if again.Source.Origin != "https://zoo.example.com" || !again.Plan.Empty() {
		t.Errorf("origin %q, plan %+v", again.Source.Origin, again.Plan.Changes)
	}
	if mustTool(t, db, "zoo_listPets").Source != "zoo" || mustTool(t, db, "listPets").Source != "pets" {
		t.Error("tools moved between sources")
	}
}
