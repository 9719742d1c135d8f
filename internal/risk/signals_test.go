package risk

import (
	"testing"

	"github.com/toolgate/toolgate/internal/openapi"
)

func withFields(o *openapi.Operation, resp, req []string, enums map[string][]string) *openapi.Operation {
	o.ResponseFields, o.RequestFields, o.RequestEnums = resp, req, enums
	return o
}

// TestGeneralSignals checks the general signals (rules version 2) on operations shaped like
// vendors that are not among the fixtures (Kubernetes, DigitalOcean,
// Stripe, GitHub), so the rules are held to what they mean rather than to
// the labelled rows.
func TestGeneralSignals(t *testing.T) {
	tests := []struct {
		name string
		op   *openapi.Operation
		want Class
		code string // a reason code that must be present ("" = none required)
	}{
		{"k8s exec GET", op("GET", "/api/v1/namespaces/{namespace}/pods/{name}/exec", "connectCoreV1GetNamespacedPodExec", ""),
			Privileged, "channel:exec"},
		{"k8s portforward", op("POST", "/api/v1/namespaces/{namespace}/pods/{name}/portforward", "connectPortforward", ""),
			Privileged, "channel:portforward"},
		{"k8s port-forward kebab", op("GET", "/pods/{name}/port-forward", "", ""), Privileged, "channel:portforward"},
		{"x-kubernetes-action connect", withExt(op("GET", "/api/v1/nodes/{name}/proxy/{path}", "", ""), "x-kubernetes-action", `"connect"`),
			Privileged, "channel:connect"},
		{"k8s cluster role bindings create", op("POST", "/apis/rbac.authorization.k8s.io/v1/clusterrolebindings", "createClusterRoleBinding", ""),
			Privileged, ""},
		{"k8s cluster role bindings list", op("GET", "/apis/rbac.authorization.k8s.io/v1/clusterrolebindings", "listClusterRoleBinding", ""),
			Read, ""},
		{"k8s mutating webhook create", op("POST", "/apis/admissionregistration.k8s.io/v1/mutatingwebhookconfigurations", "createMutatingWebhookConfiguration", ""),
			Privileged, ""},
		{"k8s CSR approval", op("PUT", "/apis/certificates.k8s.io/v1/certificatesigningrequests/{name}/approval", "replaceCertificateSigningRequestApproval", ""),
			Privileged, ""},
		{"droplet action power_off", withFields(op("POST", "/v2/droplets/{droplet_id}/actions", "dropletActions_post", "Initiate a Droplet Action"),
			nil, []string{"type"}, map[string][]string{"type": {"enable_backups", "reboot", "power_off", "rebuild", "rename"}}),
			Destructive, "action:type=power_off"},
		{"action enum without destructive value", withFields(op("POST", "/v2/volumes/{id}/actions", "volumeActions_post", ""),
			nil, []string{"type"}, map[string][]string{"type": {"attach", "resize"}}), Write, ""},
		{"stripe payout", op("POST", "/v1/payouts", "PostPayouts", "Create a payout"), Destructive, "money:payouts"},
		{"stripe payouts list", op("GET", "/v1/payouts", "GetPayouts", "List all payouts"), Read, ""},
		{"stripe external account", op("POST", "/v1/accounts/{account}/external_accounts", "PostAccountsAccountExternalAccounts", ""),
			Privileged, ""},
		{"stripe refund", op("POST", "/v1/refunds", "PostRefunds", "Create customer balance refund"), Destructive, ""},
		{"revoke oauth grant", op("DELETE", "/applications/{client_id}/grant", "apps/delete-authorization", ""), Privileged, ""},
		{"delete user sessions", op("DELETE", "/users/{id}/sessions", "deleteUserSessions", ""), Privileged, "revoke:sessions"},
		{"ssh keys glued, create", op("POST", "/account/sshkeys", "createSshKey", ""), Privileged, "credential:keys"},
		{"service token glued", op("POST", "/servicetoken", "", ""), Privileged, "credential:token"},
		{"2fa disable", op("POST", "/user/tfa/disable", "", ""), Privileged, "path:tfa"},
		{"openid configuration", op("GET", "/.well-known/openid-configuration", "discoverOidc", "OpenID Connect Discovery"), Read, ""},
		{"well-known jwks with private-looking schema", withFields(op("GET", "/.well-known/jwks.json", "", ""),
			[]string{"keys", "keys[].kty", "keys[].d"}, nil, nil), Read, ""},
		{"admin jwk read", withFields(op("GET", "/admin/keys/{set}", "getJsonWebKeySet", ""),
			[]string{"keys", "keys[].kty", "keys[].d", "keys[].n"}, nil, nil), Privileged, "response:keys[].d"},
		{"kubeconfig read", withFields(op("GET", "/v2/kubernetes/clusters/{id}/config", "getKubeconfig", ""),
			[]string{"kubeconfig"}, nil, nil), Privileged, "response:kubeconfig"},
		{"masked card number is not a secret", withFields(op("GET", "/v1/cards/{id}", "getCard", ""),
			[]string{"last4", "masked_number", "fingerprint", "brand"}, nil, nil), Read, ""},
		{"public key read", withFields(op("GET", "/v1/keys/{id}", "getKey", ""),
			[]string{"id", "public_key", "fingerprint", "created_at"}, nil, nil), Read, ""},
		{"token metadata read", withFields(op("GET", "/tokens/{id}", "getToken", ""),
			[]string{"id", "name", "token_type", "expires_at", "last_used_at"}, nil, nil), Read, ""},
		{"token value read", withFields(op("GET", "/tokens/{id}", "getToken", ""),
			[]string{"id", "name", "access_token"}, nil, nil), Privileged, "response:access_token"},
		{"search POST is a read", op("POST", "/v2/customers/search", "searchCustomers", ""), Read, "query:search"},
		{"metadata-only secret update stays privileged by path", op("POST", "/secrets/{id}/update", "SecretUpdate", ""),
			Privileged, "credential:secrets"},
		{"manage scope alone", op("POST", "/projects", "createProject", "", "projects:manage"), Write, ""},
		{"manage scope on members", op("POST", "/teams/{id}/members", "addMember", "", "members:manage"), Privileged, ""},
		{"sentry-style any-of scopes on a read", op("GET", "/api/0/organizations/", "listOrgs", "", "org:read", "org:write", "org:admin"),
			Read, ""},
		{"scope in vendor extension", withExt(op("DELETE", "/widgets/{id}", "", ""), "x-required-permissions", `["admin:widgets"]`),
			Privileged, "scope:admin:widgets"},
		{"keydb is a database", op("POST", "/databases/keydb", "create-database-keydb", ""), Write, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			a := Classify(tt.op)
			if a.Class != tt.want {
				t.Errorf("class %v, want %v (%v)", a.Class, tt.want, a.Codes())
			}
			if tt.code != "" {
				found := false
				for _, c := range a.Codes() {
					found = found || c == tt.code
				}
				if !found {
					t.Errorf("reason %q missing from %v", tt.code, a.Codes())
				}
			}
		})
	}
}
