package risk

import (
	"slices"
	"strings"
)

// Rule is one row of the rule table: a signal, the class it implies and the
// sentence shown for it. The table is data so that the console can show it
// (Rules) and the package documentation can describe it row by row.
type Rule struct {
	// Name identifies the rule, e.g. "destructive-verb".
	Name string `json:"name"`
	// Code is the prefix of the reason codes the rule produces; the matched
	// term follows a colon ("verb" → "verb:revoke").
	Code  string `json:"code"`
	Class Class  `json:"class"`
	// Applies says which operations the rule looks at ("any method",
	// "mutations", "safe methods").
	Applies string `json:"applies"`
	// Looks says where in the operation it looks.
	Looks string `json:"looks"`
	// Terms are the words or values the rule matches (empty for rules that
	// match on the method alone).
	Terms []string `json:"terms"`
	// Text is the reason sentence; %s is replaced by the matched term.
	Text string `json:"text"`

	match func(f *facts, terms []string) []string
}

// Rules returns the rule table in evaluation order (highest class first).
// The returned slice is a copy; changing it does not change classification.
func Rules() []Rule {
	table := ruleTable()
	out := make([]Rule, len(table))
	for i, r := range table {
		r.Terms = slices.Clone(r.Terms)
		r.match = nil
		out[i] = r
	}
	return out
}

// ruleTable is the one place the rules live. Rows are ordered by class,
// highest first, so the first reason for a code is its strongest. The
// vocabularies are in vocab.go, one family per entry.
func ruleTable() []Rule {
	return []Rule{
		{Name: "admin-extension", Code: "ext", Class: Privileged, Applies: "any method",
			Looks: "vendor extension names (x-…) with a value other than false/null/empty",
			Terms: []string{"admin", "administrator", "administrators", "privileged", "superuser"},
			Text:  "The vendor extension %s marks the operation as admin-only.", match: matchAdminExtension},
		{Name: "kubernetes-connect", Code: "channel", Class: Privileged, Applies: "any method",
			Looks: "x-kubernetes-action: connect",
			Terms: []string{"connect"},
			Text:  "Kubernetes marks it as a %s action: a channel into a running workload.", match: matchK8sConnect},
		{Name: "workload-channel", Code: "channel", Class: Privileged, Applies: "any method, GET included",
			Looks: "last literal path segment, or the one before a channel transport (/exec/{id}/start, /attach/ws); " +
				"not attaching a volume, a payment method or another attachable object",
			Terms: vocab("channel-words"),
			Text:  "The operation opens a channel into a running workload (%s); even a GET can run commands.", match: matchChannel},
		{Name: "access-verb", Code: "verb", Class: Privileged,
			Applies: "mutations: every name word; safe methods: words in action position and the last segment",
			Looks:   "operationId, last literal path segment, summary",
			Terms:   vocab("access-verbs"),
			Text:    "Its name says it will %s access, which is an access change, not only a deletion.", match: matchAccessVerbs},
		{Name: "admin-scope", Code: "scope", Class: Privileged, Applies: "any method",
			Looks: "scopes of every security alternative and of x-*scope*/x-*permission*/x-*requires* extensions; " +
				"an admin scope listed beside a read or write scope of the same resource is one alternative among " +
				"several and does not count",
			Terms: []string{"admin", "owner", "superuser", "root", "sudo"},
			Text:  "It needs the administrative scope %s.", match: matchAdminScope},
		{Name: "admin-path", Code: "path", Class: Privileged, Applies: "mutations",
			Looks: "literal path segments (reading an admin API's lists is a read)",
			Terms: []string{"admin", "admins", "administrator", "administrators", "superuser"},
			Text:  "It changes something through an administrative API (%s).", match: matchMutationSegments},
		{Name: "response-secret", Code: "response", Class: Privileged, Applies: "any method, GET included",
			Looks: "property paths of the 2xx response schemas: a secret word ending the property name, a key with a " +
				"secret modifier (api_key, UnlockKey), JWK private members next to kty; not public, masked or metadata " +
				"properties, nor secrets of embedded related objects; not /.well-known documents",
			Terms: vocab("secret-heads"),
			Text:  "Its success response carries credential material (%s).", match: matchResponseSecret},
		{Name: "described-secret", Code: "description", Class: Privileged, Applies: "safe methods",
			Looks: "the description: secrets said to be returned, included or shown (\"Encrypted secrets are only " +
				"returned when the token has read:sensitive\"); not with a negation, nor when it says they are never returned",
			Terms: []string{"secret", "secrets", "secret value", "secret values"},
			Text:  "Its description says the response carries %s.", match: matchDescribedSecret},
		{Name: "request-secret", Code: "request", Class: Privileged, Applies: "mutations",
			Looks: "property paths of the request body schema, as for responses; a password qualified by another " +
				"noun (keydb_password) configures the workload, it is not a login",
			Terms: vocab("secret-heads"),
			Text:  "It stores credential material sent in the request (%s).", match: matchRequestSecret},
		{Name: "credential-material", Code: "credential", Class: Privileged,
			Applies: "mutations; safe methods only when no response schema tells what they return, or when it " +
				"returns the stored value (value, plaintext; for one item a leaf payload or data)",
			Looks: "literal path segments and operationId words; an oauth/oauth2 path ending in access, token or exchange; " +
				"not counts or statistics about credentials",
			Terms: vocab("credential-nouns"),
			Text:  "It reads or changes credential material (%s); reading a secret is as dangerous as changing it.", match: matchCredential},
		{Name: "credential-store", Code: "credential", Class: Privileged, Applies: "DELETE and destructive verbs",
			Looks: "operationId and path words naming a secret store",
			Terms: vocab("credential-stores"),
			Text:  "It destroys entries of a secret store (%s).", match: matchCredentialStore},
		{Name: "identity-write-scope", Code: "scope", Class: Privileged, Applies: "mutations",
			Looks: "scopes naming an identity object together with write, update, manage, edit, create, delete, set or modify",
			Terms: identityScopeNouns(),
			Text:  "It changes identities or access: it needs the scope %s.", match: matchIdentityScope},
		{Name: "identity-path", Code: "path", Class: Privileged, Applies: "mutations",
			Looks: "literal path segments, except the caller's own object (/users/@me)",
			Terms: append(slices.Clone(vocab("identity-nouns")), vocab("admission-hooks")...),
			Text:  "It changes who can access what (%s).", match: matchIdentityPath},
		{Name: "security-settings", Code: "settings", Class: Privileged, Applies: "mutations",
			Looks: "the last two literal path segments: a settings noun (settings, policy, timeout, allowlist …) with a " +
				"security qualifier (security, session, login, password, ip) in the same or the other segment",
			Terms: vocab("settings-nouns"),
			Text:  "It changes security settings that decide how anyone gets in (%s).", match: matchSecuritySettings},
		{Name: "access-revocation", Code: "revoke", Class: Privileged, Applies: "DELETE and destructive verbs",
			Looks: "last literal path segment naming sessions, tokens, grants, keys or members",
			Terms: vocab("access-subjects"),
			Text:  "It takes away access (%s).", match: matchRevocation},
		{Name: "delete-method", Code: "method", Class: Destructive, Applies: "DELETE",
			Looks: "HTTP method",
			Text:  "The HTTP method %s removes the resource.", match: matchMethods("DELETE")},
		{Name: "destructive-verb", Code: "verb", Class: Destructive,
			Applies: "mutations: every word; safe methods: only words in action position",
			Looks:   "operationId, last literal path segment and #fragment, summary",
			Terms:   vocab("destructive-verbs"),
			Text:    "Its name says it will %s something, which cannot simply be undone.", match: matchVerbs},
		{Name: "destructive-scope", Code: "scope", Class: Destructive, Applies: "any method",
			Looks: "words of every security scope",
			Terms: vocab("destructive-verbs"),
			Text:  "It needs the destructive scope %s.", match: matchScopeVerbs},
		{Name: "destructive-discriminator", Code: "action", Class: Destructive, Applies: "mutations",
			Looks: "request-body properties named type, action, status, state, … whose enum includes a destructive verb",
			Terms: vocab("discriminators"),
			Text:  "Its request selects what it does, and one choice is destructive (%s).", match: matchDiscriminator},
		{Name: "money-movement", Code: "money", Class: Destructive, Applies: "POST and money verbs",
			Looks: "last literal path segment naming payments, payouts, transfers, captures, refunds, charges; money verbs",
			Terms: vocab("money-nouns"),
			Text:  "It moves money (%s), which cannot simply be undone.", match: matchMoney},
		{Name: "write-method", Code: "method", Class: Write,
			Applies: "POST, PUT, PATCH and any other unsafe method; not a query-only POST",
			Looks:   "HTTP method",
			Text:    "The HTTP method %s changes state.", match: matchUnsafeMethod},
		{Name: "state-changing-get", Code: "verb", Class: Write, Applies: "safe methods (GET, HEAD, OPTIONS, TRACE)",
			Looks: "words in action position: summary's first word, operationId's verb, RPC method name",
			Terms: vocab("write-verbs"),
			Text:  "It is a safe method by HTTP, but its name says it will %s something.", match: matchSafeWriteVerb},
		{Name: "execute-scope", Code: "scope", Class: Write, Applies: "any method",
			Looks: "words of every security scope",
			Terms: []string{"execute", "exec", "run"},
			Text:  "It needs the scope %s, which runs something.", match: matchScopeWords},
		{Name: "query-post", Code: "query", Class: Read, Applies: "POST",
			Looks: "operationId's verb or a word of the last literal path segment, the verb itself (a plural such as " +
				"/saved-searches or /estimates names a collection to create in); no state-changing verb in either",
			Terms: vocab("query-verbs"),
			Text:  "It is a POST that only does a %s: it sends a query and changes nothing.", match: matchQueryPost},
		{Name: "safe-method", Code: "method", Class: Read, Applies: "GET, HEAD, OPTIONS, TRACE",
			Looks: "HTTP method",
			Text:  "The HTTP method %s only reads.", match: matchMethods("GET", "HEAD", "OPTIONS", "TRACE")},
	}
}

// identityScopeNouns differ from the identity path nouns on purpose: in
// scopes "groups" often means conversations (Slack "groups:write" posts to
// private channels), so only user groups count; credentials count.
func identityScopeNouns() []string {
	return []string{"user", "users", "member", "members", "membership", "memberships", "role", "roles",
		"permission", "permissions", "policy", "policies", "usergroup", "usergroups", "token", "tokens", "secret", "secrets", "key", "keys", "credential",
		"credentials"}
}

func matchMethods(methods ...string) func(*facts, []string) []string {
	return func(f *facts, _ []string) []string {
		if slices.Contains(methods, f.method) {
			return []string{f.method}
		}
		return nil
	}
}

// matchUnsafeMethod treats every method that is neither safe nor DELETE as a
// write, including unknown ones: an unknown method is not a read. A
// query-only POST is left to the query-post rule.
func matchUnsafeMethod(f *facts, _ []string) []string {
	if f.safe || f.method == "DELETE" || f.query {
		return nil
	}
	if f.method == "" {
		return []string{"unknown"}
	}
	return []string{f.method}
}

func matchAdminExtension(f *facts, terms []string) []string {
	var out []string
	for _, e := range f.extensions {
		if hasAny(words(e.name), terms) && truthy(e.value) {
			out = append(out, e.name)
		}
	}
	return out
}

// truthy reports whether a raw JSON extension value switches something on.
func truthy(raw string) bool {
	switch strings.ToLower(strings.TrimSpace(raw)) {
	case "", "false", "null", "0", `""`, `"false"`, "[]", "{}":
		return false
	}
	return true
}

// matchChannel matches a channel word that is a whole literal segment
// (joined, so "port-forward" is portforward): the last one, or the one
// before a transport segment such as "start" or "ws". A channel word inside
// a longer segment ("ssh-keys") names something else.
func matchChannel(f *facts, terms []string) []string {
	n := len(f.segments)
	if n == 0 || f.wellKnown {
		return nil
	}
	cands := []int{n - 1}
	if n >= 2 && slices.Contains(vocab("channel-transports"), strings.Join(f.segments[n-1], "")) {
		cands = append(cands, n-2)
	}
	for _, i := range cands {
		seg := f.segments[i]
		joined, spaced := strings.Join(seg, ""), strings.Join(seg, " ")
		for _, t := range terms {
			if (joined == t || spaced == t) && !(t == "attach" && segmentsHaveAny(f, vocab("attachable-objects"))) &&
				!settingsChannel(f, t, i) {
				return []string{strings.ReplaceAll(t, " ", "")}
			}
		}
	}
	return nil
}

func matchK8sConnect(f *facts, terms []string) []string {
	if slices.Contains(terms, f.k8sAction) {
		return []string{f.k8sAction}
	}
	return nil
}

// matchAdminScope lists admin scopes, leaving out one that a vendor lists
// beside a lower level of the same resource: Sentry puts "org:read
// org:write org:admin" on one operation meaning any of them, so the class
// follows what the operation does, not the highest scope listed.
func matchAdminScope(f *facts, terms []string) []string {
	var out []string
	for _, s := range f.scopes {
		ws := words(s)
		if !hasAny(ws, terms) {
			continue
		}
		res := scopeResource(ws)
		alt := slices.ContainsFunc(f.scopes, func(o string) bool {
			ow := words(o)
			return o != s && !hasAny(ow, terms) && scopeResource(ow) == res
		})
		if !alt {
			out = append(out, s)
		}
	}
	return out
}

// scopeResource is a scope without its level words: "org:admin" and
// "org:read" both name "org".
func scopeResource(ws []string) string {
	levels := vocab("scope-levels")
	var res []string
	for _, w := range ws {
		if !slices.Contains(levels, w) {
			res = append(res, w)
		}
	}
	return strings.Join(res, " ")
}

func matchScopeWords(f *facts, terms []string) []string {
	var out []string
	for _, s := range f.scopes {
		if hasAny(words(s), terms) {
			out = append(out, s)
		}
	}
	return out
}

func matchScopeVerbs(f *facts, terms []string) []string {
	var out []string
	for _, s := range f.scopes {
		for _, w := range words(s) {
			if _, ok := baseVerb(w, terms); ok {
				out = append(out, s)
				break
			}
		}
	}
	return out
}

func matchIdentityScope(f *facts, terms []string) []string {
	if !f.mutation || f.query {
		return nil
	}
	var out []string
	for _, s := range f.scopes {
		// Only the first two colon parts name object and action: in Slack's
		// "chat:write:user" the third part is the token type, not an object.
		parts := strings.SplitN(s, ":", 3)
		ws := words(strings.Join(parts[:min(len(parts), 2)], ":"))
		if hasAny(ws, terms) && hasAny(ws, vocab("identity-scope-actions")) {
			out = append(out, s)
		}
	}
	return out
}

func matchSegments(f *facts, terms []string) []string { return segmentTerms(f, terms, false) }

func matchMutationSegments(f *facts, terms []string) []string {
	if !f.mutation || f.query {
		return nil
	}
	return matchSegments(f, terms)
}

// matchResponseSecret: a success response with credential material, unless
// the operation is a public discovery document (/.well-known) or its
// description says the secret is never returned.
func matchResponseSecret(f *facts, _ []string) []string {
	if f.wellKnown || f.secretWithheld {
		return nil
	}
	return firstN(f.respSecrets, 3)
}

// matchDescribedSecret: a read whose description says secrets come back,
// even when only some tokens receive them: the tool cannot know which
// token the runtime will hold.
func matchDescribedSecret(f *facts, _ []string) []string {
	if !f.safe || f.wellKnown || f.secretReturned == "" {
		return nil
	}
	return []string{f.secretReturned}
}

func matchRequestSecret(f *facts, _ []string) []string {
	if !f.mutation || f.query {
		return nil
	}
	return firstN(f.reqSecrets, 3)
}

func firstN(xs []string, n int) []string { return xs[:min(len(xs), n)] }

// matchCredential: a mutation of credential material, or a read of it
// when no response schema says what comes back. A read whose response
// schema is known is left to the response-secret rule, so secret metadata
// lists and public keys stay reads; counts and statistics about
// credentials never match, nor do /.well-known discovery documents.
func matchCredential(f *facts, terms []string) []string {
	if f.wellKnown || segmentsHaveAny(f, vocab("count-nouns")) {
		return nil
	}
	// An OAuth token endpoint issues a credential, whatever its method.
	if matchSegments(f, []string{"oauth", "oauth2"}) != nil && hasAny(f.lastWords, []string{"access", "token", "exchange"}) {
		return []string{"oauth"}
	}
	if (f.safe && !f.mutation) || f.query {
		if f.secretWithheld {
			return nil
		}
		// Reading /…/secret or /swarm/unlockkey reads the secret itself,
		// whatever the schema calls the field.
		if w := readsCredentialItself(f); w != "" {
			return []string{w}
		}
		// A known response without credential material is metadata,
		// unless it returns the stored values themselves (environment
		// variables' "values[].value", a secret's leaf "payload").
		if f.respKnown && !f.respValues {
			return nil
		}
	}
	return slices.DeleteFunc(matchSegments(f, terms), func(w string) bool { return !f.mutation && publicKeyRead(f, w) })
}

// readsCredentialItself returns the credential noun when the path ends in
// a literal segment whose last word is a singular credential noun
// (".../secret", "/swarm/unlockkey"): the operation reads that one secret,
// not a collection of credential metadata.
func readsCredentialItself(f *facts) string {
	if !f.endsLiteral || len(f.lastWords) == 0 {
		return ""
	}
	w := f.lastWords[len(f.lastWords)-1]
	if slices.Contains([]string{"secret", "token", "key", "password", "passphrase", "credential", "credentials",
		"creds", "kubeconfig", "apikey"}, w) && !slices.Contains(vocab("not-secret-modifiers"), f.lastWords[0]) {
		return w
	}
	return ""
}

// publicKeyRead is the counter-rule for public key material: "ssh-keys",
// "public_keys", "gpg-keys" and JWKS lists are public halves.
func publicKeyRead(f *facts, noun string) bool {
	if noun == "jwk" || noun == "jwks" {
		return true
	}
	if noun != "key" && noun != "keys" {
		return false
	}
	for _, seg := range f.segments {
		for i, w := range seg {
			if w == noun && i > 0 && slices.Contains([]string{"ssh", "public", "gpg", "pgp"}, seg[i-1]) {
				return true
			}
		}
	}
	return false
}

func segmentsHaveAny(f *facts, terms []string) bool {
	return slices.ContainsFunc(f.segments, func(seg []string) bool { return hasAny(seg, terms) })
}

// isRemoval is true for DELETE and for operations whose name says they
// delete, end or revoke something.
func isRemoval(f *facts) bool {
	if f.removal == 0 {
		f.removal = 2
		if f.method == "DELETE" || matchVerbs(f, vocab("destructive-verbs")) != nil || matchVerbs(f, vocab("access-verbs")) != nil {
			f.removal = 1
		}
	}
	return f.removal == 1
}

func matchCredentialStore(f *facts, terms []string) []string {
	if !isRemoval(f) {
		return nil
	}
	var out []string
	for _, ws := range append([][]string{f.idWords}, f.segments...) {
		for _, w := range ws {
			if slices.Contains(terms, w) && !slices.Contains(out, w) {
				out = append(out, w)
			}
		}
	}
	return out
}

// matchRevocation: removing a session, token, grant, key or membership
// takes someone's access away.
func matchRevocation(f *facts, terms []string) []string {
	n := len(f.segments)
	if !isRemoval(f) || n == 0 || f.selfAfter[n-1] {
		// Leaving a thread yourself (/thread-members/@me) is not revoking
		// anyone's access.
		return nil
	}
	var out []string
	for _, w := range f.lastWords {
		if slices.Contains(terms, w) && !slices.Contains(out, w) && !otherSession(f, w) {
			out = append(out, w)
		}
	}
	return out
}

// otherSession is true when "session(s)" names something else's session:
// qualified in its segment (upload_sessions) or under a resource that is
// not an identity (/agent_runners/{id}/sessions). Login sessions sit at
// the top (/sessions), under an identity or under an admin API.
func otherSession(f *facts, w string) bool {
	if w != "session" && w != "sessions" {
		return false
	}
	n := len(f.segments)
	if len(f.segments[n-1]) > 1 {
		return true
	}
	for _, seg := range f.segments[:n-1] {
		for _, x := range seg {
			if !slices.Contains(vocab("identity-nouns"), x) && !slices.Contains(vocab("admin-words"), x) &&
				!isVersionWord(x) {
				return true
			}
		}
	}
	return false
}

// isVersionWord matches api, v1, v2beta1 …: path prefixes that name no resource.
func isVersionWord(w string) bool {
	return w == "api" || (len(w) >= 2 && w[0] == 'v' && w[1] >= '0' && w[1] <= '9')
}

// matchDiscriminator looks at the request body's enum-valued properties
// named like a discriminator (type, action, status, …): a value whose
// words start with a destructive verb ("delete", "power_off" → poweroff)
// makes the action destructive.
func matchDiscriminator(f *facts, terms []string) []string {
	if !f.mutation || len(f.enums) == 0 {
		return nil
	}
	keys := make([]string, 0, len(f.enums))
	for k := range f.enums {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	verbs := vocab("destructive-verbs")
	var out []string
	for _, k := range keys {
		if strings.Count(k, ".") > 1 {
			continue
		}
		_, name := splitField(k)
		nw := words(name)
		if len(nw) == 0 || !slices.Contains(terms, nw[len(nw)-1]) {
			continue
		}
		for _, v := range f.enums[k] {
			vw := words(v)
			// A CamelCase value ("CloseCRM") is a name, not an action.
			if len(vw) == 0 || (len(vw) > 1 && strings.ToLower(v) != v && strings.ToUpper(v) != v) {
				continue
			}
			if slices.Contains(verbs, vw[0]) || slices.Contains(verbs, strings.Join(vw, "")) {
				out = append(out, name+"="+v)
				break
			}
		}
	}
	return out
}

// matchMoney: creating a payment, payout, transfer, capture, refund or
// charge (a POST to the collection, not a search in it), or a money verb
// in the operation's name.
func matchMoney(f *facts, terms []string) []string {
	if !f.mutation || isVerb(nameAction(f.idWords), readVerbs()) {
		return nil
	}
	var out []string
	// The money noun must be the head of the last segment: POST /payments
	// charges, POST /paymentMethods looks up methods.
	if n := len(f.lastWords); f.method == "POST" && n > 0 && slices.Contains(terms, f.lastWords[n-1]) {
		out = append(out, f.lastWords[n-1])
	}
	for _, v := range matchVerbs(f, vocab("money-verbs")) {
		if !slices.Contains(out, v) {
			out = append(out, v)
		}
	}
	return out
}

// segmentTerms lists the terms that are words of literal path segments,
// each once, in path order; skipOwners leaves out the segments that only
// name whose object it is: the caller's own (/users/@me) and the owner of
// a notification subscription (/users/{id}/notification-subscriptions).
func segmentTerms(f *facts, terms []string, skipOwners bool) []string {
	var out []string
	from := 0
	if skipOwners {
		from = ownedFrom(f)
	}
	for i, seg := range f.segments {
		if skipOwners && (f.selfAfter[i] || i < from) {
			continue
		}
		for _, w := range seg {
			if slices.Contains(terms, w) && !slices.Contains(out, w) {
				out = append(out, w)
			}
		}
		// Multi-word terms ("external accounts") match a whole segment.
		if spaced := strings.Join(seg, " "); len(seg) > 1 && slices.Contains(terms, spaced) && !slices.Contains(out, spaced) {
			out = append(out, spaced)
		}
	}
	return out
}

// matchVerbs looks for verbs among every name word of a mutation, and only
// among the action words of a safe-method operation.
func matchVerbs(f *facts, terms []string) []string {
	pool := [][]string{f.idWords, f.lastWords, f.summaryWords}
	if f.safe {
		pool = [][]string{f.actionWords}
	}
	var out []string
	for _, ws := range pool {
		for _, w := range ws {
			if v, ok := baseVerb(w, terms); ok && !slices.Contains(out, v) {
				out = append(out, v)
			}
		}
	}
	return out
}

// matchAccessVerbs is matchVerbs, plus the last literal segment of a safe
// method: GET /self-service/logout logs out (unlike GET /files/{id}/trash,
// a noun that lists, an access verb ending a path is what it does).
func matchAccessVerbs(f *facts, terms []string) []string {
	out := matchVerbs(f, terms)
	if f.safe && f.endsLiteral && !isVerb(nameAction(f.idWords), readVerbs()) {
		for _, w := range f.lastWords {
			if v, ok := baseVerb(w, terms); ok && !slices.Contains(out, v) {
				out = append(out, v)
			}
		}
	}
	return out
}

func matchSafeWriteVerb(f *facts, terms []string) []string {
	if !f.safe {
		return nil
	}
	return matchVerbs(f, terms)
}

func hasAny(ws, terms []string) bool {
	if len(ws) == 0 {
		return false
	}
	for _, w := range ws {
		if slices.Contains(terms, w) {
			return true
		}
	}
	return false
}

func matchIdentityPath(f *facts, terms []string) []string {
	if !f.mutation || f.query {
		return nil
	}
	return segmentTerms(f, terms, true)
}
