package risk

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"github.com/toolgate/toolgate/internal/openapi"
)

// op builds a hand-made operation; scopes become one security alternative.
func op(method, path, id, summary string, scopes ...string) *openapi.Operation {
	o := &openapi.Operation{Method: method, Path: path, PathKey: path, OperationID: id, Summary: summary}
	if i := strings.IndexByte(path, '#'); i >= 0 {
		o.Path = path[:i]
	}
	if len(scopes) > 0 {
		o.Security = []openapi.SecurityAlternative{{{Scheme: "oauth2", Scopes: scopes}}}
	}
	return o
}

func withExt(o *openapi.Operation, name, raw string) *openapi.Operation {
	if o.Extensions == nil {
		o.Extensions = map[string]json.RawMessage{}
	}
	o.Extensions[name] = json.RawMessage(raw)
	return o
}

func TestClassify(t *testing.T) {
	tests := []struct {
		name  string
		op    *openapi.Operation
		class Class
		codes []string // must all be present
		not   []string // must all be absent
	}{
		{"plain GET", op("GET", "/pets/{id}", "getPetById", "Find pet by ID"), Read, []string{"method:GET"}, nil},
		{"POST writes", op("POST", "/pets", "addPet", "Add a new pet"), Write, []string{"method:POST"}, []string{"verb:add"}},
		{"DELETE destroys", op("DELETE", "/pets/{id}", "deletePet", "Deletes a pet"), Destructive,
			[]string{"method:DELETE", "verb:delete"}, nil},
		{"deleted_at in a GET list is not a verb", op("GET", "/items", "list_items", "List items by deleted_at"), Read, nil,
			[]string{"verb:delete"}},
		{"GET trash list reads", op("GET", "/files/{file_id}/trash", "get_files_id_trash", "Get trashed file"), Read, nil,
			[]string{"verb:trash"}},
		{"POST to trash destroys", op("POST", "/files/{file_id}/trash", "post_files_id_trash", "Move file to trash"),
			Destructive, []string{"verb:trash"}, nil},
		{"Slack chat.delete", op("POST", "/chat.delete", "chat_delete", "", "chat:write:user"), Destructive,
			[]string{"verb:delete"}, nil},
		{"Slack admin GET", op("GET", "/admin.apps.approved.list", "admin_apps_approved_list", "", "admin.apps:read"),
			Privileged, []string{"scope:admin.apps:read"}, []string{"verb:approve", "path:admin"}},
		{"GET that approves", op("GET", "/apps.approve", "apps_approve", ""), Write, []string{"verb:approve", "method:GET"}, nil},
		// Revoking access is PRIVILEGED, not only DESTRUCTIVE (README "Risk classes").
		{"GET that revokes", op("GET", "/auth.revoke", "auth_revoke", "", "none"), Privileged, []string{"verb:revoke"}, nil},
		{"GET named deleteX", op("GET", "/things/{id}", "deleteThing", ""), Destructive, []string{"verb:delete"}, nil},
		{"GET invite_resolve reads", op("GET", "/invites/{code}", "invite_resolve", ""), Read, nil,
			[]string{"verb:invite", "path:invites"}},
		{"GET preview_prune reads", op("GET", "/guilds/{id}/prune", "preview_prune_guild", ""), Read, nil, []string{"verb:prune"}},
		{"GET user tokens is credential material", op("GET", "/users/{id}/tokens", "listUserTokens", "List tokens"),
			Privileged, []string{"credential:tokens"}, []string{"path:users"}},
		{"GET api keys", op("GET", "/v3/api_keys", "", "Retrieve all API Keys"), Privileged, []string{"credential:keys"}, nil},
		{"GET oauth access", op("GET", "/oauth.v2.access", "oauth_v2_access", ""), Privileged, []string{"credential:oauth"}, nil},
		{"GET webhook by token param is not credential", op("GET", "/webhooks/{id}/{webhook_token}", "get_webhook_by_token", ""),
			Read, nil, []string{"credential:token"}},
		{"POST user roles", op("PUT", "/guilds/{g}/members/{u}/roles/{r}", "add_guild_member_role", ""), Privileged,
			[]string{"path:roles", "path:members", "method:PUT"}, nil},
		{"own user is not identity admin", op("POST", "/users/@me/channels", "create_dm", ""), Write, nil, []string{"path:users"}},
		{"GET of users is not privileged", op("GET", "/users/{id}", "getUser", "Get a user", "users:read"), Read, nil, nil},
		{"identity write scope", op("POST", "/users.setPresence", "users_setPresence", "", "users:write"), Privileged,
			[]string{"scope:users:write"}, nil},
		{"destructive scope", op("DELETE", "/attachments/{id}", "deleteAttachment", "Delete an attachment", "attachments:delete"),
			Destructive, []string{"scope:attachments:delete"}, nil},
		{"admin scope on a GET", op("GET", "/team.accessLogs", "team_accessLogs", "", "admin"), Privileged,
			[]string{"scope:admin"}, nil},
		{"Box requires admin", withExt(op("POST", "/metadata_taxonomies", "post_metadata_taxonomies", "Create metadata taxonomy"),
			"x-box-requires-admin", "true"), Privileged, []string{"ext:x-box-requires-admin"}, nil},
		{"admin extension switched off", withExt(op("POST", "/things", "createThing", ""), "x-requires-admin", "false"),
			Write, nil, []string{"ext:x-requires-admin"}},
		{"kubernetes exec GET", op("GET", "/api/v1/namespaces/{ns}/pods/{name}/exec", "connectCoreV1GetNamespacedPodExec", ""),
			Privileged, []string{"channel:exec", "method:GET"}, nil},
		{"kubernetes port-forward", op("POST", "/api/v1/namespaces/{ns}/pods/{name}/portforward", "", ""), Privileged,
			[]string{"channel:portforward"}, nil},
		{"Adyen refund", op("POST", "/payments/{paymentPspReference}/refunds", "post-payments-paymentPspReference-refunds",
			"Refund a captured payment"), Destructive, []string{"verb:refund"}, nil},
		{"Box fragment verb and shared link", op("PUT", "/files/{file_id}#remove_shared_link", "put_files_id#remove_shared_link",
			"Remove shared link from file"), Privileged, []string{"verb:remove", "path:shared"}, nil},
		{"summary noun on a GET named get", op("GET", "/contacts/imports/{id}", "GET_contacts-imports-id", "Import Contacts Status"),
			Read, nil, []string{"verb:import"}},
		{"summary verb on a GET without name", op("GET", "/things/{id}", "", "Cancel a thing"), Destructive,
			[]string{"verb:cancel"}, nil},
		{"GET login hands out a session", op("GET", "/user/login", "loginUser", "Logs user into the system"), Privileged,
			[]string{"credential:login"}, nil},
		{"unarchive is not archive", op("POST", "/conversations.unarchive", "conversations_unarchive", ""), Write, nil,
			[]string{"verb:archive"}},
		{"widget.json is a file, not an RPC", op("GET", "/guilds/{id}/widget.json", "get_guild_widget", ""), Read, nil, nil},
		{"unknown method is a write", op("", "/x", "", ""), Write, []string{"method:unknown"}, nil},
		{"GET with execute scope", op("GET", "/workflows.stepCompleted", "workflows_stepCompleted", "", "workflow.steps:execute"),
			Write, []string{"scope:workflow.steps:execute"}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			a := Classify(tt.op)
			codes := a.Codes()
			if a.Class != tt.class {
				t.Errorf("class = %v, want %v (reasons %v)", a.Class, tt.class, codes)
			}
			for _, c := range tt.codes {
				if !slices.Contains(codes, c) {
					t.Errorf("reason %q missing from %v", c, codes)
				}
			}
			for _, c := range tt.not {
				if slices.Contains(codes, c) {
					t.Errorf("reason %q unexpected in %v", c, codes)
				}
			}
			checkReasonOrder(t, a)
		})
	}
}

// checkReasonOrder asserts the invariants of every Assessment: the class is
// the highest reason class, reasons are sorted highest first, codes are
// unique and every reason has a sentence.
func checkReasonOrder(t *testing.T, a Assessment) {
	t.Helper()
	if len(a.Reasons) == 0 {
		t.Fatal("no reasons")
	}
	if a.Reasons[0].Class != a.Class {
		t.Errorf("first reason class %v != assessment class %v", a.Reasons[0].Class, a.Class)
	}
	seen := map[string]bool{}
	for i, r := range a.Reasons {
		if i > 0 && r.Class > a.Reasons[i-1].Class {
			t.Errorf("reasons not sorted by class: %v", a.Codes())
		}
		if seen[r.Code] {
			t.Errorf("duplicate reason code %q", r.Code)
		}
		seen[r.Code] = true
		if r.Text == "" || strings.Contains(r.Text, "%!") {
			t.Errorf("reason %q has a bad sentence %q", r.Code, r.Text)
		}
	}
}

func TestWords(t *testing.T) {
	tests := map[string][]string{
		"deleteTask":                  {"delete", "task"},
		"admin.apps.approve":          {"admin", "apps", "approve"},
		"showSiteTLSCertificate":      {"show", "site", "tls", "certificate"},
		"post_oauth2_token#refresh":   {"post", "oauth2", "token", "refresh"},
		"levels:append":               {"levels", "append"},
		"port-forward":                {"port", "forward"},
		"ips:batchAdd":                {"ips", "batch", "add"},
		"":                            nil,
		"find pet by id":              {"find", "pet", "by", "id"},
		"securityClassification-6VMV": {"security", "classification", "6", "vmv"},
	}
	for in, want := range tests {
		t.Run(in, func(t *testing.T) {
			if got := words(in); !slices.Equal(got, want) {
				t.Errorf("words(%q) = %q, want %q", in, got, want)
			}
		})
	}
}

func TestRulesIsACopyAndDocumented(t *testing.T) {
	rs := Rules()
	if len(rs) == 0 {
		t.Fatal("empty rule table")
	}
	for i, r := range rs {
		if r.Name == "" || r.Code == "" || !r.Class.Valid() || r.Text == "" || r.Applies == "" || r.Looks == "" {
			t.Errorf("rule %d (%q) is not fully documented: %+v", i, r.Name, r)
		}
		if i > 0 && r.Class > rs[i-1].Class {
			t.Errorf("rule %q is out of class order", r.Name)
		}
	}
	rs[0].Terms[0] = "changed"
	if Rules()[0].Terms[0] == "changed" {
		t.Error("Rules returned the live table")
	}
}

// TestAdminScopeAlternatives: an admin scope listed beside a read or write
// scope of the same resource is one alternative (Sentry "org:read
// org:write org:admin"); alone, or beside another resource's scope, it
// counts.
func TestAdminScopeAlternatives(t *testing.T) {
	tests := []struct {
		method string
		scopes []string
		want   Class
	}{
		{"GET", []string{"org:read", "org:write", "org:admin"}, Read},
		{"DELETE", []string{"org:admin", "org:write"}, Destructive},
		{"GET", []string{"org:admin"}, Privileged},
		{"GET", []string{"project:read", "org:admin"}, Privileged},
		{"POST", []string{"manage_enterprise"}, Write}, // manage alone is not admin
	}
	for _, tt := range tests {
		op := &openapi.Operation{Method: tt.method, Path: "/api/0/dashboards/{id}",
			Security: []openapi.SecurityAlternative{{{Scheme: "oauth2", Scopes: tt.scopes}}}}
		if got := Classify(op); got.Class != tt.want {
			t.Errorf("%s %v: %v (%v), want %v", tt.method, tt.scopes, got.Class, got.Codes(), tt.want)
		}
	}
}
