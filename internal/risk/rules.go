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
// highest first, so the first reason for a code is its strongest.
func ruleTable() []Rule {
	return []Rule{
		{Name: "admin-extension", Code: "ext", Class: Privileged, Applies: "any method",
			Looks: "vendor extension names (x-…) with a value other than false/null/empty",
			Terms: []string{"admin", "administrator", "privileged", "superuser"},
			Text:  "The vendor extension %s marks the operation as admin-only.", match: matchAdminExtension},
		{Name: "workload-channel", Code: "channel", Class: Privileged, Applies: "any method, GET included",
			Looks: "last literal path segment",
			Terms: []string{"exec", "attach", "proxy", "portforward", "shell", "ssh"},
			Text:  "The operation opens a channel into a running workload (%s); even a GET can run commands.", match: matchChannel},
		{Name: "admin-scope", Code: "scope", Class: Privileged, Applies: "any method",
			Looks: "words of every security scope of every alternative",
			Terms: []string{"admin", "owner", "manage", "superuser", "root", "sudo"},
			Text:  "It needs the administrative scope %s.", match: matchScopeWords},
		{Name: "admin-path", Code: "path", Class: Privileged, Applies: "any method",
			Looks: "literal path segments",
			Terms: []string{"admin", "admins", "administrator", "administrators", "superuser"},
			Text:  "The path names an administrative API (%s).", match: matchSegments},
		{Name: "credential-material", Code: "credential", Class: Privileged, Applies: "any method, GET included",
			Looks: "literal path segments; an oauth/oauth2 segment with a last segment access, token or exchange",
			Terms: credentialNouns(),
			Text:  "It reads or changes credential material (%s); reading a secret is as dangerous as changing one.", match: matchCredential},
		{Name: "identity-write-scope", Code: "scope", Class: Privileged, Applies: "mutations",
			Looks: "scopes naming an identity object together with write, update, manage, edit, create, delete, set or modify",
			Terms: identityScopeNouns(),
			Text:  "It changes identities or access: it needs the scope %s.", match: matchIdentityScope},
		{Name: "identity-path", Code: "path", Class: Privileged, Applies: "mutations",
			Looks: "literal path segments, except the caller's own object (/users/@me)",
			Terms: identityNouns(),
			Text:  "It changes who can access what (%s).", match: matchIdentityPath},
		{Name: "delete-method", Code: "method", Class: Destructive, Applies: "DELETE",
			Looks: "HTTP method",
			Text:  "The HTTP method %s removes the resource.", match: matchMethods("DELETE")},
		{Name: "destructive-verb", Code: "verb", Class: Destructive,
			Applies: "mutations: every word; safe methods: only words in action position",
			Looks:   "operationId, last literal path segment and #fragment, summary",
			Terms:   destructiveVerbs(),
			Text:    "Its name says it will %s something, which cannot simply be undone.", match: matchVerbs},
		{Name: "destructive-scope", Code: "scope", Class: Destructive, Applies: "any method",
			Looks: "words of every security scope",
			Terms: destructiveVerbs(),
			Text:  "It needs the destructive scope %s.", match: matchScopeVerbs},
		{Name: "write-method", Code: "method", Class: Write, Applies: "POST, PUT, PATCH and any other unsafe method",
			Looks: "HTTP method",
			Text:  "The HTTP method %s changes state.", match: matchUnsafeMethod},
		{Name: "state-changing-get", Code: "verb", Class: Write, Applies: "safe methods (GET, HEAD, OPTIONS, TRACE)",
			Looks: "words in action position: summary's first word, operationId's verb, RPC method name",
			Terms: writeVerbs(),
			Text:  "It is a safe method by HTTP, but its name says it will %s something.", match: matchSafeWriteVerb},
		{Name: "execute-scope", Code: "scope", Class: Write, Applies: "any method",
			Looks: "words of every security scope",
			Terms: []string{"execute", "exec", "run"},
			Text:  "It needs the scope %s, which runs something.", match: matchScopeWords},
		{Name: "safe-method", Code: "method", Class: Read, Applies: "GET, HEAD, OPTIONS, TRACE",
			Looks: "HTTP method",
			Text:  "The HTTP method %s only reads.", match: matchMethods("GET", "HEAD", "OPTIONS", "TRACE")},
	}
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
// write, including unknown ones: an unknown method is not a read.
func matchUnsafeMethod(f *facts, _ []string) []string {
	if f.safe || f.method == "DELETE" {
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

func matchChannel(f *facts, terms []string) []string {
	if len(f.segments) == 0 {
		return nil
	}
	last := f.segments[len(f.segments)-1]
	joined := strings.Join(last, "")
	for _, t := range terms {
		if slices.Contains(last, t) || joined == t {
			return []string{t}
		}
	}
	return nil
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
	if !f.mutation {
		return nil
	}
	var out []string
	for _, s := range f.scopes {
		// Only the first two colon parts name object and action: in Slack's
		// "chat:write:user" the third part is the token type, not an object.
		parts := strings.SplitN(s, ":", 3)
		ws := words(strings.Join(parts[:min(len(parts), 2)], ":"))
		if hasAny(ws, terms) && hasAny(ws, identityScopeActions()) {
			out = append(out, s)
		}
	}
	return out
}

func matchSegments(f *facts, terms []string) []string { return segmentTerms(f, terms, false) }

func matchCredential(f *facts, terms []string) []string {
	out := matchSegments(f, terms)
	if matchSegments(f, []string{"oauth", "oauth2"}) != nil && hasAny(f.lastWords, []string{"access", "token", "exchange"}) &&
		!slices.Contains(out, "oauth") {
		out = append(out, "oauth")
	}
	return out
}

func matchIdentityPath(f *facts, terms []string) []string {
	if !f.mutation {
		return nil
	}
	return segmentTerms(f, terms, true)
}

// segmentTerms lists the terms that are words of literal path segments,
// each once, in path order; skipSelf leaves out the segments that name the
// caller's own object (/users/@me).
func segmentTerms(f *facts, terms []string, skipSelf bool) []string {
	var out []string
	for i, seg := range f.segments {
		if skipSelf && f.selfAfter[i] {
			continue
		}
		for _, w := range seg {
			if slices.Contains(terms, w) && !slices.Contains(out, w) {
				out = append(out, w)
			}
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

func matchSafeWriteVerb(f *facts, terms []string) []string {
	if !f.safe {
		return nil
	}
	return matchVerbs(f, terms)
}

func hasAny(ws, terms []string) bool {
	for _, w := range ws {
		if slices.Contains(terms, w) {
			return true
		}
	}
	return false
}
