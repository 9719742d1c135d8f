package cli

import (
	"context"
	"io"
	"net/http"
	"net/http/cookiejar"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/toolgate/toolgate/internal/testing/htmlcheck"
	"github.com/toolgate/toolgate/internal/testing/oidctest"
	"github.com/toolgate/toolgate/internal/testing/syncbuf"
)

// TestServeWithSingleSignOn runs `toolgate serve` with the OIDC flags
// against a real provider and signs in with a Go client and a cookie jar:
// the whole code flow through the real server.
func TestServeWithSingleSignOn(t *testing.T) {
	idp := oidctest.Start(t, oidctest.User{ID: "u-ann", Username: "ann", Password: "ann-pw", Email: "ann@example.com",
		EmailVerified: true, Groups: []string{"tg-approvers"}})
	dir := t.TempDir()
	secret := filepath.Join(dir, "oidc-secret")
	if err := os.WriteFile(secret, []byte("s3cret\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	var out, logs syncbuf.Buffer
	done := make(chan error, 1)
	go func() {
		done <- Run(ctx, []string{"serve", "--addr", "127.0.0.1:0", "--oidc-issuer", idp.Issuer, "--oidc-client-id", "toolgate",
			"--oidc-client-secret-file", secret, "--oidc-approver-groups", "tg-approvers", "--oidc-name", "Acme SSO",
			"--local-login=false"}, envOf(map[string]string{"TOOLGATE_DATA_DIR": dir}), strings.NewReader(""), &out, &logs)
	}()
	defer func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("serve: %v", err)
		}
	}()
	running := regexp.MustCompile(`running at (http://127\.0\.0\.1:\d+)`)
	var base string
	for deadline := time.Now().Add(10 * time.Second); base == "" && time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		if m := running.FindStringSubmatch(out.String()); m != nil {
			base = m[1]
		}
	}
	if base == "" {
		t.Fatalf("not running; stdout %q, logs %q", out.String(), logs.String())
	}
	idp.AddClient("toolgate", "s3cret", base+"/login/oidc/callback")
	htmlcheck.Run(t, get(t, http.DefaultClient, base+"/login"),
		htmlcheck.In(`a[data-testid="sso-sign-in"]`, htmlcheck.TextIs("Sign in with Acme SSO")),
		htmlcheck.In(`[data-testid="break-glass"] summary`, htmlcheck.TextIs("Break-glass sign-in")))
	jar, _ := cookiejar.New(nil)
	browser := &http.Client{Jar: jar, CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	resp, err := browser.Get(base + "/login/oidc")
	if err != nil || resp.StatusCode != http.StatusSeeOther {
		t.Fatalf("start: %v %v", resp, err)
	}
	resp.Body.Close()
	callback, err := idp.SignIn(resp.Header.Get("Location"), "ann", "ann-pw")
	if err != nil {
		t.Fatal(err)
	}
	browser.CheckRedirect = nil
	htmlcheck.Run(t, get(t, browser, callback.String()), htmlcheck.In(`[data-testid="dashboard"]`),
		htmlcheck.In(`[data-testid="account-link"]`, htmlcheck.TextIs("ann@example.com")))
	if strings.Contains(logs.String(), "s3cret") {
		t.Error("the client secret is in the log")
	}
}

func get(t *testing.T, c *http.Client, url string) string {
	t.Helper()
	resp, err := c.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return string(b)
}

func TestServeRejectsBadSingleSignOn(t *testing.T) {
	dir := t.TempDir()
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--local-login=false"}, "--oidc-issuer"},
		{[]string{"--oidc-issuer", "https://idp.example", "--oidc-client-id", "c", "--oidc-admin-groups", "a",
			"--oidc-client-secret-file", filepath.Join(dir, "missing")}, "--oidc-client-secret-file"},
		{[]string{"--oidc-issuer", "https://idp.example", "--oidc-client-id", "c", "--oidc-client-secret-file", "x"}, "no group"},
	} {
		_, _, err := runCmd(t, map[string]string{"TOOLGATE_DATA_DIR": dir}, "", append([]string{"serve", "--addr", "127.0.0.1:0"}, tc.args...)...)
		if exitCode(err) != 2 || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%v: %v, want exit 2 naming %s", tc.args, err, tc.want)
		}
	}
}

func TestUserBreakGlass(t *testing.T) {
	dir := t.TempDir()
	migrateCLI(t, dir)
	env := map[string]string{"TOOLGATE_DATA_DIR": dir}
	if _, _, err := runCmd(t, env, "", "user", "add", "--email", "glass@example.com", "--role", "admin"); err != nil {
		t.Fatal(err)
	}
	out, _, err := runCmd(t, env, "", "user", "break-glass", "--email", "Glass@Example.com")
	if err != nil || !strings.Contains(out, "glass@example.com is a break-glass account") {
		t.Fatalf("mark: %q %v", out, err)
	}
	out, _, err = runCmd(t, env, "", "user", "break-glass", "--email", "glass@example.com", "--off")
	if err != nil || !strings.Contains(out, "no longer") {
		t.Fatalf("unmark: %q %v", out, err)
	}
	if _, _, err := runCmd(t, env, "", "user", "break-glass", "--email", "nobody@example.com"); exitCode(err) != 1 {
		t.Fatalf("unknown account: %v", err)
	}
	if _, _, err := runCmd(t, env, "", "user", "break-glass", "--email", "not an email"); exitCode(err) != 2 {
		t.Fatalf("bad address: %v", err)
	}
}
