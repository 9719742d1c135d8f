package views

import (
	"testing"

	"github.com/toolgate/toolgate/internal/testing/htmlcheck"
)

// toolRows are two rows as web's tools list fills them: a READ tool and a
// hidden DESTRUCTIVE one whose imported summary carries markup.
var toolRows = []ToolRowVM{
	{Name: "pets_list", Source: "pets", Method: "GET", Path: "/pets", Summary: "List pets", Class: "READ",
		Reasons: []ToolReasonVM{{Code: "method.safe", Text: "GET is safe by method"}},
		Retry:   "GET · 2 attempts", RetryShort: "2×", Exposed: true},
	{Name: "pets_delete", Source: "pets", Method: "DELETE", Path: "/pets/{id}", Summary: evil, Deprecated: true,
		Class: "DESTRUCTIVE", Reasons: []ToolReasonVM{{Code: "method.delete", Text: "DELETE removes data"}, {Code: "verb.delete", Text: "the name says delete"}},
		Retry: "DELETE · 1 attempt", RetryShort: "off", Suspended: "risk class raised"},
}

func toolResults(canBulk bool) ToolResultsVM {
	sorts := map[string]ToolSortVM{}
	for _, c := range []string{"name", "method", "path", "class", "source"} {
		sorts[c] = ToolSortVM{Label: c, URL: "/tools?sort=" + c}
	}
	sorts["name"] = ToolSortVM{Label: "Tool", URL: "/tools?sort=name&dir=desc", Active: "ascending"}
	return ToolResultsVM{CSRF: csrf, Rows: toolRows, Total: 60, Page: 1, Pages: 2, NextURL: "/tools?page=2",
		Sorts: sorts, CanBulk: canBulk,
		Bulk: []BulkActionVM{{Value: "expose", Label: "Expose selected"}, {Value: "defaults", Label: "Apply project defaults"}}}
}

// TestToolsPage: the filter form is a GET form HTMX submits in place; the
// results table shows each tool's risk class beside its retry setting; the
// bulk form (admins) selects tools by labelled checkbox and posts with CSRF.
func TestToolsPage(t *testing.T) {
	m := ToolsView{Page: page("Tools"), Filter: ToolFilterVM{Class: "READ", Text: evil, Sort: "name"},
		Sources: []string{"pets"}, Methods: []string{"DELETE", "GET"}, Tags: []string{"pets"},
		Exposure: []string{"exposed", "hidden", "suspended", "removed"}, Classes: []string{"READ", "WRITE", "DESTRUCTIVE", "PRIVILEGED"},
		Results: toolResults(true)}
	wantPage(t, ToolsPage(m), "Tools",
		in("form[data-testid=tool-filters][method=get][action='/tools']", hasAttr("hx-target", "#tools-results"),
			in("input#filter-text[type=search]", hasAttr("value", evil)),
			in("details[data-testid=more-filters][open] #filter-count", hasText("(1)")),
			in("select#filter-class option[value=READ][selected]"), count("select#filter-exposure option", 5)),
		in("#tools-results[aria-live=polite] [data-testid=tools-count]", hasText("60 tools · page 1 of 2")),
		postForm("/tools/bulk", hasAttr("id", "bulk-form"), in("select#bulk-action option[value=expose]", hasText("Expose selected"))),
		count("[data-testid=tools-table] tbody tr[data-testid=tool-row]", 2),
		in("[data-testid=tool-row] input[type=checkbox][name=tool][value=pets_delete]", hasAttr("aria-label", "Select pets_delete")),
		in("th[aria-sort=ascending] a[href='/tools?sort=name&dir=desc']", hasAttr("hx-push-url", "true")),
		in("th.c-risk[aria-sort=none]"),
		in("[data-testid=tool-row]:has(a[href='/tools/pets_delete'])",
			in("[data-testid=tool-class].risk-DESTRUCTIVE", hasText("DESTRUCTIVE")),
			in("summary", hasAttr("title", "method.delete, verb.delete"), hasText("DESTRUCTIVE reasons")),
			in("[data-testid=tool-retry] span.retry", hasAttr("title", "DELETE · 1 attempt"), hasText("off"),
				in(".sr-only", hasText("(DELETE · 1 attempt)")), hasText("off (DELETE · 1 attempt)")),
			in(".badge.warn", hasText("suspended"), hasAttr("title", "risk class raised")),
			in(".badge.off", hasText("deprecated")),
			in("a.tool-name", hasAttr("title", "pets_delete — "+evil))),
		in("[data-testid=tool-row]:has(a[href='/tools/pets_list'])",
			in("[data-testid=tool-class]", hasText("READ")), in("[data-testid=tool-retry]", hasText("2×")), in(".badge.on", hasText("exposed"))),
		in("nav.pager a[data-testid=next-page][rel=next]", hasAttr("href", "/tools?page=2")), none("nav.pager a[rel=prev]"))
}

// TestToolsResults: viewers get no selection column; an empty result
// offers to clear the filters or to import, depending on Filtered.
func TestToolsResults(t *testing.T) {
	viewer := toolResults(false)
	wantFragment(t, ToolsResults(viewer), none("input[name=tool]"), none("select#bulk-action"), none("th.c-sel"),
		count("tr[data-testid=tool-row]", 2))
	wantFragment(t, ToolsResults(ToolResultsVM{CSRF: csrf, Filtered: true}),
		in("[data-testid=tools-empty] a[href='/tools']", hasText("Clear filters")), none("form#bulk-form"))
	wantFragment(t, ToolsResults(ToolResultsVM{CSRF: csrf}),
		in("[data-testid=tools-empty] a[href='/sources']", hasText("Import an API")))
}

// TestToolsResultsSwap: the HTMX answer carries the results and, out of
// band, the filter count and the sort the form shows.
func TestToolsResultsSwap(t *testing.T) {
	f := ToolFilterVM{Source: "pets", Method: "GET", Sort: "class", Desc: true}
	// The sort select replaces the page's, whose label stays: no label check.
	htmlcheck.Run(t, render(t, ToolsResultsSwap(toolResults(true), f)), csrfOnForms(),
		in("[data-testid=tools-count]"),
		in("span#filter-count[hx-swap-oob=true]", hasText("(2)")),
		in("select#filter-sort[hx-swap-oob=true] option[value=class][selected]"),
		in("span#filter-dir[hx-swap-oob=true] input[type=hidden][name=dir][value=desc]"))
}

// TestToolsBulkPage: the confirmation lists what changes and what is
// skipped and why, and re-posts the same selection; the report does not.
func TestToolsBulkPage(t *testing.T) {
	m := ToolsBulkView{Page: page("Expose selected"), Action: "expose", ActionTitle: "Expose selected",
		Changed:   []BulkLineVM{{Tool: "pets_list", Method: "GET", Class: "READ"}},
		Skipped:   []BulkLineVM{{Tool: "pets_delete", Method: "DELETE", Class: "DESTRUCTIVE", Why: "needs an explicit action " + evil}},
		Unchanged: []BulkLineVM{{Tool: "pets_get", Method: "GET", Class: "READ"}}, Back: "/tools?class=READ"}
	wantPage(t, ToolsBulkPage(m), "Expose selected: confirm",
		in("[data-testid=bulk-changed] li", hasText("pets_list"), in(".badge.risk-READ")),
		in("[data-testid=bulk-skipped] li", hasText("pets_delete"), hasText("needs an explicit action "+evil)),
		in("[data-testid=bulk-unchanged] li", hasText("pets_get")),
		in("h2", hasText("Will change (1)")),
		postForm("/tools/bulk/apply", in("input[type=hidden][name=action][value=expose]"),
			count("input[type=hidden][name=tool]", 1), in("input[name=tool][value=pets_list]"),
			in("button[type=submit]", hasText("Confirm: Expose selected"))),
		in("a[href='/tools?class=READ']", hasText("Back to the tools")))
	m.Applied = true
	wantPage(t, ToolsBulkPage(m), "Expose selected: done", none("form[action='/tools/bulk/apply']"), in("h2", hasText("Changed (1)")))
}
