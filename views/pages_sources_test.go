package views

import "testing"

// evilSource is a source whose imported title and names carry markup.
var evilSource = SourceRowVM{
	Name: "pets", Title: "Pets " + evil, SpecVersion: "3.1.0", Origin: "https://pets.example.com",
	Revision: 3, ImportedAt: "2026-11-30 10:00 UTC", ImportedBy: "ada@example.com",
	Counts: []RiskCountVM{{Class: "READ", N: 4}, {Class: "WRITE", N: 0}, {Class: "DESTRUCTIVE", N: 1}},
	Total:  5, Exposed: 2, Removed: 1,
}

// TestSourcesPage: the table links each source and its tools by class; the
// import form (admins) is a multipart POST with labelled fields; an empty
// project says what to do.
func TestSourcesPage(t *testing.T) {
	tests := []struct {
		name   string
		m      SourcesView
		checks []check
	}{
		{"admin with a source", SourcesView{Page: page("Sources"), Sources: []SourceRowVM{evilSource}, CanImport: true,
			Form: SourceFormVM{Name: "pets2", MaxMiB: 32}, Errors: []FormError{{Field: "", Message: "The document is not OpenAPI."}}}, []check{
			in("[data-testid=sources-table] tr[data-testid=source-row]", hasText("Pets "+evil), hasText("OpenAPI 3.1.0"),
				hasText("revision 3, 2026-11-30 10:00 UTC by ada@example.com")),
			in("[data-testid=source-row] a[href='/sources/pets']", hasText("pets")),
			in("[data-testid=source-row] a[href='/tools?source=pets']", hasText("5 tools")),
			in("a[data-testid=count-READ][href='/tools?source=pets&class=READ']", hasText("READ 4")),
			in("a[data-testid=count-DESTRUCTIVE].risk-DESTRUCTIVE", hasText("DESTRUCTIVE 1")),
			none("[data-testid=count-WRITE]"),
			in("form[data-testid=import-form][method=post][action='/sources'][enctype='multipart/form-data']",
				in("input#source-name[required]", hasAttr("value", "pets2"), hasAttr("aria-describedby", "source-name-hint")),
				in("input#source-origin"), in("input#source-files[type=file][multiple]"), in("textarea#source-paste[name=document]")),
			in("#source-files-hint", hasText("up to 32 MiB")),
			in("[data-testid=form-error]", hasText("The document is not OpenAPI.")),
		}},
		{"viewer, empty", SourcesView{Page: page("Sources")}, []check{
			in("[data-testid=no-sources]", hasText("An admin imports one")),
			none("[data-testid=sources-table]"), none("form[data-testid=import-form]"),
		}},
		{"admin, empty", SourcesView{Page: page("Sources"), CanImport: true}, []check{
			in("[data-testid=no-sources]", hasText("Import one below")), in("form[data-testid=import-form]"),
		}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) { wantPage(t, SourcesPage(tc.m), "Sources", tc.checks...) })
	}
}

// TestSourcePage: a source's facts, the last import's summary, warnings
// and skipped items as text, and the re-import form with the name fixed.
func TestSourcePage(t *testing.T) {
	m := SourceView{Page: page("pets"), Source: evilSource, BasePath: "/v1",
		Warnings:  []string{"operation " + evil + " has no operationId"},
		Skipped:   []SkippedVM{{Kind: "webhook", Name: "newPet", Method: "POST", Reason: "webhooks are not tools"}},
		Notice:    "Imported.",
		Summary:   &ImportSummaryVM{Added: 4, Changed: 1, Suspended: []string{"pets_delete"}},
		CanImport: true, Form: SourceFormVM{Name: "pets", Fixed: true, MaxMiB: 32}}
	wantPage(t, SourcePage(m), "pets",
		in("[data-testid=source] a.button[href='/tools?source=pets']"),
		in("[data-testid=notice]", hasText("Imported.")),
		in("[data-testid=import-summary]", hasText("4 added · 0 restored · 1 changed"), hasText("Exposure suspended for review: pets_delete")),
		in("dl.facts", hasText("Pets "+evil), hasText("/v1"), hasText("1 (kept as history)")),
		in("dl.facts a[data-testid=count-READ]"),
		in("[data-testid=import-warnings] li", hasText("operation "+evil+" has no operationId")),
		in("[data-testid=import-skipped] li", hasText("webhook newPet POST: webhooks are not tools")),
		in("form[data-testid=import-form]", in("input[type=hidden][name=name][value=pets]"), none("input#source-name")))
	viewer := SourceView{Page: page("pets"), Source: evilSource}
	wantPage(t, SourcePage(viewer), "pets", none("form[data-testid=import-form]"),
		none("[data-testid=import-warnings]"), none("[data-testid=import-summary]"))
}

// TestSourcePreviewPage: the re-import diff, one row per change with its
// class, field changes, definition diff and gaps; the Apply form carries the
// digest and base revision, and a required confirmation for each exposed
// tool whose definition changes.
func TestSourcePreviewPage(t *testing.T) {
	m := SourcePreviewView{Page: page("Re-import pets"), Source: "pets", Origin: "https://pets.example.com",
		BaseRevision: 3, Digest: "sha256:abc",
		Summary: ImportSummaryVM{Added: 1, Changed: 1, Removed: 1, Unchanged: 2},
		Changes: []ImportChangeVM{
			{Kind: "added", Tool: "pets_create", Method: "POST", Path: "/pets", Class: "WRITE", Gaps: []string{"body.owner ($ref unresolved)"}},
			{Kind: "changed", Tool: "pets_list", Method: "GET", Path: "/pets", Class: "READ",
				Fields: []ImportFieldVM{{Field: "summary", Before: "List", After: "List " + evil}},
				Definition: &DefinitionDiffVM{Parts: "description", Confirm: true, VoidPending: true,
					Description: []DiffLineVM{{Op: " ", Text: "Lists pets."}, {Gap: true}, {Op: "-", Text: "old"}, {Op: "+", Text: evil}}}},
			{Kind: "removed", Tool: "pets_delete", Method: "DELETE", Path: "/pets/{id}", Class: "DESTRUCTIVE", Suspend: "removed from the document"},
		},
		Error: "Confirm the new definition of pets_list to keep it exposed."}
	wantPage(t, SourcePreviewPage(m), "Re-import pets: review the changes",
		in("[data-testid=import-summary]", hasText("1 added · 0 restored · 1 changed · 1 removed · 2 unchanged")),
		count("[data-testid=import-diff] tbody tr", 3),
		in("tr[data-testid=diff-added]", hasText("pets_create"), in(".badge.risk-WRITE", hasText("WRITE")),
			in("[data-testid=schema-gaps]", hasText("body.owner ($ref unresolved)"))),
		in("tr[data-testid=diff-changed]", in("del", hasText("List")), in("ins", hasText("List "+evil)),
			in("[data-testid=definition-pets_list]", hasText("What agents read changes: description."),
				hasText("Any pending change request for this tool becomes void"),
				in("[data-testid=description-diff] del", hasText("- old")), in("[data-testid=description-diff] ins", hasText("+ "+evil)),
				in("[data-testid=description-diff] .gap"))),
		in("tr[data-testid=diff-removed]", in("[data-testid=suspend-notice]", hasText("removed from the document"))),
		in("[data-testid=apply-error][role=alert]", hasText("Confirm the new definition")),
		postForm("/sources/pets/apply", in("input[name=digest]", hasAttr("value", "sha256:abc")),
			in("input[name=base_revision]", hasAttr("value", "3")),
			in("[data-testid=confirm-pets_list] input[type=checkbox][name=confirm_definition][value=pets_list][required]"),
			count("input[name=confirm_definition]", 1)),
		in("a[href='/sources/pets']", hasText("Cancel")))
	empty := SourcePreviewView{Page: page("Re-import pets"), Source: "pets", BaseRevision: 3, Digest: "sha256:abc"}
	wantPage(t, SourcePreviewPage(empty), "Re-import pets", none("[data-testid=import-diff]"), none("[data-testid=apply-error]"),
		in("section", hasText("No operation changes.")), postForm("/sources/pets/apply"))
}
