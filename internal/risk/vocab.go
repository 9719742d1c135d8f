package risk

import "sync"

// The vocabularies of the rule table, one family per entry, each with the
// reason it exists. Terms are whole words after segmentation (segment.go):
// "apikeys" matches "keys" because it splits into api + keys, while
// "openid" never matches "open". They are built by a function so nothing
// can change them at run time; Rules hands out copies.

// family is one vocabulary: a name the rules refer to, why it exists, and
// its terms.
type family struct {
	name  string
	why   string
	terms []string
}

// vocabularies lists every family. Order does not matter.
func vocabularies() []family {
	return []family{
		{"destructive-verbs", "verbs that delete, end or irreversibly change something: lifecycle verbs (close, " +
			"decline, reject, void, redact, rebuild, restore, reset, wipe, purge, terminate, suspend, deactivate) " +
			"lose data or state that cannot simply be recreated",
			[]string{"delete", "remove", "destroy", "purge", "revoke", "cancel", "terminate", "wipe", "reset",
				"void", "refund", "erase", "archive", "trash", "kill", "drop", "truncate", "uninstall", "deactivate",
				"disable", "suspend", "ban", "kick", "expire", "invalidate", "discard", "clear", "unpublish", "unlink",
				"disconnect", "evict", "prune", "shred", "redact", "decline", "reject", "close", "rebuild", "restore",
				"shutdown", "poweroff", "deprovision", "unregister", "detach", "forget", "rollback"}},
		{"write-verbs", "verbs that create or change state reversibly; on a GET in action position they make it a write",
			[]string{"create", "add", "update", "set", "edit", "modify", "post", "put", "patch", "send", "publish",
				"push", "approve", "deny", "invite", "open", "share", "upload", "import", "request",
				"run", "execute", "trigger", "start", "stop", "end", "enable", "assign", "unassign", "join", "leave",
				"move", "copy", "rename", "mark", "lock", "unlock", "install", "submit", "confirm", "accept",
				"register", "subscribe", "unsubscribe", "merge", "sync", "grant", "apply", "save", "write", "insert",
				"upsert", "provision", "transfer", "convert", "invoke", "duplicate", "complete", "login", "logout",
				"restart", "reboot", "retry", "resend", "replay", "rotate", "renew", "generate", "issue", "sign"}},
		{"read-verbs", "verbs that name a read; they only decide which word of an operationId is its action " +
			"(\"invite_resolve\" resolves, it does not invite)",
			[]string{"get", "list", "search", "find", "read", "fetch", "query", "show", "describe", "check",
				"download", "export", "count", "lookup", "look", "view", "watch", "retrieve", "preview", "head",
				"options", "browse", "poll", "stream", "resolve", "test", "info", "validate", "verify", "estimate",
				"calculate", "typeahead", "inspect", "introspect", "discover"}},
		{"access-verbs", "verbs that end, assume or replace someone's access: revoking a token or grant, logging " +
			"a session out, impersonating a user, rotating a key or secret (the old one stops working, a new one " +
			"is issued). Removing access is PRIVILEGED, not only DESTRUCTIVE",
			[]string{"revoke", "logout", "signout", "impersonate", "sudo", "rotate"}},
		{"credential-nouns", "credential material: reading it is as dangerous as changing it, and creating, " +
			"rotating or deleting it changes who can get in",
			[]string{"token", "tokens", "secret", "secrets", "credential", "credentials", "creds", "password",
				"passwords", "passphrase", "passkey", "passkeys", "key", "keys", "apikey", "apikeys", "kubeconfig",
				"env", "login", "certificate", "certificates", "cert", "certs", "jwk", "jwks", "unseal", "rekey",
				"recovery"}},
		{"credential-stores", "stores whose entries are secrets: destroying an entry destroys a credential " +
			"(Vault's kv secrets engine, key rings, key stores)",
			[]string{"kv", "keyring", "keyrings", "keystore", "keystores", "keychain", "vault"}},
		{"identity-nouns", "identity and access: who exists and what they may do — users, members and " +
			"memberships, roles and role bindings, cluster roles, policies, permissions, grants, ACLs, invitations, " +
			"sessions, MFA/2FA/TFA/OTP factors, SSO/SAML/OIDC/SCIM settings, OAuth apps and clients, auth-method " +
			"configuration, impersonation, shared links that open content to others, and external accounts and " +
			"payout destinations (where money goes is access to money)",
			[]string{"user", "users", "member", "members", "membership", "memberships", "role", "roles",
				"rolebinding", "rolebindings", "clusterrole", "clusterroles", "permission", "permissions", "privilege",
				"privileges", "policy", "policies", "grant", "grants", "group", "groups", "usergroup", "usergroups",
				"collaboration", "collaborations", "collaborator", "collaborators", "owner", "owners", "ownership",
				"invite", "invites", "invitation", "invitations", "sso", "saml", "scim", "oidc", "oauth", "oauth2",
				"mfa", "2fa", "tfa", "totp", "otp", "factor", "factors", "authenticator", "authenticators",
				"webauthn", "scopes", "acl", "acls", "subuser", "subusers", "teammates", "access", "shared", "auth",
				"authn", "authentication", "identity", "identities", "impersonation", "consent", "consents",
				"trust", "externalaccounts", "external accounts", "captcha", "recaptcha", "lockout"}},
		{"identity-reads", "identity nouns whose plain reads are harmless (reading users, members, roles or " +
			"teams is READ); listed so the counter-rule can say which nouns it keeps at READ",
			[]string{"users", "members", "roles", "teams", "groups"}},
		{"access-subjects", "what a revocation takes away: sessions, tokens and grants. DELETE or an end verb " +
			"on them removes someone's access",
			[]string{"session", "sessions", "token", "tokens", "grant", "grants", "consent", "consents",
				"authorization", "authorizations", "credential", "credentials", "key", "keys", "apikey", "apikeys",
				"secret", "secrets", "member", "members", "membership", "memberships"}},
		{"admission-hooks", "Kubernetes-style admission control: a mutating or validating webhook configuration " +
			"sees and rewrites every object, and approving a certificate signing request issues a credential",
			[]string{"admission", "mutating", "validating", "certificatesigningrequests", "csr", "csrs"}},
		{"admin-words", "words that name administrative power in scopes, vendor extensions and paths",
			[]string{"admin", "admins", "administrator", "administrators", "superuser", "sudo", "root", "owner",
				"privileged"}},
		{"channel-words", "channels into a running workload (Kubernetes exec/attach/portforward/proxy, Docker " +
			"exec and attach, consoles and shells): even a GET can run commands",
			[]string{"exec", "attach", "portforward", "port forward", "proxy", "shell", "ssh", "console",
				"terminal", "tty"}},
		{"attachable-objects", "things that are attached without opening a channel (a volume or disk to a " +
			"machine, a payment method to a customer, an address or policy to a resource): \"attach\" is a " +
			"workload channel only when none of them is on the path",
			[]string{"volume", "volumes", "disk", "disks", "payment", "payments", "card", "cards", "source", "sources",
				"ip", "ips", "address", "addresses", "interface", "interfaces", "policy", "policies", "network",
				"networks", "subnet", "subnets", "gateway", "gateways", "certificate", "certificates", "tag", "tags",
				"file", "files", "attachment", "attachments", "storage", "drive", "drives", "snapshot", "snapshots"}},
		{"settings-channel-words", "channel words that also name a settings object (a reverse proxy's " +
			"configuration): they open a channel only when a path or a transport follows them " +
			"(/pods/{name}/proxy/{path}); a path ending in them reads or changes the settings",
			[]string{"proxy"}},
		{"notification-objects", "counter-rule: notifications and subscriptions to them are the caller's own " +
			"preferences; an identity noun before them (/users/{id}/notification-subscriptions) names whose they " +
			"are, not an access being changed",
			[]string{"notification", "notifications", "subscription", "subscriptions", "alert", "alerts", "digest",
				"digests"}},
		{"security-qualifiers", "words that make a settings object an organisation's security settings " +
			"(session timeouts, security settings, login and IP allow-lists): changing them changes how anyone gets in",
			[]string{"security", "session", "sessions", "login", "signin", "password", "passwords", "ip"}},
		{"settings-nouns", "settings objects: with a security qualifier in the same or the next segment " +
			"(/session-timeout, /settings/security, /ip-allowlist) a change to them is an access change",
			[]string{"settings", "setting", "config", "configuration", "policy", "policies", "timeout", "timeouts",
				"lifetime", "expiry", "requirement", "requirements", "enforcement", "allowlist", "allowlists",
				"whitelist", "whitelists", "restrictions"}},
		{"query-verbs", "counter-rule: a POST named by one of these verbs, with no state-changing verb, only " +
			"searches or retrieves (bulk-retrieve, introspect, lookup): the words around it name what it reads, " +
			"not an access it changes. Not validate or verify: validating a code or a factor is a login step",
			[]string{"search", "retrieve", "query", "lookup", "introspect", "estimate", "calculate"}},
		{"channel-transports", "last segments that open or drive a channel named by the segment before them " +
			"(/exec/{id}/start, /attach/ws, /exec/{id}/resize)",
			[]string{"start", "ws", "websocket", "stream", "resize", "stdin", "upgrade", "connect"}},
		{"money-nouns", "money movement: creating a payment, payout, transfer, capture, refund or charge " +
			"moves money irreversibly",
			[]string{"payment", "payments", "payout", "payouts", "transfer", "transfers", "capture", "captures",
				"refund", "refunds", "charge", "charges", "withdrawal", "withdrawals", "disbursement",
				"disbursements", "checkout", "checkouts"}},
		{"money-verbs", "verbs that move money",
			[]string{"capture", "refund", "payout", "charge", "withdraw", "disburse"}},
		{"discriminators", "request-body properties whose enum value selects what an action operation does",
			[]string{"type", "action", "actions", "status", "state", "operation", "command", "kind", "event",
				"intent", "mode"}},
		{"count-nouns", "counter-rule: counts, statistics and usage figures about credentials or users carry no " +
			"secret and change nothing",
			[]string{"count", "counts", "counter", "counters", "stats", "statistics", "usage", "metrics"}},
		{"label-fields", "counter-rule: request fields that only rename or label a thing; an update of a " +
			"credential's labels changes no access",
			[]string{"name", "labels", "label", "tags", "description", "metadata", "version", "annotations"}},
		{"secret-heads", "response or request properties that hold credential material when they are the " +
			"property's last word (\"client_secret\", \"JoinTokens\", \"kubeconfig\"); \"token_type\" or " +
			"\"has_password\" end in another word and are not secrets",
			[]string{"password", "passwd", "passphrase", "secret", "secrets", "token", "tokens", "credential",
				"credentials", "creds", "kubeconfig", "apikey", "apikeys", "otp", "totp", "privatekey"}},
		{"secret-key-modifiers", "a property ending in key/keys is a secret only with one of these words before " +
			"it (api_key, private_key, unlock_key, signing key); a bare \"key\" is usually a name",
			[]string{"api", "private", "secret", "access", "unlock", "signing", "signature", "encryption", "master",
				"session", "shared", "hmac", "client", "license", "storage", "join", "recovery", "root"}},
		{"secret-trailers", "words that may follow a secret head and still name its value (secret_value, " +
			"private_key_pem)",
			[]string{"value", "pem", "plaintext", "material", "raw", "string"}},
		{"not-secret-modifiers", "counter-rule: words that make a secret-looking property metadata, public " +
			"material or a masked value. Masked values (last4, ****, hints, prefixes) are not secrets: what is " +
			"shown cannot be used to get in",
			[]string{"public", "page", "next", "pagination", "cursor", "continuation", "sync", "csrf", "masked",
				"redacted", "hint", "last4", "last", "prefix", "suffix", "preview", "hashed", "hash", "fingerprint",
				"has", "is", "enabled", "required", "expires", "expiry", "expiration", "type", "id", "ids", "name",
				"count", "length", "created", "updated", "ttl", "rotation", "policy", "format", "algorithm", "kind",
				"status", "scopes", "usage", "endpoint", "url", "non", "version", "use",
				// payment-instrument and one-time tokens reference a card or a
				// request; they open no account
				"donation", "billing", "payment", "card", "nonce", "verification", "idempotency"}},
		{"jwk-private-members", "JSON Web Key private members: an object with kty and one of these holds a " +
			"private or symmetric key",
			[]string{"d", "p", "q", "k", "dp", "dq", "qi"}},
		{"compounds", "protected words that camelCase splits apart or that contain a verb: they are matched " +
			"whole (\"OpenID\" is the protocol, not the verb open; KeyDB is a database, not a key)",
			[]string{"openid", "keydb", "oauth", "oauth2", "webauthn", "github", "gitlab", "passkey", "passkeys"}},
		{"identity-scope-actions", "scope actions that change identity objects",
			[]string{"write", "update", "manage", "management", "edit", "create", "delete", "set", "modify"}},
		{"scope-levels", "scope words that name an access level rather than a resource; a vendor listing " +
			"read, write and admin levels of one resource together means any of them",
			[]string{"read", "readonly", "write", "admin", "manage", "owner", "full", "all", "view", "edit"}},
	}
}

var (
	vocabOnce   sync.Once
	vocabByName map[string][]string
)

// vocab returns one family's terms. The slice is shared and must not be
// changed (Rules copies what it hands out); an unknown name is a
// programming error caught by every test that classifies.
func vocab(name string) []string {
	vocabOnce.Do(func() {
		vocabByName = map[string][]string{}
		for _, f := range vocabularies() {
			vocabByName[f.name] = f.terms
		}
	})
	t, ok := vocabByName[name]
	if !ok {
		panic("risk: unknown vocabulary " + name)
	}
	return t
}

// Vocabulary is one word family of the rule table, as the console shows it.
type Vocabulary struct {
	Name  string   `json:"name"`
	Why   string   `json:"why"`
	Terms []string `json:"terms"`
}

// Vocabularies returns a copy of every word family, for the console.
func Vocabularies() []Vocabulary {
	fams := vocabularies()
	out := make([]Vocabulary, len(fams))
	for i, f := range fams {
		out[i] = Vocabulary{Name: f.name, Why: f.why, Terms: f.terms}
	}
	return out
}
