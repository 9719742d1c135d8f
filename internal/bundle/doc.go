// Package bundle defines toolgate's signed policy bundle: the format, its
// canonical encoding, Ed25519 signing and verification, the signing keys and
// how a bundle is built from the project's tools (DESIGN.md R11).
//
// This comment is the specification. Someone with a JSON library, an Ed25519
// implementation and base64url can build, sign and verify a bundle from it
// alone; nothing here depends on Go.
//
// # The bundle (payload)
//
// A bundle is one JSON object. Every member below is always present unless
// marked optional; lists are always arrays ([] when empty, never null).
//
//	schema       string   "toolgate.bundle/v1" or "toolgate.bundle/v2": the
//	                      format and its major; a verifier refuses a major
//	                      it does not know (see Versioning). v2 is v1 plus
//	                      the policy members groups and conditions; a
//	                      bundle is v2 exactly when one of its tools has
//	                      either (the console writes the lowest major that
//	                      carries the bundle, so one without them keeps its
//	                      v1 bytes)
//	version      integer  >= 1, strictly increasing across publishes (rollback
//	                      publishes old content under a new version)
//	issued_at    string   RFC 3339 UTC, whole seconds: "2025-03-01T12:00:01Z"
//	expires_at   string   same form, after issued_at (default issued_at + 30 days)
//	sources      array    of source objects, sorted by name
//	tools        array    of tool objects, sorted by name; only exposed tools
//
// A source (an imported API; never a secret):
//
//	name         string   unique in the bundle
//	origin       string   exactly scheme://host[:port], scheme http or https,
//	                      no userinfo, path, query or fragment
//	base_path    string   "" or "/seg[/seg...]" without a trailing slash
//	auth         array    of {name, type, scheme?, in?, param?}: type is apiKey,
//	                      http, oauth2, openIdConnect, mutualTLS or basic; scheme
//	                      (http: bearer, basic), in (apiKey: header, query, cookie)
//	                      and param (the header/query/cookie name) are omitted
//	                      when empty
//
// A tool:
//
//	name          string  ^[a-zA-Z0-9_-]{1,64}$, unique in the bundle
//	source        string  name of a source in this bundle
//	method        string  GET HEAD OPTIONS POST PUT PATCH DELETE TRACE (upper case)
//	path          string  template relative to base_path, starts with "/", e.g.
//	                      "/orders/{id}"
//	description   string
//	params        array   of {name, in, arg, required}: name on the wire, in is
//	                      path, query, header or cookie, arg is the property of
//	                      input_schema that supplies it
//	body          object  optional: {arg, required, media_type}
//	input_schema  object  JSON Schema of the arguments (MCP inputSchema)
//	risk          string  READ, WRITE, DESTRUCTIVE or PRIVILEGED
//	reasons       array   of {code, class, text}, highest class first
//	annotations   object  {readOnlyHint, destructiveHint, idempotentHint}
//	                      booleans; see DeriveAnnotations
//	policy        object  the EFFECTIVE policy a runtime enforces (R1 applied:
//	                      a tool that is not safe has retry.attempts 1):
//	                        exposed (true), timeout_ms, deadline_ms,
//	                        max_response_bytes, idempotent,
//	                        idempotency_key (null or {header, source, argument?}),
//	                        retry {attempts, backoff_ms, multiplier, jitter,
//	                        retry_on (array of HTTP statuses, never null)},
//	                        circuit_breaker {threshold, reset_ms},
//	                        and in v2 only, each omitted when empty (never
//	                        written as [] or null, so a tool without them
//	                        has the same bytes in v1 and v2):
//	                        groups (array of strings: the principal groups
//	                        allowed to call the tool, sorted in byte order,
//	                        unique, none empty; absent means every caller
//	                        the runtime admits),
//	                        conditions (array, in evaluation order, of
//	                        {effect, expr, message}: effect "deny" refuses
//	                        the call when the CEL expression expr is true,
//	                        "allow_only" refuses it unless expr is true;
//	                        expr is not empty; message, possibly "", is
//	                        what the agent is told; the first condition
//	                        that refuses decides)
//	                      A v1 bundle whose policy has groups or conditions
//	                      is refused (ErrSchema), as is an effect outside
//	                      the two: a v1 runtime would ignore the members as
//	                      a later revision's and serve the tool to anyone.
//	                      Every value is the one enforced, none is left for a
//	                      runtime to default: Validate (and so Sign and
//	                      Verify) refuses a policy that policy.Effective
//	                      would change. retry_on in particular is the full
//	                      list — [408,429,502,503,504] is the R3 default, []
//	                      retries no status (connection failures and
//	                      timeouts still count as transient); null is
//	                      refused, because in a stored policy it means "the
//	                      default set" and a reader could take it for [].
//	                      The policy must also pass the console's own
//	                      validation (policy.Validate: the ranges of R4, R5,
//	                      R7, R9, deadline_ms at least timeout_ms, ...): a
//	                      bundle with a tool the console would not store is
//	                      refused whole, as for any other invariant, and the
//	                      runtime keeps its last good bundle and reports the
//	                      refusal to the fleet view.
//	approvals     array   optional (omitted when empty): {change_request,
//	                      approved_by, approved_at, summary} for tools whose
//	                      exposure or policy needed a security approver (R10)
//	digest        string  the definition digest (R13): "sha256:" and the
//	                      lower-case hex SHA-256 of the canonical form (below)
//	                      of the object {name, source, origin, base_path,
//	                      method, path, description, params, body (null when
//	                      absent), input_schema, annotations}, origin and
//	                      base_path taken from the tool's source. It covers
//	                      everything an agent reads (tools/list) or sends;
//	                      policy (groups and conditions included), risk,
//	                      reasons and approvals are not in it, so a tool
//	                      has the same digest in v1 and v2.
//	                      The console pins change requests and approvals
//	                      with it; a verifier refuses a tool whose digest is
//	                      not that of its own content (ErrSchema). The
//	                      object has exactly these members, whatever else a
//	                      later revision adds to the tool, its params, body
//	                      or annotations: every runtime of the major computes
//	                      the same digest.
//
// # Canonical encoding
//
// The payload is exactly the RFC 8785 (JSON Canonicalization Scheme) form of
// the object above: no whitespace outside strings; object members sorted by
// their names' UTF-16 code units (for toolgate's own member names, all ASCII,
// that is plain byte order; it matters inside input_schema); strings with
// only the escapes RFC 8785 prescribes (\" \\ \b \f \n \r \t, other control
// characters as \u00xx in lower-case hex, everything else as UTF-8 — so "<"
// stays "<"); numbers in ECMAScript form (2, not 2.0; 1e+30). Arrays keep
// their order, so tools and sources must be sorted by name before encoding,
// and times must already be whole-second UTC. A verifier decodes the payload,
// re-encodes it and refuses it unless the bytes are identical (ErrSchema), so
// one signature always means one byte string and one content. Members of a
// later revision (see Versioning) must be canonical too, in their sorted
// places; the verifier then ignores them and re-encodes the rest. A verifier
// may do this a part at a time (the payload without its tools, then each
// tool's bytes); it is the same check. input_schema must be I-JSON (RFC 7493), as RFC
// 8785 requires of its input: valid UTF-8, no unpaired surrogate escapes, no
// duplicate member names, numbers within IEEE 754 double range; anything
// else cannot be canonicalized and is refused. testdata/small.canonical.json is a complete
// example; its first bytes are
//
//	{"expires_at":"2025-03-31T12:00:01Z","issued_at":"2025-03-01T12:00:01Z","schema":"toolgate.bundle/v1","sources":[{"auth":[...
//
// # Signature envelope
//
// A signed bundle is a JWS (RFC 7515) in compact serialization, ASCII, with
// no line breaks:
//
//	BASE64URL(header) "." BASE64URL(payload) "." BASE64URL(signature)
//
// BASE64URL is RFC 4648 §5 without "=" padding; unused bits of the last
// character must be zero. The protected header is the JSON object
//
//	{"alg":"EdDSA","kid":"<key id>","typ":"toolgate-bundle+jws"}
//
// with no other members (a verifier refuses jwk, jku, x5u, crit, b64, ...).
// The signing input is the ASCII string BASE64URL(header) "." BASE64URL(payload),
// and the signature is the 64-byte Ed25519 signature (RFC 8032, pure
// Ed25519, as RFC 8037 specifies for alg EdDSA) of that input. The header's
// own bytes need not be canonical: it is signed as transmitted.
//
// # Keys
//
// A key id is base64url (no padding) of the first 12 bytes of the SHA-256 of
// the 32-byte raw Ed25519 public key: 16 characters. Public keys are
// published as a JWK Set (RFC 7517) of OKP keys (RFC 8037):
//
//	{"keys":[{"kty":"OKP","crv":"Ed25519","x":"<BASE64URL(32-byte public key)>",
//	          "kid":"<key id>","alg":"EdDSA","use":"sig"}]}
//
// GET /api/v1/keys serves this, `toolgate keys export` writes it and
// `toolgate bundle verify --key` reads it (a single JWK object is accepted
// too). The console signs with one active key; after a rotation the previous
// keys stay in the set until retired, so runtimes keep verifying bundles
// signed before the change-over. KeyDir stores the private keys of a single
// console; consoles sharing a database keep them there, sealed
// (internal/keyring).
//
// # Verifying, step by step
//
// A runtime (Verify does exactly this, in this order, each refusal with its
// own error):
//
//  1. Split the input (surrounding whitespace removed) at "."; there must be
//     three parts (else ErrUnsigned).
//  2. Decode the header; alg must be "EdDSA" (else ErrAlgorithm: "none",
//     HS256 and the rest are refused before any key is used). The signature
//     part must not be empty (else ErrUnsigned). Header members other than
//     alg, kid, typ, or typ other than "toolgate-bundle+jws", give ErrSchema.
//  3. Find kid in the trusted key set (else ErrUnknownKey).
//  4. Verify the Ed25519 signature over the signing input with that key
//     (else ErrTampered; a padding bit set in any part counts as tampering).
//  5. Read the payload's schema first: it must be a major the verifier
//     knows (else ErrUnknownSchema, naming the schema received and the ones
//     known, whatever else the payload holds). Then decode the payload; it
//     must be its own canonical form, members this specification does not
//     list are ignored, and the bundle must satisfy the rules above (else
//     ErrSchema). A verifier that accepted a bundle before may take a tool
//     whose bytes are identical to one of that bundle's, with an unchanged
//     source origin and base path, as already checked: nothing else enters
//     these checks.
//  6. If the runtime accepted a bundle before, version must be greater than
//     that one's (else ErrStaleVersion); a runtime that reads v2 and runs
//     the v1 form of a version takes that version's v2 form too (see
//     Rolling upgrade).
//  7. Now must be before expires_at (else ErrExpired), and issued_at must not
//     be more than five minutes ahead of now (else ErrNotYetValid).
//
// On any refusal a runtime keeps its last good bundle (R11).
//
// # Timestamp
//
// A bundle proves what it allows, not that it is still the newest: a
// registry (or anyone between it and a runtime) can keep serving an old,
// validly signed bundle, and a tool withdrawn since stays callable until
// that bundle expires. A runtime that asks the console itself learns the
// newest version from the console's answer; one that pulls from a registry
// learns it from a timestamp (TUF's timestamp role; R14): a short-lived
// document the console signs with the bundle key, naming the newest
// bundle, re-signed on a schedule while nothing changes. Its payload is
// the canonical JSON object (exactly these members, RFC 8785 form)
//
//	bundle_digest  string   "sha256:" and the lower-case hex SHA-256 of the
//	                        newest bundle's JWS compact serialization (the
//	                        bytes a runtime receives, whitespace trimmed)
//	expires_at     string   RFC 3339 UTC, whole seconds, after issued_at
//	                        (the console's default: issued_at + 3 × its
//	                        re-signing interval)
//	issued_at      string   same form: when the console signed it
//	schema         string   "toolgate.timestamp/v1"
//	version        integer  the newest bundle's version
//
// e.g. {"bundle_digest":"sha256:9f2c…","expires_at":"2025-03-01T12:03:00Z",
// "issued_at":"2025-03-01T12:00:00Z","schema":"toolgate.timestamp/v1","version":7},
// signed in the bundle's envelope (above) with the protected header
//
//	{"alg":"EdDSA","kid":"<key id>","typ":"toolgate-timestamp+jws"}
//
// under the active bundle key, whose kid names it. The typ keeps the two
// documents apart: a bundle is never accepted as a timestamp, nor the
// reverse. A timestamp has no compatible additions: any change is a new
// schema. The console pushes it to the registry beside the bundle
// (internal/oci: the tag "timestamp") after the bundle itself.
//
// A verifier (VerifyTimestamp) checks steps 1–4 above with typ
// "toolgate-timestamp+jws" (else the same errors; another typ is
// ErrTimestampSchema), then that the payload is its own canonical form
// with exactly the members above (else ErrTimestampSchema), that now is
// before expires_at (else ErrTimestampExpired) and that issued_at is at
// most five minutes ahead (else ErrTimestampNotYetValid). A registry
// runtime then compares what it names with the bundle it serves:
//
//   - the same version and digest: the bundle was the newest at issued_at;
//     that is the time the staleness rule (R11) measures from, as it does
//     from a console's answer;
//   - a newer version: the registry serves old content. The runtime pulls
//     that version's own tag; when that fails too it is stale at once
//     (DESTRUCTIVE and PRIVILEGED tools withdrawn) and says so in its log,
//     metrics and fleet report, until the registry serves the bundle named;
//   - an older version, or none, or a refused or expired timestamp:
//     nothing is confirmed; past the maximum staleness since the last
//     confirmation the runtime is stale, exactly as one that cannot reach
//     its console.
//
// Console and runtime clocks must agree to well within the re-signing
// interval (NTP), and a runtime's maximum staleness must exceed that
// interval plus its poll interval, or it turns stale between two
// timestamps.
//
// # Call grants
//
// A call grant (R16) is the console's signed permission for one exact
// call that a person approved (or its principal confirmed): a compact JWS
// under a bundle signing key, its protected header
// {"alg":"EdDSA","kid":…,"typ":"toolgate-grant+jws"} (GrantJWSType, so
// neither a bundle nor a timestamp verifies as a grant, nor the reverse),
// its payload the canonical JSON (as above) of exactly these members:
//
//	arguments_digest   "sha256:" + hex SHA-256 of the call's canonical arguments (unmasked)
//	bundle_version     the bundle version the call was asked under (1 or more)
//	call_request       the console's id of the call request
//	decided_by         the approver's email, or kind:subject of the principal who confirmed
//	definition_digest  the tool's R13 definition digest
//	issued_at          RFC 3339 UTC, whole seconds
//	mode               "confirm" or "approve"
//	nonce              32 to 128 lower-case hex digits, random
//	not_after          RFC 3339 UTC, whole seconds, after issued_at
//	principal          {"client_id":…,"kind":…,"subject":…}
//	schema             "toolgate.call-grant/v1" (GrantSchema)
//	tool               the tool's name
//
// A runtime verifies it as a timestamp (VerifyGrant: key, signature,
// canonical payload with no other member, now before not_after, issued_at
// no further ahead than ClockSkew), checks it is for exactly the call it
// is about to make (Grant.Binds: principal, tool, definition digest,
// arguments digest, bundle version), and spends the nonce once at the
// console (POST /api/v1/call-grants/consume: 204 once across every
// console on the database, 409 after, 410 when expired) before anything
// is sent upstream; a runtime that cannot reach the console fails closed.
// The console signs a grant valid for its --grant-lifetime
// (DefaultGrantLifetime, 15 minutes).
//
// # Versioning
//
// The schema member carries the format's major, "toolgate.bundle/v<major>".
// A bundle stays "toolgate.bundle/v1" for every change a v1 runtime can
// safely ignore, and takes a new major for every other change.
//
// Compatible (same major): adding an OPTIONAL member, at any level — top
// level, source, auth entry, tool, param, body, annotations, reason,
// approval, policy, retry, idempotency_key, circuit_breaker — whose being
// ignored never loosens enforcement: metadata (the console's build, a
// ticket reference), hints for people or clients that a runtime does not
// need (a display name, an example value), and stricter-only information
// an older runtime cannot use anyway and the console does not rely on
// (a cost hint, a suggested rate below what the API itself enforces).
// Such a member is never part of the definition digest.
//
// A new major: anything that would change what is allowed — a new
// enforcement member whose absence or being ignored would allow more (an
// argument allow-list, a rate limit the console relies on, a new credential
// requirement); a changed meaning, type, unit or default of a member; a
// removed or renamed member, or a required member made optional; a new
// value of a closed set a runtime acts on (a risk class, a method, a
// parameter location, an idempotency key source); anything an agent reads
// or sends through a tool (R13: it must be in the digest, whose member list
// is fixed per major); any change to the canonical encoding, the envelope
// or the keys.
//
// A runtime:
//
//   - refuses a major it does not know before reading anything else of the
//     payload (ErrUnknownSchema, naming the schema received and the ones it
//     knows), keeps its last good bundle (R11) and reports the refusal to
//     the console. A release that introduces a major keeps reading the
//     previous one, so a fleet upgrades its runtimes first, one at a time,
//     and the console last;
//   - ignores members this specification does not list, at every level of
//     a known major, once the whole payload, those members included, has
//     proved canonical: the signature covers them, and one signature is
//     still one byte string. Names match exactly: "Exposed" is another,
//     unknown member, never a spelling of "exposed". input_schema is the
//     API's own JSON, not bundle structure: all of it is kept;
//   - still requires every member listed as required, with its type and
//     rules, whatever else the payload holds.
//
// toolgate.bundle/v2 is the first new major: the policy's groups and
// conditions are enforcement (a runtime that ignored them would serve a
// tool to callers and arguments its policy refuses), so they cannot be a
// compatible addition to v1. Nothing else differs: the same members,
// canonical encoding, digest, envelope and keys. A v2 verifier reads v1
// and v2, applying to each its own rules (a tool Verify remembers in a
// Memo is taken again only by a bundle of the same schema).
//
// # Rolling upgrade
//
// A fleet moves from v1 to v2 without a runtime ever serving a tool more
// permissively than its policy, and without stopping: runtimes are
// upgraded first (a v2 runtime reads the v1 bundles an older console
// publishes), then the console, and only then do policies get groups or
// conditions. What the console publishes and serves meanwhile:
//
//   - A version none of whose tools has groups or conditions is
//     toolgate.bundle/v1, byte for byte what an older console would sign:
//     one bundle for every runtime.
//   - A version with such a tool is toolgate.bundle/v2, and the console
//     signs, at the same time and with the same key, its v1 form
//     (DowngradeV1): the same version, issued_at and expires_at, every
//     other tool and its source unchanged (same bytes, same digest), every
//     tool whose policy has groups or conditions left out. A tool is never
//     put in the v1 form without them: that would serve it to callers or
//     arguments its policy refuses.
//
// A runtime lists the majors it reads on every fetch from the console:
//
//	X-Toolgate-Bundle-Schemas: toolgate.bundle/v1, toolgate.bundle/v2
//
// (comma separated, whitespace around a name ignored, unknown names
// ignored). No header means v1 only: it is what every runtime before v2
// sends, and what a runtime set to read only v1 sends. The console answers
// a runtime that lists toolgate.bundle/v2 with the version as published,
// every other with its v1 form when it has one; each form has its own
// ETag (the hash of its own bytes), and every answer, 304 included,
// carries "Vary: X-Toolgate-Bundle-Schemas". GET /api/v1/bundles/{version}
// chooses the same way. A v1 runtime thus serves the tools it can enforce
// and none of the others, and a v2 runtime that ran the v1 form of version
// N (it was upgraded in place, or fetched before the console was) takes
// the v2 form of N, the same version, as newer; it takes no other bundle
// of version N.
//
// A registry (internal/oci) holds, for each version, the form every
// runtime reads: for a v2 version its v1 form, under "v<N>" and "latest",
// and the timestamp names those bytes. A runtime that pulls from a
// registry, whatever majors it reads, therefore serves no tool whose
// policy has groups or conditions; such tools are served by runtimes that
// fetch from the console. (Pushing the v2 forms beside them, to a
// repository of their own that v2 runtimes pull, is a later addition
// that changes nothing for v1 runtimes.)
//
// There is no switch to stop signing v1 forms: a v1 form never allows
// more than the version it comes from, so it is harmless once no runtime
// fetches it, and the console's Runtimes page lists which schemas each
// runtime reads and how many tools the current v1 form leaves out, which
// is how an operator knows the fleet is done.
//
// There is no minor version and no feature list. Whatever a runtime could
// learn from one is either safe to ignore (so it has nothing to act on) or
// a new major (so it never gets that far); a console that needs to know
// what its fleet runs reads the versions runtimes report when they fetch.
//
// # Worked example without toolgate
//
// To sign by hand with Python's standard library plus the "cryptography"
// package (or openssl for the key): generate a key with
// `openssl genpkey -algorithm ed25519 -out key.pem`; get the raw public key
// as the last 32 bytes of `openssl pkey -in key.pem -pubout -outform DER`;
// the kid is base64.urlsafe_b64encode(hashlib.sha256(raw).digest()[:12])
// without "=". Write the bundle as a Python dict with sorted tools and
// sources and whole-second "Z" times. For toolgate's content (ASCII member
// names, integers, short decimals, no characters outside the Basic
// Multilingual Plane in member names) json.dumps(obj, sort_keys=True,
// separators=(",", ":"), ensure_ascii=False).encode() yields the RFC 8785
// bytes, with the one catch noted at the end; in general use an RFC 8785
// library. Then
//
//	b64 = lambda b: base64.urlsafe_b64encode(b).rstrip(b"=")
//	header = b'{"alg":"EdDSA","kid":"' + kid + b'","typ":"toolgate-bundle+jws"}'
//	signing_input = b64(header) + b"." + b64(payload)
//	sig = private_key.sign(signing_input)          # Ed25519, 64 bytes
//	jws = signing_input + b"." + b64(sig)
//
// (`openssl pkeyutl -sign -rawin -inkey key.pem -in input.txt` gives the same
// signature for the signing input in input.txt.) To verify, split jws at
// ".", check the header as in step 2, look up kid, call
// public_key.verify(b64decode(sig), signing_input), then decode the payload
// and check schema, version and expiry. Note that Python's json.dumps writes
// 2.0 for a float 2, where RFC 8785 writes 2: when a policy's multiplier is a
// whole number, store it as an int before encoding.
package bundle
