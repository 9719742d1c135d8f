package risk

import (
	"encoding/json"
	"math/rand/v2"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/toolgate/toolgate/internal/openapi"
)

// The generators draw from a vocabulary that mixes harmless words with every
// kind of signal, so that random operations hit the rules often.
var (
	genMethods = []string{"GET", "HEAD", "OPTIONS", "POST", "PUT", "PATCH", "DELETE", "TRACE", "", "PURGE"}
	genWords   = []string{"pets", "files", "trash", "users", "roles", "tokens", "admin", "delete", "deleted", "list",
		"get", "approve", "revoke", "exec", "proxy", "members", "me", "items", "refunds", "archive", "unarchive",
		"keys", "search", "invite", "resolve", "set", "Presence", "oauth", "access", "v2", "policies"}
	genScopes = []string{"read:pets", "write:pets", "admin.apps:read", "users:write", "chat:write:user",
		"attachments:delete", "workflow.steps:execute", "admin", "identify", "manage_users", "owner", "tasks:read"}
	adminScopes = []string{"admin", "admin:org", "admin.users:read", "org:admin", "admin:enterprise", "owner",
		"https://www.googleapis.com/auth/admin.directory.user.readonly"}
)

func pick[T any](r *rand.Rand, xs []T) T { return xs[r.IntN(len(xs))] }

func genName(r *rand.Rand, sep string, n int) string {
	parts := make([]string, n)
	for i := range parts {
		parts[i] = pick(r, genWords)
	}
	return strings.Join(parts, sep)
}

func genOperation(r *rand.Rand) *openapi.Operation {
	var path strings.Builder
	for range 1 + r.IntN(4) {
		switch r.IntN(5) {
		case 0:
			path.WriteString("/{id}")
		case 1:
			path.WriteString("/@me")
		case 2:
			path.WriteString("/" + genName(r, ".", 1+r.IntN(3)))
		default:
			path.WriteString("/" + genName(r, "_", 1+r.IntN(2)))
		}
	}
	o := &openapi.Operation{
		Method:      pick(r, genMethods),
		Path:        path.String(),
		PathKey:     path.String(),
		OperationID: genName(r, pick(r, []string{"_", "-", ""}), r.IntN(4)),
		Summary:     genName(r, " ", r.IntN(5)),
	}
	for range r.IntN(3) {
		var alt openapi.SecurityAlternative
		for range 1 + r.IntN(2) {
			ss := openapi.SchemeScopes{Scheme: pick(r, []string{"oauth2", "bearer"})}
			for range r.IntN(4) {
				ss.Scopes = append(ss.Scopes, pick(r, genScopes))
			}
			alt = append(alt, ss)
		}
		o.Security = append(o.Security, alt)
	}
	if r.IntN(3) == 0 {
		o.Extensions = map[string]json.RawMessage{
			pick(r, []string{"x-box-requires-admin", "x-internal", "x-admin-only"}): json.RawMessage(pick(r, []string{"true", "false", `"yes"`})),
		}
	}
	return o
}

// clone deep-copies an operation through JSON so mutations of the copy do
// not reach the original.
func clone(t *testing.T, o *openapi.Operation) *openapi.Operation {
	t.Helper()
	b, err := json.Marshal(o)
	if err != nil {
		t.Fatalf("cloning operation: %v", err)
	}
	var c openapi.Operation
	if err := json.Unmarshal(b, &c); err != nil {
		t.Fatalf("cloning operation: %v", err)
	}
	return &c
}

const propertyRuns = 3000

func forRandomOperations(t *testing.T, check func(t *testing.T, r *rand.Rand, o *openapi.Operation)) {
	t.Helper()
	r := rand.New(rand.NewPCG(20261129, 3))
	for range propertyRuns {
		check(t, r, genOperation(r))
		if t.Failed() {
			return
		}
	}
}

func TestPropertyDeleteIsAtLeastDestructive(t *testing.T) {
	forRandomOperations(t, func(t *testing.T, _ *rand.Rand, o *openapi.Operation) {
		o.Method = "DELETE"
		if a := Classify(o); a.Class < Destructive {
			t.Errorf("DELETE %s classified %v (%v)", o.Path, a.Class, a.Codes())
		}
	})
}

// An admin scope makes an operation PRIVILEGED unless the vendor lists a
// lower level of the same resource beside it (any-of scope lists: see
// TestAdminScopeAlternatives), so the generated operation keeps only the
// admin scope here.
func TestPropertyAdminScopeIsPrivileged(t *testing.T) {
	forRandomOperations(t, func(t *testing.T, r *rand.Rand, o *openapi.Operation) {
		scope := pick(r, adminScopes)
		o.Security = []openapi.SecurityAlternative{{{Scheme: "oauth2", Scopes: []string{scope}}}}
		if a := Classify(o); a.Class != Privileged {
			t.Errorf("%s %s with scope %q classified %v (%v)", o.Method, o.Path, scope, a.Class, a.Codes())
		}
	})
}

func TestPropertyDeterministic(t *testing.T) {
	forRandomOperations(t, func(t *testing.T, r *rand.Rand, o *openapi.Operation) {
		want := Classify(o)
		shuffled := clone(t, o)
		r.Shuffle(len(shuffled.Security), func(i, j int) {
			shuffled.Security[i], shuffled.Security[j] = shuffled.Security[j], shuffled.Security[i]
		})
		for _, alt := range shuffled.Security {
			r.Shuffle(len(alt), func(i, j int) { alt[i], alt[j] = alt[j], alt[i] })
			for _, ss := range alt {
				r.Shuffle(len(ss.Scopes), func(i, j int) { ss.Scopes[i], ss.Scopes[j] = ss.Scopes[j], ss.Scopes[i] })
			}
		}
		for range 3 {
			if got := Classify(shuffled); !reflect.DeepEqual(got, want) {
				t.Fatalf("%s %s: shuffled input classified\n%v\nwant\n%v", o.Method, o.Path, got.Codes(), want.Codes())
			}
		}
	})
}

// TestPropertyMonotonic adds one signal at a time — a scope, a security
// alternative, an extension, words at the end of the summary — and checks the
// class never drops and no reason disappears.
func TestPropertyMonotonic(t *testing.T) {
	add := []func(r *rand.Rand, o *openapi.Operation){
		func(r *rand.Rand, o *openapi.Operation) {
			if len(o.Security) == 0 {
				o.Security = []openapi.SecurityAlternative{{{Scheme: "oauth2"}}}
			}
			o.Security[0][0].Scopes = append(o.Security[0][0].Scopes, pick(r, genScopes))
		},
		func(r *rand.Rand, o *openapi.Operation) {
			o.Security = append(o.Security, openapi.SecurityAlternative{{Scheme: "k", Scopes: []string{pick(r, genScopes)}}})
		},
		func(r *rand.Rand, o *openapi.Operation) {
			if o.Extensions == nil {
				o.Extensions = map[string]json.RawMessage{}
			}
			o.Extensions[pick(r, []string{"x-requires-admin", "x-other"})] = json.RawMessage("true")
		},
		func(r *rand.Rand, o *openapi.Operation) {
			o.Summary = strings.TrimSpace(o.Summary + " " + genName(r, " ", 2))
		},
	}
	forRandomOperations(t, func(t *testing.T, r *rand.Rand, o *openapi.Operation) {
		before := Classify(o)
		more := clone(t, o)
		pick(r, add)(r, more)
		after := Classify(more)
		if after.Class < before.Class {
			t.Errorf("%s %s: adding a signal lowered %v to %v (%v → %v)", o.Method, o.Path, before.Class, after.Class,
				before.Codes(), after.Codes())
		}
		for _, c := range before.Codes() {
			if !slices.Contains(after.Codes(), c) {
				t.Errorf("%s %s: adding a signal dropped reason %q", o.Method, o.Path, c)
			}
		}
	})
}

func TestPropertyReasonInvariants(t *testing.T) {
	forRandomOperations(t, func(t *testing.T, _ *rand.Rand, o *openapi.Operation) {
		checkReasonOrder(t, Classify(o))
	})
}
