package risk

import (
	"fmt"
	"slices"
	"strings"
	"testing"
)

// TestNotificationSubscriptionsAreNotAccessChanges: subscribing to
// notifications is the owner's preference under every owner path, leaf
// shape and method; an identity object after the subscription, an admin
// API or a stored secret still raise it.
func TestNotificationSubscriptionsAreNotAccessChanges(t *testing.T) {
	owners := []string{"/users/{id}", "/v1/members/{member}", "/identities/{id}", "/teams/{t}/members/{m}",
		"/user", "/accounts/{a}/users/{u}", "/orgs/{org}/collaborators/{c}"}
	leaves := []string{"/notification-subscriptions", "/notifications/subscriptions", "/notification_subscriptions/{s}",
		"/notifications/subscribe", "/alerts/subscriptions", "/notifications", "/digest"}
	for _, owner := range owners {
		for _, leaf := range leaves {
			for _, method := range []string{"POST", "PUT", "PATCH"} {
				path := owner + leaf
				t.Run(fmt.Sprintf("%s %s", method, path), func(t *testing.T) {
					if a := Classify(op(method, path, "", "")); a.Class != Write {
						t.Errorf("%s %s: %s %v, want WRITE", method, path, a.Class, a.Codes())
					}
				})
			}
		}
	}
	for _, c := range []struct{ path, why string }{
		{"/users/{id}/roles", "a role is access"},
		{"/notifications/subscriptions/{s}/members", "members added after the subscription"},
		{"/admin/users/{id}/notification-subscriptions", "an admin API"},
		{"/groups/{g}/members", "no notification at all"},
	} {
		if a := Classify(op("POST", c.path, "", "")); a.Class != Privileged {
			t.Errorf("POST %s (%s): %s %v, want PRIVILEGED", c.path, c.why, a.Class, a.Codes())
		}
	}
	o := withFields(op("POST", "/users/{id}/notification-subscriptions", "", ""), nil, []string{"url", "signing_secret"}, nil)
	if a := Classify(o); a.Class != Privileged {
		t.Errorf("a subscription storing a signing secret: %s %v, want PRIVILEGED", a.Class, a.Codes())
	}
}

// TestQueryOnlyPosts: a POST that only searches or retrieves is a read
// whatever it reads about (members, tokens, an admin API), with the query
// verb as its reason; its response is still read for secrets, and a
// state-changing verb or a login step keeps it privileged.
func TestQueryOnlyPosts(t *testing.T) {
	for _, res := range []string{"/admin/members", "/v2/team-members", "/oauth2/tokens", "/users", "/identity/groups"} {
		for _, shape := range []struct{ suffix, id string }{
			{"/search", ""}, {"/bulk-retrieve", ""}, {"/introspect", ""}, {"", "searchThings"},
			{"/query", ""}, {"/lookup", "lookUpThings"}, {"", "RetrieveThings"},
		} {
			path := res + shape.suffix
			t.Run(path+" "+shape.id, func(t *testing.T) {
				meta := []string{"items[].id", "items[].created_at"}
				a := Classify(withFields(op("POST", path, shape.id, ""), meta, []string{"token", "filter"}, nil))
				if a.Class != Read || !slices.ContainsFunc(a.Codes(), func(c string) bool { return strings.HasPrefix(c, "query:") }) {
					t.Errorf("POST %s %s: %s %v, want READ for a query verb (a query, not a change)", path, shape.id, a.Class, a.Codes())
				}
				o := withFields(op("POST", path, shape.id, ""), []string{"items[].client_secret"}, nil, nil)
				if a := Classify(o); a.Class != Privileged {
					t.Errorf("POST %s returning a secret: %s %v, want PRIVILEGED", path, a.Class, a.Codes())
				}
			})
		}
	}
	for _, c := range []struct{ path, id string }{
		{"/users/search", "createUserSearchIndex"},
		{"/sys/mfa/validate", ""},
		{"/auth/token/lookup", ""}, // no response schema: the token itself may come back
		{"/admin/users/bulk-retrieve-and-update", ""},
	} {
		if a := Classify(op("POST", c.path, c.id, "")); a.Class != Privileged {
			t.Errorf("POST %s %s: %s %v, want PRIVILEGED", c.path, c.id, a.Class, a.Codes())
		}
	}
	// A state-changing verb anywhere in the name makes it a write again,
	// whichever query word is beside it; so does any other method.
	for _, c := range []struct{ method, path, id string }{
		{"POST", "/orders/search", "createSearch"},
		{"POST", "/orders/search-and-update", ""},
		{"POST", "/catalog/batch-retrieve", "upsertAndRetrieve"},
		{"PUT", "/orders/search", "searchOrders"},
		{"PATCH", "/v2/customers/bulk-retrieve", ""},
		// A plural names a collection to create in, not the verb.
		{"POST", "/saved-searches", ""},
		{"POST", "/projects/{id}/searches", ""},
		{"POST", "/estimates", ""},
		{"POST", "/lookups", "post-lookups"},
	} {
		if a := Classify(op(c.method, c.path, c.id, "")); a.Class != Write {
			t.Errorf("%s %s %s: %s %v, want WRITE", c.method, c.path, c.id, a.Class, a.Codes())
		}
	}
}

// TestDescribedSecrets: a read whose description says secrets come back
// is PRIVILEGED in every wording the rule names, whatever its path; a
// negation, a description saying they are withheld, a mutation (its own
// rules decide) and a secret-less sentence leave it alone.
func TestDescribedSecrets(t *testing.T) {
	paths := []string{"/notifications/discord", "/v1/settings", "/teams/{id}/integrations/{name}"}
	for _, d := range []string{
		"Encrypted secrets are only returned when the token has `read:sensitive`.",
		"Get the settings. Secrets are returned for admins.",
		"The secret value is included in the response.",
		"SECRET VALUES ARE ALSO SHOWN to the owner.",
		"Returns the hook. Its secret is exposed once.",
	} {
		for _, p := range paths {
			for _, m := range []string{"GET", "HEAD"} {
				o := op(m, p, "", "")
				o.Description = d
				if a := Classify(o); a.Class != Privileged || !slices.ContainsFunc(a.Codes(), func(c string) bool {
					return strings.HasPrefix(c, "description:")
				}) {
					t.Errorf("%s %s %q: %s %v, want PRIVILEGED by description", m, p, d, a.Class, a.Codes())
				}
			}
		}
	}
	for _, d := range []string{
		"Secrets are not returned.",
		"Secrets are never returned; use the reveal endpoint.",
		"This endpoint never returns secrets. Secrets are returned by /reveal.",
		"The proxy configuration is only returned when the token has read:sensitive.",
		"Password policies is returned.",
		"Lists secrets. Only names are returned.",
	} {
		o := op("GET", "/v1/settings", "", "")
		o.Description = d
		if a := Classify(o); a.Class != Read {
			t.Errorf("GET %q: %s %v, want READ", d, a.Class, a.Codes())
		}
	}
	o := op("PATCH", "/v1/settings", "", "")
	o.Description = "Update the settings. Secrets are returned."
	if a := Classify(o); slices.ContainsFunc(a.Codes(), func(c string) bool { return strings.HasPrefix(c, "description:") }) {
		t.Errorf("a mutation got the read rule: %v", a.Codes())
	}
}

// TestProxySettingsAreNotChannels: a path ending in proxy reads or
// changes a reverse proxy's settings on any owner and method; a path or a
// transport after it, or Kubernetes' connect action, is a channel.
func TestProxySettingsAreNotChannels(t *testing.T) {
	for _, owner := range []string{"/servers/{uuid}", "/v1/apps/{app}", "/sites/{id}/settings", ""} {
		for _, m := range []struct {
			method string
			want   Class
		}{{"GET", Read}, {"PATCH", Write}, {"PUT", Write}} {
			path := owner + "/proxy"
			if a := Classify(op(m.method, path, "", "")); a.Class != m.want {
				t.Errorf("%s %s: %s %v, want %s", m.method, path, a.Class, a.Codes(), m.want)
			}
		}
	}
	for _, path := range []string{"/api/v1/nodes/{name}/proxy/{path}", "/pods/{name}/proxy/ws", "/services/{s}/proxy/{path}"} {
		if a := Classify(op("GET", path, "", "")); a.Class != Privileged {
			t.Errorf("GET %s: %s %v, want PRIVILEGED (a channel)", path, a.Class, a.Codes())
		}
	}
	o := withExt(op("GET", "/api/v1/namespaces/{ns}/pods/{name}/proxy", "", ""), "x-kubernetes-action", `"connect"`)
	if a := Classify(o); a.Class != Privileged {
		t.Errorf("Kubernetes pod proxy: %s %v, want PRIVILEGED", a.Class, a.Codes())
	}
}

// TestSecuritySettingsByQualifier: a settings object qualified as security
// (session timeouts, security settings, login and IP allow-lists) is
// PRIVILEGED to change under any owner and method, in one segment or two;
// other settings are not, and reading them is no change.
func TestSecuritySettingsByQualifier(t *testing.T) {
	owners := []string{"/orgs/{org}", "/v2/accounts/{id}", "/workspace", "/tenants/{t}/console", ""}
	shapes := []string{"/session-timeout", "/security-settings", "/settings/security", "/session/settings",
		"/ip-allowlist", "/login-restrictions", "/sessionLifetime", "/password/requirements"}
	for _, owner := range owners {
		for _, shape := range shapes {
			for _, method := range []string{"PUT", "PATCH", "POST"} {
				path := owner + shape
				t.Run(method+" "+path, func(t *testing.T) {
					if a := Classify(op(method, path, "", "")); a.Class != Privileged {
						t.Errorf("%s %s: %s %v, want PRIVILEGED", method, path, a.Class, a.Codes())
					}
				})
			}
			if a := Classify(op("GET", owner+shape, "", "")); slices.ContainsFunc(a.Codes(), func(c string) bool { return strings.HasPrefix(c, "settings:") }) {
				t.Errorf("GET %s: %v; reading settings changes none", owner+shape, a.Codes())
			}
		}
		for _, other := range []string{"/settings/notifications", "/config", "/settings", "/billing/settings", "/ip-addresses"} {
			if a := Classify(op("PUT", owner+other, "", "")); a.Class != Write {
				t.Errorf("PUT %s: %s %v, want WRITE (not a security setting)", owner+other, a.Class, a.Codes())
			}
		}
	}
}
