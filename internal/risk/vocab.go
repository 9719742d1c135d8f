package risk

// The vocabularies of the rule table. They are functions rather than
// package variables so that nothing can change them at run time; Rules
// hands out copies.

func destructiveVerbs() []string {
	return []string{"delete", "remove", "destroy", "purge", "revoke", "cancel", "terminate", "wipe", "reset",
		"void", "refund", "erase", "archive", "trash", "kill", "drop", "truncate", "uninstall", "deactivate",
		"disable", "suspend", "ban", "kick", "expire", "invalidate", "discard", "clear", "unpublish", "unlink",
		"disconnect", "evict", "prune", "shred"}
}

func writeVerbs() []string {
	return []string{"create", "add", "update", "set", "edit", "modify", "post", "put", "patch", "send", "publish",
		"push", "approve", "deny", "reject", "invite", "open", "close", "share", "upload", "import", "request",
		"run", "execute", "trigger", "start", "stop", "end", "enable", "assign", "unassign", "join", "leave",
		"move", "copy", "rename", "mark", "lock", "unlock", "restore", "install", "submit", "confirm", "accept",
		"register", "subscribe", "unsubscribe", "merge", "sync", "grant", "apply", "save", "write", "insert",
		"upsert", "provision", "transfer", "convert", "invoke", "duplicate", "complete", "login", "logout"}
}

// readVerbs are verbs that name a read. They only decide which word of an
// operationId is its action ("invite_resolve" resolves, it does not invite).
func readVerbs() []string {
	return []string{"get", "list", "search", "find", "read", "fetch", "query", "show", "describe", "check",
		"download", "export", "count", "lookup", "look", "view", "watch", "retrieve", "preview", "head",
		"options", "browse", "poll", "stream", "resolve", "test", "info", "validate", "verify", "estimate",
		"calculate", "typeahead"}
}

func stateChangingVerbs() []string { return append(destructiveVerbs(), writeVerbs()...) }

func credentialNouns() []string {
	return []string{"token", "tokens", "secret", "secrets", "credential", "credentials", "password", "passwords",
		"passphrase", "key", "keys", "apikey", "apikeys", "env", "login"}
}

func identityNouns() []string {
	return []string{"user", "users", "member", "members", "membership", "memberships", "role", "roles",
		"permission", "permissions", "policy", "policies", "group", "groups", "usergroup", "usergroups",
		"collaboration", "collaborations", "collaborator", "collaborators", "owner", "owners", "invite", "invites",
		"invitation", "invitations", "sso", "saml", "scim", "mfa", "2fa", "totp", "scopes", "acl", "acls",
		"subuser", "subusers", "teammates", "access", "shared"}
}

// identityScopeNouns differ from identityNouns on purpose: in scopes "groups"
// often means conversations (Slack "groups:write" posts to private
// channels), so only user groups count.
func identityScopeNouns() []string {
	return []string{"user", "users", "member", "members", "membership", "memberships", "role", "roles",
		"permission", "permissions", "policy", "policies", "usergroup", "usergroups", "org", "orgs",
		"organization", "organizations", "token", "tokens", "secret", "secrets", "key", "keys"}
}

func identityScopeActions() []string {
	return []string{"write", "update", "manage", "edit", "create", "delete", "set", "modify"}
}
