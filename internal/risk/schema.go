package risk

import (
	"encoding/json"
	"regexp"
	"slices"
	"strings"

	"github.com/toolgate/toolgate/internal/openapi"
)

// extractSchemaFacts reads what the request and response schemas say:
// which properties hold credential material, and the enum values of the
// request body's properties.
func extractSchemaFacts(f *facts, op *openapi.Operation) {
	f.respKnown = len(op.ResponseFields) > 0
	resource := pathNouns(f)
	f.respSecrets = secretFields(op.ResponseFields, resource, false)
	f.reqFields = op.RequestFields
	f.reqSecrets = secretFields(op.RequestFields, resource, true)
	f.secretWithheld = withheldRE.MatchString(op.Description)
	if m := returnedRE.FindStringSubmatch(op.Description); m != nil && !f.secretWithheld {
		f.secretReturned = strings.ToLower(m[1])
	}
	path := op.Path
	if path == "" {
		path = op.PathKey
	}
	path = strings.TrimRight(path, "/")
	f.endsLiteral = path != "" && !strings.HasSuffix(path, "}")
	f.respValues = returnsStoredValue(op.ResponseFields, resource, !f.endsLiteral)
	f.enums = op.RequestEnums
	if f.segments != nil && len(f.segments[0]) >= 2 && f.segments[0][0] == "well" && f.segments[0][1] == "known" {
		f.wellKnown = true
	}
	for _, e := range f.extensions {
		if e.name == "x-kubernetes-action" {
			var v string
			if json.Unmarshal([]byte(e.value), &v) == nil {
				f.k8sAction = strings.ToLower(v)
			}
		}
	}
}

// storedValueNames name a property that holds the stored value itself;
// genericValueNames do only when the property is a leaf of one item's
// response: "data" or "payload" with members of their own is an envelope.
var (
	storedValueNames  = []string{"value", "values", "plaintext"}
	genericValueNames = []string{"payload", "data", "content", "secret_data", "secretdata"}
)

// returnsStoredValue tells a response that returns the stored values of
// the operation's own object ("value", "values[].value", "plaintext"; for
// one item, a leaf "payload" or "data"): on a credential resource
// (/secrets/{id}) that is the secret itself, not metadata about it.
func returnsStoredValue(fields, resource []string, item bool) bool {
	return slices.ContainsFunc(fields, func(p string) bool {
		parent, name := splitField(p)
		if nesting(parent, resource) != 0 {
			return false
		}
		name = strings.ToLower(name)
		if slices.Contains(storedValueNames, name) {
			return true
		}
		return item && slices.Contains(genericValueNames, name) && !hasMembers(fields, p)
	})
}

// hasMembers is true when another field path continues p ("data.id",
// "data[].id").
func hasMembers(fields []string, p string) bool {
	base := strings.TrimRight(p, "[]{}")
	return slices.ContainsFunc(fields, func(q string) bool {
		return q != p && strings.HasPrefix(q, base) && len(q) > len(base) && strings.ContainsRune(".[{", rune(q[len(base)]))
	})
}

// secretFields returns the property paths whose last property holds
// credential material: a secret head word as the name's last word (or
// followed only by a trailer such as "value"), a key with a secret
// modifier (api_key, UnlockKey), or a JWK private member next to "kty".
// A name with a not-secret modifier (public_key, token_type, last4,
// masked_secret) is metadata, public material or a masked value.
//
// Only properties of the operation's own object count: a secret nested in
// an embedded related object ("client.client_secret" in a consent request,
// "Spec.ContainerSpec.Secrets" references in a task) is the other object's
// and the API normally withholds or references it. Envelopes (data,
// result, items, …) and properties named like the path's own resource
// ("subscription" under /subscriptions) do not count as nesting. A secret-
// named object whose members are ids or names is a list of references. In
// request bodies a password qualified by another noun (keydb_password,
// http_basic_auth_password) configures the workload being created; it is
// not a login.
func secretFields(paths, resource []string, request bool) []string {
	var out []string
	for _, p := range paths {
		parent, name := splitField(p)
		if !mayBeSecret(name) {
			continue
		}
		if nesting(parent, resource) > 0 || isReferenceList(paths, p) {
			continue
		}
		secret := isSecretName(name) || isJWKPrivate(paths, parent, name)
		if secret && request && qualifiedPassword(name) {
			secret = false
		}
		if secret {
			out = append(out, p)
		}
	}
	return out
}

// returnedRE matches descriptions that say secrets are returned ("Encrypted
// secrets are only returned when the token has read:sensitive"): the
// response schema may not name them, or may not exist at all. A negation
// between the noun and the verb ("secrets are never returned") does not
// match, and withheldRE's wording wins over it.
var returnedRE = regexp.MustCompile(`(?i)\b(secrets?|secret values?)\b[^.]{0,40}?\b(?:are|is)\s+(?:only\s+|also\s+)?(?:returned|included|shown|exposed)\b`)

// withheldRE matches descriptions that say secrets are not returned.
var withheldRE = regexp.MustCompile(`(?i)\b(never|not|n't|without)\s+(return|returns|returning|include|includes|expose|exposes|contain|contains)\b[^.]{0,40}\b(secrets?|passwords?|tokens?|keys?)\b`)

// envelopes are property names that wrap the real object.
var envelopes = []string{"data", "result", "results", "items", "item", "object", "objects", "response", "body",
	"value", "values", "entries", "records", "payload"}

// pathNouns are the literal path words with a trailing s removed, to tell
// the path's own resource apart from embedded objects.
func pathNouns(f *facts) []string {
	var out []string
	for _, seg := range f.segments {
		for _, w := range seg {
			out = append(out, strings.TrimSuffix(w, "s"))
		}
	}
	return out
}

// nesting counts the parent properties that are neither envelopes nor the
// path's own resource.
func nesting(parent string, resource []string) int {
	if parent == "" {
		return 0
	}
	n := 0
	for part := range strings.SplitSeq(parent, ".") {
		part = strings.Trim(part, "[]{}")
		if part == "" || slices.Contains(envelopes, strings.ToLower(part)) {
			continue
		}
		ws := words(part)
		if len(ws) > 0 && slices.Contains(resource, strings.TrimSuffix(ws[len(ws)-1], "s")) {
			continue
		}
		n++
	}
	return n
}

// isReferenceList reports whether p is an object or list whose members are
// ids or names (Docker "Secrets": [{SecretID, SecretName}]).
func isReferenceList(paths []string, p string) bool {
	for _, q := range paths {
		rest, ok := strings.CutPrefix(q, p)
		if !ok || rest == "" || strings.Count(strings.Trim(rest, "[]{}."), ".") > 0 {
			continue
		}
		ws := words(rest)
		if len(ws) > 0 && slices.Contains([]string{"id", "ids", "uuid", "name", "ref", "reference"}, ws[len(ws)-1]) {
			return true
		}
	}
	return false
}

// qualifiedPassword reports whether a password field names another thing's
// password (keydb_password) rather than the caller's login.
func qualifiedPassword(name string) bool {
	ws := words(name)
	if len(ws) < 2 || !slices.Contains([]string{"password", "passwd", "passphrase"}, ws[len(ws)-1]) {
		return false
	}
	for _, m := range ws[:len(ws)-1] {
		if !slices.Contains([]string{"new", "old", "current", "confirm", "user", "account", "admin", "root", "login"}, m) {
			return true
		}
	}
	return false
}

// splitField returns the parent path and the last property name of a path
// such as "keys[].d" (parent "keys[]", name "d").
func splitField(p string) (string, string) {
	i := strings.LastIndexByte(p, '.')
	if i < 0 {
		return "", strings.TrimRight(p, "[]{}")
	}
	return p[:i], strings.TrimRight(p[i+1:], "[]{}")
}

// mayBeSecret is a cheap filter before splitting a property name into
// words: a secret name contains one of these letter runs (or is a JWK
// member of one or two letters).
func mayBeSecret(name string) bool {
	if len(name) <= 2 {
		return true
	}
	l := strings.ToLower(name)
	for _, frag := range []string{"pass", "secret", "token", "cred", "key", "otp", "kubeconfig", "connection"} {
		if strings.Contains(l, frag) {
			return true
		}
	}
	return false
}

func isSecretName(name string) bool {
	ws := words(name)
	if len(ws) == 0 || hasAny(ws, vocab("not-secret-modifiers")) {
		return false
	}
	// Drop trailers: "secret_value" is the secret itself.
	for len(ws) > 1 && slices.Contains(vocab("secret-trailers"), ws[len(ws)-1]) {
		ws = ws[:len(ws)-1]
	}
	head, mods := ws[len(ws)-1], ws[:len(ws)-1]
	switch {
	case slices.Contains(vocab("secret-heads"), head):
		return true
	case head == "key" || head == "keys":
		return hasAny(mods, vocab("secret-key-modifiers"))
	case head == "string" || head == "uri":
		return slices.Contains(mods, "connection")
	}
	return false
}

func isJWKPrivate(paths []string, parent, name string) bool {
	if !slices.Contains(vocab("jwk-private-members"), name) {
		return false
	}
	kty := "kty"
	if parent != "" {
		kty = parent + ".kty"
	}
	return slices.Contains(paths, kty)
}

// extensionScopes reads scope-like vendor extensions: the string values of
// x-*scope*, x-*permission* and x-*requires* extensions count as scopes
// (a boolean such as x-box-requires-admin: true is the admin-extension
// rule's).
func extensionScopes(exts []extension) []string {
	var out []string
	for _, e := range exts {
		ws := words(e.name)
		if !hasAny(ws, []string{"scope", "scopes", "permission", "permissions", "requires", "required", "oauth"}) {
			continue
		}
		var v any
		if json.Unmarshal([]byte(e.value), &v) != nil {
			continue
		}
		collectStrings(v, &out, 0)
	}
	return out
}

func collectStrings(v any, out *[]string, depth int) {
	if depth > 3 || len(*out) > 64 {
		return
	}
	switch x := v.(type) {
	case string:
		*out = append(*out, x)
	case []any:
		for _, e := range x {
			collectStrings(e, out, depth+1)
		}
	case map[string]any:
		for _, e := range x {
			collectStrings(e, out, depth+1)
		}
	}
}
