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

// TestQueryOnlyPosts: a POST that only searches or retrieves changes no
// access whatever it reads about (members, tokens, an admin API); its
// response is still read for secrets, and a state-changing verb or a login
// step keeps it privileged.
func TestQueryOnlyPosts(t *testing.T) {
	for _, res := range []string{"/admin/members", "/v2/team-members", "/oauth2/tokens", "/users", "/identity/groups"} {
		for _, shape := range []struct{ suffix, id string }{
			{"/search", ""}, {"/bulk-retrieve", ""}, {"/introspect", ""}, {"", "searchThings"},
			{"/query", ""}, {"/lookup", "lookUpThings"}, {"", "RetrieveThings"},
		} {
			path := res + shape.suffix
			t.Run(path+" "+shape.id, func(t *testing.T) {
				meta := []string{"items[].id", "items[].created_at"}
				if a := Classify(withFields(op("POST", path, shape.id, ""), meta, []string{"token", "filter"}, nil)); a.Class != Write {
					t.Errorf("POST %s %s: %s %v, want WRITE (a query, not an access change)", path, shape.id, a.Class, a.Codes())
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
