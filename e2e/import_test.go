package e2e

import (
	"path/filepath"
	"testing"

	"github.com/playwright-community/playwright-go"
)

// TestImportThroughTheBrowser is the Quickstart's console story (README): an admin uploads
// an API description, filters the tools to DESTRUCTIVE, opens one, and
// sees a risk reason next to the retry summary.
func TestImportThroughTheBrowser(t *testing.T) {
	a := startApp(t)
	_, page := a.setupAdmin(t, desktop)

	// Upload the document on the sources page.
	must(t, page.GetByRole("link", playwright.PageGetByRoleOptions{Name: "Sources"}).Click())
	must(t, page.GetByLabel("Source name").Fill("orders"))
	must(t, page.GetByLabel("Files").SetInputFiles(filepath.Join("testdata", "orders.yaml")))
	shot(t, page, "01-import-form")
	must(t, page.GetByRole("button", playwright.PageGetByRoleOptions{Name: "Import"}).Click())
	visible(t, page.GetByTestId("notice"))
	visible(t, page.GetByTestId("count-DESTRUCTIVE"))
	shot(t, page, "02-source")

	// Filter the tools to DESTRUCTIVE (HTMX swaps the results, the URL follows).
	must(t, page.GetByRole("link", playwright.PageGetByRoleOptions{Name: "Show its tools"}).Click())
	visible(t, page.GetByTestId("tools-table"))
	if _, err := page.GetByLabel("Risk class").SelectOption(playwright.SelectOptionValues{Values: &[]string{"DESTRUCTIVE"}}); err != nil {
		t.Fatal(err)
	}
	visible(t, page.GetByTestId("tools-count").GetByText("1 tools"))
	must(t, page.WaitForURL("**/tools?*class=DESTRUCTIVE*"))
	shot(t, page, "03-tools-destructive")

	// Open the tool: a reason is shown beside the retry summary.
	must(t, page.GetByRole("link", playwright.PageGetByRoleOptions{Name: "deleteOrder"}).Click())
	visible(t, page.GetByTestId("risk-reasons").GetByText("method:DELETE"))
	visible(t, page.GetByTestId("policy-summary").GetByText("DELETE · 1 attempt (not idempotent)"))
	shot(t, page, "04-tool-detail")
}
