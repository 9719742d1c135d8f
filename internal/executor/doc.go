// Package executor is the embedded executor: it takes a verified bundle and
// performs tool calls as HTTP requests under the tool policies of that bundle
// (rules R1–R9 of DESIGN.md). It imports nothing from the console.
//
// A call is checked and built once (R8: arguments validated against the
// tool's input schema, unknown arguments refused, path parameters escaped and
// refused when they could add a segment, origin fixed by the bundle), then
// sent in attempts under the effective policy: retries only for safe tools
// (R1) on the transient set (R3), exponential backoff with jitter and
// Retry-After (R4), an attempt only when its whole timeout fits before the
// deadline and otherwise the last classified error at once (R5), the same
// idempotency key on every attempt (R6), a per-tool circuit breaker (R7),
// redirects never followed, the body streamed and cut at the ceiling after
// decompression (R9). Every failure is an *Error with an R9 class, whether
// the operation may have been applied, and an instruction for the agent.
//
// A tool's argument conditions (R15) are compiled with the tool (a
// condition that does not type-check against the input schema withholds
// it) and evaluated once the arguments are valid, for the principal the
// context carries (principal.FromContext): the first rule that refuses
// makes the call POLICY_DENIED with that rule's message, and nothing is
// sent. A call a person must decide (R16: the tool's per-call mode, or a
// confirm/approve condition that holds, the stronger of the two) runs only
// under a grant the caller verified and consumed (WithGrant); without one
// it is POLICY_DENIED with Result.Ask saying for what, and nothing is
// sent: the runtime asks the person and calls again under the grant.
//
// A tool that cannot be run safely (bad origin or base path of its source,
// path template not matching its parameters, reserved header, input schema
// or argument condition that does not compile) is withheld: New serves the rest of the bundle,
// Withheld lists the tool with its reason, and a call to it is
// TOOL_NOT_EXPOSED with that reason. CompileTool runs the same compile
// step on one tool, so a console can refuse what a runtime would withhold.
//
// A runtime builds a new Executor for every bundle, incrementally: with
// Options.Previous, a tool whose definition and source are unchanged is
// taken over as compiled, and Options.Schemas caches input schemas by
// digest, so a schema is checked against its metaschema once while it
// stays in use. The validator a schema compiles to is built on the tool's
// first call and shared from then on: memory grows with the tools agents
// call, not with the bundle. Circuit breakers carry
// over through a Breakers registry passed in Options.Breakers: a tool whose
// breaker settings and origin did not change keeps its state, so a publish
// does not reopen the gate to a failing upstream. BreakerState reads a
// breaker for metrics.
//
// Every request that reaches the upstream is an attempt the executor
// counted and decided on: requests are built so that net/http's Transport
// never re-sends one on its own after a reused connection drops (replay.go
// says how, and what it costs).
//
// # Credentials file
//
// Secrets never travel in a bundle; a runtime reads them from a JSON file
// (LoadCredentials) keyed by source name. Each source has exactly one of:
//
//	{
//	  "sources": {
//	    "shop":    {"bearer": "env:SHOP_TOKEN"},
//	    "billing": {"api_key": {"in": "header", "name": "X-Api-Key", "value": "env:BILLING_KEY"}},
//	    "legacy":  {"basic": {"username": "svc", "password": "env:LEGACY_PASSWORD"}},
//	    "custom":  {"headers": {"X-Tenant": "acme", "X-Token": "env:CUSTOM_TOKEN"}}
//	  }
//	}
//
// api_key.in is header, query or cookie. Any value written "env:NAME" is read
// from the environment variable NAME (an unset variable is an error). After
// a 401 the file is read again once and, if the source's credentials
// changed, the request is resent once. Credentials are sent only to https
// origins unless Options.AllowInsecureCredentials is set (local development),
// and are never logged.
package executor
