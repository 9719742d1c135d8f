package e2e

import (
	"context"
	"net/http"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/playwright-community/playwright-go"

	"github.com/toolgate/toolgate/internal/cli"
	"github.com/toolgate/toolgate/internal/testing/syncbuf"
)

// app is one running console with its own data directory.
type app struct {
	baseURL  string
	setupURL string // "" once setup is done
	dataDir  string
	env      func(string) string
}

var (
	runningAt = regexp.MustCompile(`toolgate is running at (\S+)`)
	setupLink = regexp.MustCompile(`First run: open (\S+) to create`)
)

// startApp runs `toolgate serve` on a free port through cli.Run, with
// extra flags if any, waits for /healthz, and stops it when the test ends.
func startApp(t *testing.T, extra ...string) *app {
	t.Helper()
	requireBrowser(t)
	a := &app{dataDir: t.TempDir()}
	a.env = func(k string) string {
		if k == "TOOLGATE_DATA_DIR" {
			return a.dataDir
		}
		return ""
	}
	ctx, cancel := context.WithCancel(context.Background())
	var out, logs syncbuf.Buffer
	done := make(chan error, 1)
	go func() {
		done <- cli.Run(ctx, append([]string{"serve", "--addr", "127.0.0.1:0"}, extra...), a.env, strings.NewReader(""), &out, &logs)
	}()
	t.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("serve: %v", err)
		}
		if t.Failed() {
			t.Logf("server log:\n%s", logs.String())
		}
	})
	for deadline := time.Now().Add(15 * time.Second); time.Now().Before(deadline); time.Sleep(25 * time.Millisecond) {
		if m := runningAt.FindStringSubmatch(out.String()); m != nil && a.baseURL == "" {
			a.baseURL = m[1]
			if s := setupLink.FindStringSubmatch(out.String()); s != nil {
				a.setupURL = s[1]
			}
		}
		if a.baseURL != "" {
			if resp, err := http.Get(a.baseURL + "/healthz"); err == nil {
				resp.Body.Close()
				if resp.StatusCode == http.StatusOK {
					return a
				}
			}
		}
	}
	t.Fatalf("server did not become healthy; stdout %q\nlog:\n%s", out.String(), logs.String())
	return nil
}

// newPage opens a page in a fresh browser context (its own cookies).
func (a *app) newPage(t *testing.T, size *playwright.Size) (playwright.BrowserContext, playwright.Page) {
	t.Helper()
	bc, err := browser.NewContext(playwright.BrowserNewContextOptions{BaseURL: playwright.String(a.baseURL), Viewport: size})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = bc.Close() })
	bc.SetDefaultTimeout(10000)
	page, err := bc.NewPage()
	if err != nil {
		t.Fatal(err)
	}
	return bc, page
}

// addUser adds a user through the CLI, as an operator would, and returns
// the password it chose.
func (a *app) addUser(t *testing.T, email string, roles ...string) string {
	t.Helper()
	const password = "e2e password 1234"
	args := []string{"user", "add", "--email", email, "--password-stdin"}
	for _, r := range roles {
		args = append(args, "--role", r)
	}
	var out strings.Builder
	if err := cli.Run(context.Background(), args, a.env, strings.NewReader(password+"\n"), &out, &out); err != nil {
		t.Fatalf("user add: %v\n%s", err, out.String())
	}
	return password
}

// setupAdmin opens a fresh page at size, creates the first admin through
// the one-time setup link and returns the page, signed in on the dashboard.
func (a *app) setupAdmin(t *testing.T, size *playwright.Size) (playwright.BrowserContext, playwright.Page) {
	t.Helper()
	bc, page := a.newPage(t, size)
	must(t, goTo(page, a.setupURL))
	fillSetup(t, page)
	visible(t, page.GetByTestId("dashboard"))
	return bc, page
}

// fillSetup fills and submits the setup form for admin@example.com.
func fillSetup(t *testing.T, page playwright.Page) {
	t.Helper()
	must(t, page.GetByLabel("Email").Fill("admin@example.com"))
	must(t, page.GetByLabel("Password", playwright.PageGetByLabelOptions{Exact: playwright.Bool(true)}).Fill(adminPassword))
	must(t, page.GetByLabel("Repeat Password").Fill(adminPassword))
	must(t, page.GetByRole("button", playwright.PageGetByRoleOptions{Name: "Create admin and sign in"}).Click())
}

// signIn returns a page signed in as email, on the dashboard.
func (a *app) signIn(t *testing.T, size *playwright.Size, email, password string) (playwright.BrowserContext, playwright.Page) {
	t.Helper()
	bc, page := a.newPage(t, size)
	must(t, goTo(page, "/login"))
	fillLogin(t, page, email, password)
	visible(t, page.GetByTestId("dashboard"))
	return bc, page
}

func fillLogin(t *testing.T, page playwright.Page, email, password string) {
	t.Helper()
	must(t, page.GetByLabel("Email").Fill(email))
	must(t, page.GetByLabel("Password", playwright.PageGetByLabelOptions{Exact: playwright.Bool(true)}).Fill(password))
	must(t, page.GetByRole("button", playwright.PageGetByRoleOptions{Name: "Sign in"}).Click())
}

func goTo(page playwright.Page, path string) error {
	_, err := page.Goto(path)
	return err
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

// visible waits until loc is visible, failing the test otherwise.
func visible(t *testing.T, loc playwright.Locator) {
	t.Helper()
	if err := playwright.NewPlaywrightAssertions(10000).Locator(loc).ToBeVisible(); err != nil {
		t.Fatal(err)
	}
}
