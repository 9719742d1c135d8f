package sampleapi

import (
	"net/http"
	"strings"
	"testing"
)

func TestAdminUsers(t *testing.T) {
	_, ts := startServer(t, Options{Seed: true}) // usr_0001 is the seeded admin
	steps := []struct {
		name, method, path, body string
		status                   int
		contains                 string
	}{
		{"list seeded", "GET", "/admin/users", "", 200, `"id":"usr_0001"`},
		{"create", "POST", "/admin/users", `{"email":"bob@example.com","name":"Bob"}`, 201, `"id":"usr_0002","email":"bob@example.com","name":"Bob","role":"member"`},
		{"duplicate email", "POST", "/admin/users", `{"email":"BOB@example.com","name":"Bob 2"}`, 409, `"code":"conflict"`},
		{"bad email", "POST", "/admin/users", `{"email":"bob","name":"Bob"}`, 422, `"code":"invalid"`},
		{"bad role", "POST", "/admin/users", `{"email":"c@example.com","name":"C","role":"root"}`, 422, `"code":"invalid"`},
		{"no keys yet", "GET", "/admin/users/usr_0002/api-keys", "", 200, `{"data":[]}`},
		{"create key", "POST", "/admin/users/usr_0002/api-keys", `{"name":"ci"}`, 201, `"secret":"sk_sample_`},
		{"key without name", "POST", "/admin/users/usr_0002/api-keys", `{}`, 422, `"code":"invalid"`},
		{"key for unknown user", "POST", "/admin/users/usr_0404/api-keys", `{"name":"ci"}`, 404, `"code":"not_found"`},
		{"keys of unknown user", "GET", "/admin/users/usr_0404/api-keys", "", 404, `"code":"not_found"`},
		{"delete", "DELETE", "/admin/users/usr_0002", "", 204, ""},
		{"keys gone with user", "GET", "/admin/users/usr_0002/api-keys", "", 404, ""},
		{"delete twice", "DELETE", "/admin/users/usr_0002", "", 404, ""},
	}
	for _, st := range steps {
		t.Run(st.name, func(t *testing.T) {
			r := call(t, ts, st.method, st.path, st.body)
			wantStatus(t, r, st.status)
			if !strings.Contains(string(r.body), st.contains) {
				t.Errorf("body %s does not contain %s", r.body, st.contains)
			}
		})
	}
}

func TestAPIKeySecretShownOnlyOnCreate(t *testing.T) {
	_, ts := startServer(t, Options{Seed: true})
	var k APIKey
	r := call(t, ts, "POST", "/admin/users/usr_0001/api-keys", `{"name":"laptop"}`)
	wantStatus(t, r, http.StatusCreated)
	r.decode(t, &k)
	if k.ID != "key_0001" || len(k.Secret) != len("sk_sample_")+48 || !strings.HasPrefix(k.Secret, k.Prefix) {
		t.Fatalf("created key %+v: want key_0001 with a 48-hex secret starting with its prefix", k)
	}
	var other APIKey
	call(t, ts, "POST", "/admin/users/usr_0001/api-keys", `{"name":"ci"}`).decode(t, &other)
	if other.Secret == k.Secret {
		t.Error("two keys share a secret")
	}
	var listed list[APIKey]
	call(t, ts, "GET", "/admin/users/usr_0001/api-keys", "").decode(t, &listed)
	if len(listed.Data) != 2 {
		t.Fatalf("listed %d keys, want 2", len(listed.Data))
	}
	for _, l := range listed.Data {
		if l.Secret != "" || l.Prefix == "" {
			t.Errorf("listed key %+v: want prefix and no secret", l)
		}
	}
}

func TestAuthAndRouting(t *testing.T) {
	_, ts := startServer(t, Options{Token: "s3cret"})
	c := ts.Client()
	tests := []struct {
		name, method, path string
		headers            []string
		status             int
		code               string
	}{
		{"no token", "GET", "/orders", nil, 401, codeUnauthorized},
		{"wrong token", "GET", "/orders", []string{"Authorization: Bearer sample-token"}, 401, codeUnauthorized},
		{"basic scheme", "GET", "/orders", []string{"Authorization: Basic s3cret"}, 401, codeUnauthorized},
		{"admin needs token too", "GET", "/admin/users", nil, 401, codeUnauthorized},
		{"right token", "GET", "/orders", []string{"Authorization: Bearer s3cret"}, 200, ""},
		{"scheme is case-insensitive", "GET", "/orders", []string{"Authorization: bearer s3cret"}, 200, ""},
		{"unknown path", "GET", "/nope", nil, 404, codeNotFound},
		{"wrong method", "PUT", "/orders", nil, 405, codeMethodNotAllowed},
		{"openapi is public", "GET", "/openapi.yaml", nil, 200, ""},
		{"faults are public", "GET", "/_faults", nil, 200, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := callWith(t, c, ts.URL, tt.method, tt.path, "", tt.headers...)
			wantStatus(t, r, tt.status)
			if tt.code != "" {
				if got := r.errorCode(t); got != tt.code {
					t.Errorf("code = %q, want %q", got, tt.code)
				}
			}
			if tt.status == 401 && r.header.Get("WWW-Authenticate") == "" {
				t.Error("401 without WWW-Authenticate")
			}
			if tt.status == 405 && r.header.Get("Allow") != "GET, POST" {
				t.Errorf("Allow = %q, want \"GET, POST\"", r.header.Get("Allow"))
			}
		})
	}
}
