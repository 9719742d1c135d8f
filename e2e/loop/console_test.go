package loop

import (
	"io"
	"net/http"
	"net/url"
	"regexp"
	"testing"
)

const password = "correct horse battery staple"

var approveAction = regexp.MustCompile(`^/approvals/(\d+)/approve$`)

// consoleSide performs the people's steps in the console through its real
// HTTP endpoints, as three people at browsers: the first admin (setup link)
// who adds the others, ops (admin and approver) who imports, sets policies,
// publishes and issues the runtime token, and security (approver) who
// approves the risky exposure.
type consoleSide struct {
	t             *testing.T
	ops, security *browser
}

// people creates the first admin through the setup link, has them take the
// approver role (the bootstrap) and add ops on the Users page; security is
// added on the host (host runs `toolgate user add` against the console's
// database and returns its output), as the README's quickstart does: an
// approver the first admin added in the console would share a controller
// with ops and could not approve ops' requests for the independence window
// (R10). Both sign in on /login; ops, whose password the first admin chose,
// sets their own there.
func people(t *testing.T, consoleURL, setupLink string, host func(args ...string) string) consoleSide {
	t.Helper()
	first := newBrowser(t, consoleURL)
	first.open(setupLink).form(`^/setup$`).set("email", "admin@example.com").
		set("password", password).set("password_confirm", password).submit().must(http.StatusOK)
	// A fresh console has never had an approver, so its first admin may
	// give the role (the bootstrap, R10); they take it themselves so that
	// they can then add approvers.
	first.open("/users/1").form(`^/users/1/roles$`).set("role", "admin", "approver").submit().done("roles")
	first.open("/users/new").form(`^/users$`).set("email", "ops@example.com").set("role", "admin", "approver").
		set("password", password).set("password_confirm", password).submit().done("added")
	out := host("user", "add", "--email", "security@example.com", "--role", "approver")
	m := regexp.MustCompile(`(?m)^password: (\S+)$`).FindStringSubmatch(out)
	if m == nil {
		t.Fatalf("user add printed no password: %q", out)
	}
	c := consoleSide{t: t, ops: newBrowser(t, consoleURL), security: newBrowser(t, consoleURL)}
	c.login(c.ops, "ops@example.com", password)
	c.login(c.security, "security@example.com", m[1])
	return c
}

// login signs in on the sign-in page (a wrong password must not), setting
// an own password when the one given was an admin's.
func (c consoleSide) login(b *browser, email, given string) {
	c.t.Helper()
	b.open("/login").form(`^/login$`).set("email", email).set("password", "not the password").
		submit().must(http.StatusUnauthorized)
	p := b.open("/login").form(`^/login$`).set("email", email).set("password", given).submit().must(http.StatusOK)
	if p.url.Path == "/account/set-password" {
		own := given + " of my own"
		p = p.form(`^/account/set-password$`).set("password", own).set("password_confirm", own).submit().must(http.StatusOK)
	}
	if p.url.Path != "/" {
		c.t.Fatalf("%s signed in but landed on %s", email, p.url)
	}
}

// importSample uploads the sample API's own OpenAPI document on the
// Sources page, as a file.
func (c consoleSide) importSample(origin string) {
	c.t.Helper()
	doc := []byte(get(c.t, origin+"/openapi.yaml"))
	p := c.ops.open("/sources").form(`^/sources$`).set("name", "shop").set("origin", origin).
		attach("files", "openapi.yaml", doc).submit().done("imported")
	if p.url.Path != "/sources/shop" {
		c.t.Fatalf("import landed on %s", p.url)
	}
}

// policyForm is the policy editor's form of tool as the page renders it.
func (c consoleSide) policyForm(tool string) *form {
	c.t.Helper()
	return c.ops.open("/tools/" + tool + "/policy").form(`^/tools/` + tool + `/policy$`)
}

func (c consoleSide) expose(tool string) {
	c.t.Helper()
	c.policyForm(tool).set("exposed", "true").submit().done("saved")
}

func (c consoleSide) unexpose(tool string) {
	c.t.Helper()
	c.policyForm(tool).set("exposed").submit().done("saved")
}

// exposeApproved asks for the exposure of a risky tool with the explicit
// action (reason + typed name) and has security approve it. Ticking
// "exposed" in the editor must be refused, and so must the requester's own
// approval although ops holds the approver role (R10).
func (c consoleSide) exposeApproved(tool string) {
	c.t.Helper()
	c.policyForm(tool).set("exposed", "true").submit().must(http.StatusBadRequest)
	c.ops.open("/tools/"+tool+"/actions/expose").form(`/actions/expose$`).
		set("reason", "support agents delete test orders").set("confirm_name", tool).submit().done("requested")

	decide := c.security.open("/approvals").form(approveAction.String())
	id := approveAction.FindStringSubmatch(mustPath(c.t, decide.action))[1]
	if own := c.ops.open("/approvals").text("own-request"); own == "" {
		c.t.Fatal("the requester's approvals page does not say the request is their own")
	}
	// ops is shown no Approve button; posting one anyway, with a valid
	// CSRF token, must still be refused.
	selfApprove := &form{b: c.ops, action: decide.action, values: url.Values{"_csrf": {c.ops.open("/approvals").csrf()}}}
	selfApprove.submit().must(http.StatusForbidden)

	// Approve asks for a confirmation that shows what a runtime will do.
	confirm := decide.set("comment", "ok for the test tenant").submit().must(http.StatusOK)
	if confirm.text("worst-case") == "" {
		c.t.Fatal("the approval's confirmation step shows no worst case")
	}
	confirm.form(approveAction.String()).submit().done("approved")
	if c.ops.open("/tools/"+tool+"/policy").form(`^/tools/`+tool+`/policy$`).values.Get("exposed") != "true" {
		c.t.Fatalf("request %s approved but %s is not exposed", id, tool)
	}
}

// publish signs the next bundle from the preview the Bundles page loads
// (/bundles/next, the no-JavaScript fallback of its HTMX fragment).
func (c consoleSide) publish(note string) {
	c.t.Helper()
	c.ops.open("/bundles/next").form(`^/bundles$`).set("note", note).submit().done("published")
}

// token creates a runtime token on the Tokens page and reads it from the
// page, the only place it is ever shown.
func (c consoleSide) token(name string) string {
	c.t.Helper()
	return c.ops.open("/tokens").form(`^/tokens$`).set("name", name).submit().must(http.StatusOK).text("new-token-value")
}

func mustPath(t *testing.T, raw string) string {
	t.Helper()
	u, err := url.Parse(raw)
	if err != nil {
		t.Fatal(err)
	}
	return u.Path
}

// get returns the body of a GET that must answer 200.
func get(t *testing.T, u string) string {
	t.Helper()
	resp, err := http.Get(u)
	if err != nil {
		t.Fatalf("GET %s: %v", u, err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil || resp.StatusCode != http.StatusOK {
		t.Fatalf("GET %s: %d %v", u, resp.StatusCode, err)
	}
	return string(body)
}
