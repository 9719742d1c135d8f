// Package risk classifies an operation of an imported API into a risk class
// (READ < WRITE < DESTRUCTIVE < PRIVILEGED) and keeps every reason that
// contributed, so the console can show why a tool is dangerous.
//
// Classify is a pure function of one openapi.Operation. Every rule of the
// table below that matches adds a reason (a code such as "verb:revoke" and a
// sentence); the class is the highest class of any reason. Rules never lower
// a class, so adding a signal to an operation can only raise it.
//
// # Words
//
// Names are split into lower-case words on every non-alphanumeric character
// and on camelCase boundaries: "admin.apps.approve", "chat_delete",
// "deleteTask", "levels:append" and Box's "#remove_shared_link" all split.
// Run-together lower-case words are then split by dynamic programming over
// a documented dictionary (segment.go: the vocabulary terms plus common API
// nouns): "sshkeys" → ssh keys, "servicetoken" → service token,
// "clusterrolebindings" → cluster rolebindings. A word is split only when
// every piece is a dictionary word and one is a risk noun, and never when it
// is a dictionary word itself, so "append" stays whole. Protected compounds
// ("OpenID", "KeyDB", "OAuth") are matched whole: openid is not the verb
// open. All matching is on whole words after this segmentation.
//
// Verbs match whole words in their base or third-person form ("delete",
// "deletes"), never the past participle: "deleted_at" or "List deleted
// items" is not a delete.
//
// A mutation is an operation with an unsafe method (anything but GET, HEAD,
// OPTIONS, TRACE), or a safe-method operation whose name says it changes
// state. For safe methods only words in action position count as verbs: the
// verb of the operationId (a read verb at either end of the id wins,
// otherwise its first word if it is a verb, otherwise its last word), the
// same for an RPC method name (the part of the last path segment after its
// last dot or colon: Slack "/auth.revoke"), and the summary's first word
// unless a name already says it reads. So "GET /files/{id}/trash" reads the
// trash, while "GET /auth.revoke" revokes.
//
// Path segments are literal segments only: {parameters}, numeric ids and
// self aliases (@me) are dropped; an identity segment followed by a self
// alias (/users/@me/...) is the caller's own object, not identity admin.
//
// # Schemas
//
// The importer lists the property paths of the 2xx response schemas and of
// the request body (openapi.Operation.ResponseFields, RequestFields,
// RequestEnums). A property holds credential material when a secret word
// ends its name (password, secret, token, credentials, kubeconfig, otp …),
// when it is a key with a secret modifier (api_key, private_key, UnlockKey,
// SigningCAKey), or when it is a JWK private member (d, p, q, k, dp, dq, qi)
// beside kty. Public key material (public_key, fingerprint, certificate,
// JWKS without private members) is not a secret. Masked values are not
// secrets either: a name with last4, masked, redacted, hint, prefix or
// suffix names what is shown, and what is shown cannot be used to get in.
// Only the operation's own object counts: secrets nested in an embedded
// related object (a consent request's client) or lists of secret references
// ({SecretID, SecretName}) do not, and a description saying secrets are
// never returned withholds the signal.
//
// # Rule table
//
// Highest class first; Rules returns the same table as data for the console
// (/risk-rules), and vocab.go holds every vocabulary as a family with the
// reason it exists.
//
//	class        code        applies to            signal
//	PRIVILEGED   ext:        any method            vendor extension named admin/administrator/privileged/superuser
//	                                               with a true-ish value (x-box-requires-admin)
//	PRIVILEGED   channel:    any method, GET too   x-kubernetes-action: connect; a last segment exec, attach,
//	                                               portforward, proxy, shell, ssh, console, terminal, tty — or the
//	                                               segment before a transport (/exec/{id}/start, /attach/ws); a
//	                                               path ending in proxy names reverse-proxy settings (a channel
//	                                               only with /proxy/{path}, a transport or connect)
//	PRIVILEGED   verb:       mutations; safe: action words and the last segment   revoke, logout, signout,
//	                                               impersonate, sudo, rotate: ending, assuming or replacing access
//	PRIVILEGED   scope:      any method            a scope with admin, owner, superuser, root or sudo — unless the
//	                                               operation lists a read/write scope of the same resource beside it
//	                                               (any-of lists: Sentry "org:read org:write org:admin"); scopes come
//	                                               from security requirements and x-*scope*/x-*permission*/
//	                                               x-*requires* extensions; manage alone is not admin
//	PRIVILEGED   path:       mutations             a path segment admin(s), administrator(s), superuser
//	PRIVILEGED   response:   any method, GET too   a 2xx response property with credential material (see Schemas)
//	PRIVILEGED   description: safe methods         the description says secrets are returned, included or shown
//	                                               ("Encrypted secrets are only returned when …"), with no negation
//	PRIVILEGED   request:    mutations             a request-body property with credential material
//	PRIVILEGED   credential: mutations; reads only  a credential noun in a path segment (token, secret, key,
//	                         without a response     password, creds, certificate, jwk, kubeconfig, env, login …);
//	                         schema                 an OAuth token endpoint whatever the method; a read whose path
//	                                               ends in the secret itself (…/secret, /swarm/unlockkey); not
//	                                               counts or statistics, ssh/public key lists or /.well-known
//	PRIVILEGED   credential: DELETE, destructive   a secret store named in the path or operationId (kv, keyring,
//	                         verbs                  keystore, vault)
//	PRIVILEGED   scope:      mutations             a scope naming an identity object (users, members, roles,
//	                                               permissions, policies, usergroups, tokens, keys, credentials)
//	                                               with write, update, manage, edit, create, delete, set or modify
//	PRIVILEGED   path:       mutations             identity and access nouns (users, members, memberships, roles,
//	                                               role bindings, cluster roles, permissions, policies, grants,
//	                                               groups, invitations, sessions, MFA/2FA/TFA/OTP factors,
//	                                               SSO/SAML/OIDC/SCIM, OAuth, auth, identities, consent, trust,
//	                                               external accounts, shared links, admission webhooks, CSRs),
//	                                               except the caller's own object (/users/@me) and the owner of
//	                                               a notification subscription (/users/{id}/notifications)
//	PRIVILEGED   settings:   mutations             the last two segments hold a settings noun (settings, policy,
//	                                               timeout, lifetime, requirements, allowlist, restrictions …) and a
//	                                               security qualifier (security, session, login, password, ip):
//	                                               /session-timeout, /settings/security, /ip-allowlist
//	PRIVILEGED   revoke:     DELETE, destructive   the last segment names sessions, tokens, grants, consents,
//	                         verbs                  keys, secrets or members (not upload sessions, not /@me)
//	DESTRUCTIVE  method:     DELETE                the method itself
//	DESTRUCTIVE  verb:       mutations (all words) delete, remove, destroy, purge, cancel, terminate, wipe, reset,
//	                         safe (action words)   void, refund, erase, archive, trash, kill, drop, truncate,
//	                                               uninstall, deactivate, disable, suspend, ban, kick, expire,
//	                                               invalidate, discard, clear, unpublish, unlink, disconnect, evict,
//	                                               prune, shred, redact, decline, reject, close, rebuild, restore,
//	                                               shutdown, poweroff, deprovision, unregister, detach, forget,
//	                                               rollback
//	DESTRUCTIVE  scope:      any method            a scope with one of those verbs (Asana "attachments:delete")
//	DESTRUCTIVE  action:     mutations             a request-body enum property named type, action, status, state,
//	                                               operation, command, kind, event, intent or mode with a
//	                                               destructive value ("type": "power_off"); CamelCase values are
//	                                               names, not actions
//	DESTRUCTIVE  money:      POST, money verbs     the last segment is headed by payments, payouts, transfers,
//	                                               captures, refunds, charges, withdrawals, disbursements or
//	                                               checkouts; or capture/refund/payout/charge/withdraw/disburse
//	WRITE        method:     POST, PUT, PATCH, ... every unsafe method that is not DELETE, unknown ones included,
//	                                               except a query-only POST
//	WRITE        verb:       safe methods          a state-changing verb in action position
//	WRITE        scope:      any method            a scope with the word execute, exec or run
//	READ         query:      POST                  a query verb (search, retrieve, query, lookup, introspect,
//	                                               estimate, calculate) in the operationId or the last segment,
//	                                               and no state-changing verb in either
//	READ         method:     GET, HEAD, OPTIONS,   the method itself
//	                         TRACE
//
// Rules never lower a class, with four counter-rules that say a signal is
// absent rather than outweighed: an admin scope listed beside a lower level
// of the same resource is one alternative among several; a read whose
// response schema holds no credential material is a metadata read; a
// description saying secrets are never returned withholds the response
// signal; a query-only POST (search, retrieve, query, lookup, introspect,
// estimate, calculate with no state-changing verb: /bulk-retrieve,
// introspectOAuth2Token) is a read, so the write-method, admin-path, identity and
// request-secret rules skip it and credential nouns count only as for a read
// (its response is still checked for secrets). Reason codes are the rule's code and the matched term:
// "method:DELETE", "verb:revoke", "scope:admin.users:write", "path:roles",
// "credential:tokens", "response:client_secret", "action:type=rebuild",
// "money:payouts", "ext:x-box-requires-admin", "channel:exec". A code appears
// once, with the highest class that produced it.
//
// # Rules version
//
// RulesVersion names the rule set; every stored tool records the version
// that classified it, and the console re-classifies older tools at start
// (store.ReclassifyTools). Bump it with any change that changes a golden.
package risk
