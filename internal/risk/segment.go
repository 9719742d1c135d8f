package risk

import (
	"strings"
	"sync"
)

// Run-together words. Path segments and operationIds often glue words
// without a separator ("clusterrolebindings", "sshkeys", "servicetoken",
// "apikeys", "unlockkey"), so a word the splitter in words() returns whole
// is split again by dynamic programming over a dictionary: the split into
// dictionary words with the fewest pieces wins, and a word that is itself in
// the dictionary (or has no complete split) is kept as it is. That keeps
// false friends whole: "openid" and "keydb" are dictionary words, so they
// never become "open id" or "key db".
//
// The dictionary is every term of the rule vocabularies (vocab.go) plus the
// general API nouns of segmentWords below: a documented word list, not a
// list of special cases. A piece must be at least two letters long, so a
// stray letter never completes a split, and one piece must be a noun of a
// risk family (riskNouns): "append" is not app + end.

// segmentWords are common API words that are not rule terms. They exist so
// that a risky term glued to an ordinary word still splits ("servicetoken"
// needs "service", "clusterrolebindings" needs "cluster" and "bindings").
var segmentWords = []string{
	// resources and containers
	"cluster", "clusters", "service", "services", "account", "accounts", "project", "projects", "team", "teams",
	"org", "orgs", "organization", "organizations", "tenant", "tenants", "workspace", "workspaces", "app", "apps",
	"application", "applications", "node", "nodes", "pod", "pods", "container", "containers", "image", "images",
	"volume", "volumes", "network", "networks", "namespace", "namespaces", "deployment", "deployments",
	"instance", "instances", "server", "servers", "database", "databases", "db", "host", "hosts", "device",
	"devices", "plugin", "plugins", "task", "tasks", "job", "jobs", "event", "events", "item", "items",
	"file", "files", "folder", "folders", "object", "objects", "bucket", "buckets", "record", "records",
	"message", "messages", "channel", "channels", "site", "sites", "domain", "domains", "repo", "repos",
	"binding", "bindings", "config", "configs", "configuration", "configurations", "settings", "setting", "status", "state",
	"info", "version", "versions", "tag", "tags", "label", "labels", "name", "names", "list", "lists",
	"metadata", "data", "type", "types", "rule", "rules", "hook", "hooks", "endpoint", "endpoints",
	"storage", "store", "stores", "cache", "log", "logs", "audit", "report", "reports", "stats", "usage",
	"count", "counts", "counter", "counters", "health", "metrics", "schema", "schemas", "template", "templates",
	"order", "orders", "customer", "customers", "invoice", "invoices", "product", "products", "catalog",
	"inventory", "location", "locations", "booking", "bookings", "profile", "profiles", "client", "clients",
	"issuer", "issuers", "trust", "request", "requests", "response", "flow", "flows", "code", "codes",
	"link", "links", "url", "urls", "web", "ws", "http", "id", "ids", "uuid", "bulk", "batch", "all",
	"self", "my", "new", "public", "private", "signing", "unlock", "join", "tfa", "otp", "role", "tag",
	"blacklist", "whitelist", "allowlist", "denylist", "ssh", "tls", "ca", "crl", "ocsp", "pki", "cert",
	"certs", "csr", "csrs", "approval", "approvals", "admission", "mutating", "validating", "webhook",
	"webhooks", "port", "forward", "cloud", "init", "proxy", "keydb", "openid", "oauth", "oauth2", "oidc",
	"jwks", "jwk", "jwt", "well", "known", "wellknown", "introspect", "userinfo", "login", "logout", "signin",
	"signout", "signup", "password", "passwords", "passkey", "passkeys", "unseal", "rekey", "seal", "wrap",
	"unwrap", "lookup", "renew", "rotate", "rotation", "issue", "sign", "verify", "generate", "api", "apis",
	"key", "keys", "token", "tokens", "secret", "secrets", "session", "sessions", "user", "users",
}

var (
	segmentDictOnce sync.Once
	segmentDict     map[string]bool
	segmentMaxLen   int
)

// dictionary builds the segmentation dictionary once (it is read-only
// afterwards, so concurrent classification is safe).
func dictionary() (map[string]bool, int) {
	segmentDictOnce.Do(func() {
		segmentDict = map[string]bool{}
		add := func(ws ...string) {
			for _, w := range ws {
				segmentDict[w] = true
				segmentMaxLen = max(segmentMaxLen, len(w))
			}
		}
		add(segmentWords...)
		for _, fam := range vocabularies() {
			for _, t := range fam.terms {
				// Multi-word terms ("port forward") add their words.
				add(strings.Fields(t)...)
			}
		}
	})
	return segmentDict, segmentMaxLen
}

// segment splits a lower-case ASCII word into dictionary words when a
// complete split exists and the word is not a dictionary word itself.
// Words of fewer than six letters are never split: the short glued terms
// the rules need ("tfa", "2fa") are dictionary words of their own.
func segment(w string) []string {
	if p, ok := glued(w); ok {
		return p
	}
	return []string{w}
}

// glued returns the pieces of w and true when segment splits it; false,
// without allocating, when w stays whole (nearly every word).
func glued(w string) ([]string, bool) {
	dict, maxLen := dictionary()
	if len(w) < 6 || dict[w] || !isLowerASCII(w) {
		return nil, false
	}
	// best[i] is the fewest pieces that cover w[:i]; from[i] where the last
	// piece starts (on the stack for ordinary word lengths).
	n := len(w)
	var bestBuf, fromBuf [64]int
	best, from := bestBuf[:0], fromBuf[:0]
	if n+1 > len(bestBuf) {
		best, from = make([]int, 0, n+1), make([]int, 0, n+1)
	}
	best, from = best[:n+1], from[:n+1]
	for i := 1; i <= n; i++ {
		best[i] = -1
		for j := max(0, i-maxLen); j <= i-2; j++ {
			if best[j] < 0 || !dict[w[j:i]] {
				continue
			}
			if c := best[j] + 1; best[i] < 0 || c < best[i] {
				best[i], from[i] = c, j
			}
		}
	}
	if best[n] < 2 {
		return nil, false
	}
	// Split only when a piece is a risk noun: segmentation exists to find
	// "keys" in "sshkeys", and an ordinary word that happens to be two
	// dictionary words ("append" = app + end) stays whole.
	nouns := riskNouns()
	noun := false
	for i := n; i > 0; i = from[i] {
		if nouns[w[from[i]:i]] {
			noun = true
			break
		}
	}
	if !noun {
		return nil, false
	}
	out := make([]string, best[n])
	for i, k := n, best[n]-1; i > 0; i, k = from[i], k-1 {
		out[k] = w[from[i]:i]
	}
	return out, true
}

var (
	riskNounsOnce sync.Once
	riskNounSet   map[string]bool
)

// riskNouns are the terms of the noun families; a split must yield one.
func riskNouns() map[string]bool {
	riskNounsOnce.Do(func() {
		riskNounSet = map[string]bool{}
		for _, fam := range []string{"credential-nouns", "identity-nouns", "admin-words", "channel-words",
			"access-subjects", "credential-stores", "money-nouns", "secret-heads", "admission-hooks"} {
			for _, t := range vocab(fam) {
				riskNounSet[t] = true
			}
		}
	})
	return riskNounSet
}

func isLowerASCII(w string) bool {
	for i := 0; i < len(w); i++ {
		c := w[i]
		if (c < 'a' || c > 'z') && (c < '0' || c > '9') {
			return false
		}
	}
	return true
}
