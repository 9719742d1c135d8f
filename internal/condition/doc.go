// Package condition compiles and evaluates a tool's argument conditions
// (R15): CEL expressions (github.com/google/cel-go) over the call's
// arguments and its principal, checked against the tool's input schema
// when an admin saves them, compiled again by the executor's compile step
// (at publish and at bundle load), and evaluated by the executor before
// any request is built or sent.
//
// # Vocabulary
//
// A condition is an effect, a CEL expression that must be true or false,
// and the message an agent receives when the rule refuses a call (or, for
// confirm and approve, the reason the person asked reads):
//
//	deny        refuses the call when the expression is true
//	allow_only  refuses the call unless the expression is true
//	confirm     asks the principal to confirm the call when true (R16)
//	approve     asks a security approver to decide the call when true (R16)
//
// The conditions of a tool run in order and the first that refuses
// decides, even when an earlier rule asked; a call no rule refuses goes on
// to the executor, asked under the strongest mode any rule asked for, or
// the tool's own per-call mode when that is stronger
// (Decision.WithPerCall). Two variables:
//
//	args       the call's arguments, typed from the input schema: each
//	           property is a field (args.amount); string → string,
//	           integer → int, number → double, boolean → bool, array →
//	           list of its items' type, object with properties → nested
//	           fields, anything else (unions, $ref, free objects) → dyn.
//	           An object with a property name CEL cannot write after a dot
//	           (X-Request-Id, in) is a map: args["X-Request-Id"].
//	principal  who calls: principal.subject, principal.client_id,
//	           principal.kind ("oidc", "token", "local", "anonymous") and
//	           principal.groups (a list of strings).
//
// Examples:
//
//	deny        args.amount > 100
//	allow_only  args.account_id in principal.groups
//	deny        has(args.force) && args.force
//	deny        args.lines.exists(l, l.qty > 50)
//	allow_only  principal.kind != "anonymous"
//
// A comparison of double and int is allowed (args.amount > 100 with
// amount a number). Reading an argument the call did not give is an
// evaluation error: guard optional arguments with has(). An evaluation
// error of any kind (an unset argument, a value of the wrong kind, the
// cost limit) refuses the call: conditions fail closed.
//
// # Limits
//
// At most MaxConditions conditions of at most MaxExprLength characters per
// tool, a bounded parser nesting depth, and CostLimit per evaluation of
// one condition.
package condition
