package e2e

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/playwright-community/playwright-go"

	"github.com/toolgate/toolgate/internal/cli"
	"github.com/toolgate/toolgate/internal/config"
	"github.com/toolgate/toolgate/internal/risk"
	"github.com/toolgate/toolgate/internal/store/storetest"
)

// TestPublishAndVerify: an admin sees the preview diff, publishes,
// downloads the bundle, and the file passes `toolgate bundle verify` with
// the exported keys; one flipped byte makes verify fail.
func TestPublishAndVerify(t *testing.T) {
	a := startApp(t)
	db := storetest.Open(t, config.DBPath(a.dataDir))
	storetest.MustAddTool(t, db, storetest.FixtureTool{Source: "orders", Origin: "https://api.example.com", Name: "list_orders",
		Method: "GET", Path: "/orders", Class: risk.Read, Exposed: true})
	must(t, db.Close())

	_, page := a.setupAdmin(t, desktop)

	must(t, page.GetByRole("link", playwright.PageGetByRoleOptions{Name: "Bundles"}).Click())
	visible(t, page.GetByTestId("tool-added").GetByText("list_orders"))
	shot(t, page, "01-preview")
	must(t, page.GetByLabel("Note (what changed and why)").Fill("first publish"))
	must(t, page.GetByRole("button", playwright.PageGetByRoleOptions{Name: "Publish"}).Click())
	visible(t, page.GetByTestId("current-version").GetByText("v1"))
	visible(t, page.GetByTestId("no-changes"))
	shot(t, page, "02-published")

	dl, err := page.ExpectDownload(func() error {
		return page.GetByTestId("history-row").First().GetByRole("link", playwright.LocatorGetByRoleOptions{Name: "Download v1"}).Click()
	})
	must(t, err)
	if dl.SuggestedFilename() != "toolgate-bundle-v1.jws" {
		t.Errorf("download named %q", dl.SuggestedFilename())
	}
	file := filepath.Join(t.TempDir(), dl.SuggestedFilename())
	must(t, dl.SaveAs(file))

	keys := filepath.Join(t.TempDir(), "keys.jwks")
	run := func(args ...string) (string, error) {
		var out strings.Builder
		err := cli.Run(context.Background(), args, a.env, strings.NewReader(""), &out, &out)
		return out.String(), err
	}
	if out, err := run("keys", "export", "--out", keys); err != nil {
		t.Fatalf("keys export: %v %s", err, out)
	}
	if out, err := run("bundle", "verify", "--key", keys, file); err != nil || !strings.Contains(out, "valid: version 1, 1 tools") {
		t.Fatalf("verify of the downloaded bundle: %v %s", err, out)
	}
	b, err := os.ReadFile(file)
	must(t, err)
	i := strings.IndexByte(string(b), '.') + 10 // a byte inside the payload
	b[i] ^= 0x01
	must(t, os.WriteFile(file, b, 0o644))
	if _, err := run("bundle", "verify", "--key", keys, file); cli.ExitCode(err, &strings.Builder{}) != 1 {
		t.Fatalf("verify of a flipped byte: %v, want exit 1", err)
	}
}
