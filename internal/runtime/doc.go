// Package runtime is `toolgate runtime`: it fetches the console's signed
// bundle, verifies it, keeps the last good one on disk, and serves the
// bundle's exposed tools to agents over MCP, running every call through the
// embedded executor.
//
// # Bundle sync
//
// Run polls GET /api/v1/bundle every PollInterval ± PollJitter with the
// runtime token as a bearer token and If-None-Match, identifying itself with
// X-Toolgate-Runtime-Name, X-Toolgate-Instance-Id and
// X-Toolgate-Bundle-Version (and X-Toolgate-Refused, below), and saying
// which bundle schemas it reads with X-Toolgate-Bundle-Schemas (none when
// Options.BundleSchemas is v1 only; bundle doc.go, "Rolling upgrade"). A
// runtime running the v1 form of a version takes that version's v2 form
// as newer. Each fetch also sends Prefer: wait=<the jittered interval>
// (long polling, longpoll.go): a console that holds it answers at the
// publish, says so with Preference-Applied, and the next fetch starts at
// once; an older console answers at once and the interval applies. A new bundle
// is verified against the trusted keys (pinned, or fetched once from GET
// /api/v1/keys under trust on first use and persisted); an unsigned, tampered, unknown-key, older-version or
// expired bundle is refused and the last good one stays in force (R11).
// An accepted bundle is compiled into a new executor and swapped in with
// one atomic pointer store: calls in flight finish on the executor they
// started with. The build is incremental: tools whose definition did not
// change are taken over from the executor in force, input schemas come
// from a cache keyed by their digest (metaschema-checked once while in use,
// the validator compiled on a tool's first call), and MCP definitions are
// made again only for changed tools: a one-tool change costs the bundle's
// verification plus little more than a map lookup per unchanged tool.
//
// A tool of an accepted bundle that the executor cannot compile (or whose
// MCP definition the SDK refuses) is withheld: logged with its reason,
// counted in toolgate_runtime_tools_withheld, left out of tools/list and
// refused with TOOL_NOT_EXPOSED naming the reason; the rest of the bundle
// is served. Every fetch carries X-Toolgate-Refused (at most 512 bytes of
// printable ASCII) when there is something to report: staleness or expiry
// (see Staleness), the last refused
// bundle ("bundle refused (serving v6): bundle has expired: ...") until a
// bundle is accepted, and the tools withheld from the bundle in force
// ("bundle v7: withheld 1 tool(s): name: reason; ..."). Every executor shares the runtime's executor.Breakers, so a
// tool whose breaker settings and origin are unchanged keeps its circuit
// state across the swap: a publish does not reopen the gate to a failing
// upstream. A tool with changed settings starts closed.
//
// # Bundle source
//
// Bundles come from the console (the default) or, with
// Options.BundleSource "oci://host[:port]/repository", from an OCI registry
// the console pushes to (internal/oci). Either way what is fetched goes
// through the same acceptance (signature with the trusted keys, newer
// version, not expired, last good kept on refusal), so a registry is never
// trusted. Trust on first use fetches keys from the console only, so
// without a console URL the keys must be pinned. With a console URL and
// token as well, every poll also reports to the console's fleet view (GET
// /api/v1/bundle with the identity headers and If-None-Match: *, answered
// 304 without a body).
//
// A registry's answer proves no freshness: it can keep serving an old,
// validly signed bundle (R14). So a poll there follows TUF's order
// (syncRegistry): first the console's signed timestamp (bundle doc.go,
// "Timestamp"; the tag "timestamp", one HEAD while it is unchanged), then
// the "latest" tag (one HEAD; manifest and layer only when its digest
// changed), and when the timestamp names a newer version than that, the
// version's own tag v<N>. A timestamp that verifies and names the bundle
// in force (version and digest) confirms it as of the timestamp's issue
// time; nothing else does. If the registry
// still serves an older bundle than the timestamp names, the runtime is
// stale at once (Status.Behind, ErrRegistryBehind), with a log line, until
// it does. A missing, refused or expired timestamp confirms nothing, and is
// logged once per new problem and counted (refusals reason timestamp_*).
// A bundle accepted from a registry counts as confirmed at its own issue
// time, never later.
//
// # State on disk (DATA_DIR/runtime, mode 0700, files 0600)
//
//	bundle.jws         the last good bundle, exactly as received (atomic write)
//	bundle.meta.json   its ETag (or manifest digest) and when it was last confirmed
//	trusted-keys.json  keys trusted on first use
//	instance-id        this runtime's id in the fleet view
//
// A restarted runtime verifies bundle.jws again and serves it at once, so it
// works while the console is down.
//
// # Staleness
//
// # Principals, groups and conditions (R15)
//
// Every MCP request has a principal (internal/principal; the anonymous one
// on an endpoint that authenticates nobody). One decision, refusal, says
// what a principal may call, and tools/list shows exactly that (the
// receiving middleware filterList): a tool whose policy names groups is
// callable only by a principal in one of them, never by the anonymous
// principal. A principal outside a tool's groups gets the answer of a tool
// that is not in the bundle, word for word, before any other rule, so a
// call by name reveals neither the tool nor its state (the log line says
// refused_by=groups for the operator). The tool's argument
// conditions (internal/condition) are evaluated by the executor for the
// principal of the call's context after the arguments are validated and
// before any request is sent; a refusal is POLICY_DENIED with the rule's
// own message and may_have_applied false.
//
// A call its policy asks a person about (R16: the per-call mode, or a
// confirm/approve condition) is not sent: the executor answers with what
// it waits for, and perCall files a call request with the console
// (internal/callgate), asks a confirm call's principal in their MCP client
// when it declared elicitation (the multi-round-trip input_required result
// on 2026-07-28, an elicitation request before), or waits up to
// DecisionWait with progress notifications, then answers the result,
// POLICY_DENIED or APPROVAL_PENDING. The call runs only under a grant
// verified with the trusted keys, bound to the exact call and consumed at
// the console once; without a console, or when it cannot be reached, the
// call fails closed. README "Per-call decisions".
//
// The bundle's age is the time since the console last confirmed it (an
// accepted 200 or a 304; from a registry, the issue time of the newest
// timestamp naming it). Past MaxStaleness, or while a registry serves an
// older bundle than its timestamp names, DESTRUCTIVE and PRIVILEGED tools
// are hidden from tools/list and refused with TOOL_NOT_EXPOSED until a
// fresh confirmation arrives; past the bundle's expires_at every tool is.
// Each change is logged once (noteFreshness): turning stale at WARN with
// the reason, expiring at ERROR, fresh again at INFO. The fleet report
// (X-Toolgate-Refused) starts with "stale: <reason>" or "expired: bundle
// vN expired at <time>" while either holds, and the gauges
// toolgate_runtime_bundle_stale and toolgate_runtime_bundle_expired say
// the same.
//
// # MCP
//
// tools/list shows the visible tools with their description, inputSchema
// (plus the idempotency-key argument when the policy takes the key from
// arguments) and annotations (readOnlyHint for READ, destructiveHint for
// DESTRUCTIVE and PRIVILEGED, idempotentHint from the effective policy).
// Tool-list changes send notifications/tools/list_changed. tools/call
// answers with the executor's result JSON as text and structured content;
// failures set isError and carry class, may_have_applied and instruction.
//
// The streamable HTTP endpoint (MCPHandler) checks Origin, as the MCP
// transport requires: requests without one (non-browser clients), from a
// loopback origin (localhost, 127.0.0.0/8, [::1], any port) or from an
// origin in Options.AllowedOrigins are served; any other Origin, "null"
// included, gets 403 before reaching the MCP server.
//
// Who calls (R15): on HTTP, a verifier in front of MCPHandler
// (internal/agentauth: OIDC access tokens or an agent-token file) stores
// the principal in the request's token information; the endpoint without
// one serves the anonymous principal. ServeStdio stores
// Options.StdioPrincipal (the local user) in every request it reads. The
// principal goes into the context of the executor's call and into the
// call's log line (principal=KIND:SUBJECT, groups); metrics stay by tool,
// never by subject, so their cardinality does not grow with the agents.
//
// ServeStdio serves the same server on stdin/stdout. When stdin ends it
// still answers every request already read (bounded by a drain time), so
// piped input gets all its responses.
//
// # Metrics (Prometheus text format, MetricsHandler)
//
//	toolgate_runtime_calls_total{tool,class}          class OK or an R9 class
//	toolgate_runtime_call_attempts_total{tool}
//	toolgate_runtime_call_duration_seconds{tool}
//	toolgate_runtime_breaker_open{tool}               1 open (calls refused), 0 closed or half-open
//	toolgate_runtime_breaker_state{tool}              0 closed, 1 half-open, 2 open
//	toolgate_runtime_bundle_version
//	toolgate_runtime_bundle_age_seconds
//	toolgate_runtime_bundle_stale                     1 stale (risky tools refused)
//	toolgate_runtime_bundle_expired                   1 expired (every tool refused)
//	toolgate_runtime_bundle_fetches_total{result}
//	toolgate_runtime_bundle_refusals_total{reason}
//	toolgate_runtime_tools_listed
//	toolgate_runtime_tools_withheld
//
// The breaker gauges are read from the executor's breakers at scrape time,
// for every tool of the bundle in force.
package runtime
