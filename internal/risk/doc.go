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
// unless a name already says it reads ("Import Contacts Status" on
// GET_contacts-imports-id is a status read). So "GET
// /files/{id}/trash" (get_files_id_trash) reads the trash, while "GET
// /auth.revoke" revokes and "GET /admin.apps.approve" approves.
//
// Path segments are literal segments only: {parameters}, numeric ids and
// self aliases (@me) are dropped; an identity segment followed by a self
// alias (/users/@me/...) is the caller's own object, not identity admin. A
// Box-style "#fragment" of the path key counts as a final segment.
//
// # Rule table
//
// Highest class first; Rules returns the same table as data for the UI.
//
//	class        code        applies to            signal
//	PRIVILEGED   ext:        any method            vendor extension named admin/administrator/privileged/superuser
//	                                               with a true-ish value (x-box-requires-admin)
//	PRIVILEGED   channel:    any method, GET too   last path segment exec, attach, proxy, portforward, shell, ssh
//	                                               (Kubernetes-style channels into a workload)
//	PRIVILEGED   scope:      any method            a scope with the word admin, owner, manage, superuser, root, sudo
//	PRIVILEGED   path:       any method            a path segment admin, admins, administrator(s), superuser
//	PRIVILEGED   credential: any method, GET too   a path segment token(s), secret(s), credential(s), password(s),
//	                                               passphrase, key(s), apikey(s), env, login; or an oauth/oauth2 path
//	                                               ending in access, token or exchange (reading a secret is as
//	                                               dangerous as changing it)
//	PRIVILEGED   scope:      mutations             a scope naming an identity object (users, members, roles,
//	                                               permissions, policies, usergroups, org, tokens, keys, ...) with
//	                                               write, update, manage, edit, create, delete, set or modify
//	                                               ("*:write" on identity objects)
//	PRIVILEGED   path:       mutations             a path segment naming identity or access: user(s), member(s),
//	                                               membership(s), role(s), permission(s), policy/policies,
//	                                               group(s), usergroup(s), collaboration(s), collaborator(s),
//	                                               owner(s), invite(s), invitation(s), sso, saml, scim, mfa,
//	                                               2fa, totp, scopes, acl(s), subuser(s), teammates, access,
//	                                               shared (shared links open content to others)
//	DESTRUCTIVE  method:     DELETE                the method itself
//	DESTRUCTIVE  verb:       mutations (all words) delete, remove, destroy, purge, revoke, cancel, terminate,
//	                         safe (action words)   wipe, reset, void, refund, erase, archive, trash, kill, drop,
//	                                               truncate, uninstall, deactivate, disable, suspend, ban, kick,
//	                                               expire, invalidate, discard, clear, unpublish, unlink,
//	                                               disconnect, evict, prune, shred — in the operationId, the last
//	                                               path segment and #fragment, or the summary
//	DESTRUCTIVE  scope:      any method            a scope with one of those verbs (Asana "attachments:delete")
//	WRITE        method:     POST, PUT, PATCH, ... every unsafe method that is not DELETE, unknown ones included
//	WRITE        verb:       safe methods          a state-changing verb in action position (create, add, update,
//	                                               set, approve, publish, push, open, share, request, ...)
//	WRITE        scope:      any method            a scope with the word execute, exec or run
//	READ         method:     GET, HEAD, OPTIONS,   the method itself
//	                         TRACE
//
// Scopes of every security alternative count: the most powerful credential
// an agent may hold decides the risk. Reason codes are the rule's code and
// the matched term: "method:DELETE", "verb:revoke", "scope:admin.users:write",
// "path:roles", "credential:tokens", "ext:x-box-requires-admin",
// "channel:exec". A code appears once, with the highest class that produced
// it.
package risk
