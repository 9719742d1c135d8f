package condition

import (
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/google/cel-go/cel"
	"github.com/google/cel-go/common/types"

	"github.com/toolgate/toolgate/internal/policy"
	"github.com/toolgate/toolgate/internal/principal"
)

// Limits on what one tool's conditions may cost.
const (
	// MaxConditions is the most conditions one tool may carry.
	MaxConditions = policy.MaxConditions
	// MaxExprLength is the longest expression, in characters.
	MaxExprLength = policy.MaxConditionExprLength
	// CostLimit bounds one evaluation of one condition in CEL's cost units
	// (about one per operation and per list element visited); a condition
	// that goes beyond refuses the call.
	CostLimit = 10000
)

// Set is one tool's compiled conditions, in order. A nil *Set has none
// and refuses nothing. Safe for concurrent use.
type Set struct {
	args  *node
	rules []rule
}

type rule struct {
	cond policy.Condition
	prg  cel.Program
}

// CompileError says why condition Index (0-based) does not compile, at
// Line and Column (1-based; 0 when the error is about the whole rule).
type CompileError struct {
	Index        int
	Line, Column int
	Message      string
}

// Error is "condition N, line L, column C: message".
func (e *CompileError) Error() string {
	if e.Line == 0 {
		return fmt.Sprintf("condition %d: %s", e.Index+1, e.Message)
	}
	return fmt.Sprintf("condition %d, line %d, column %d: %s", e.Index+1, e.Line, e.Column, e.Message)
}

// Compile parses and type-checks conds against the tool's input schema:
// args has the schema's properties with their types, principal its four
// fields, and every expression must be a bool. The error is a
// *CompileError naming the first condition that fails. No conditions
// give a nil Set.
func Compile(inputSchema json.RawMessage, conds []policy.Condition) (*Set, error) {
	if len(conds) == 0 {
		return nil, nil
	}
	if len(conds) > MaxConditions {
		return nil, &CompileError{Index: MaxConditions, Message: fmt.Sprintf("a tool may carry at most %d conditions", MaxConditions)}
	}
	env, args, err := newEnv(inputSchema)
	if err != nil {
		return nil, err
	}
	s := &Set{args: args, rules: make([]rule, len(conds))}
	for i, c := range conds {
		prg, err := compileOne(env, i, c)
		if err != nil {
			return nil, err
		}
		s.rules[i] = rule{cond: c, prg: prg}
	}
	return s, nil
}

// newEnv is the CEL environment of one input schema.
func newEnv(inputSchema json.RawMessage) (*cel.Env, *node, error) {
	structs := map[string]*node{principalType: principalNode()}
	args, err := argsNode(inputSchema, structs)
	if err != nil {
		return nil, nil, fmt.Errorf("conditions: %w", err)
	}
	reg, err := types.NewRegistry()
	if err != nil {
		return nil, nil, fmt.Errorf("conditions: %w", err)
	}
	env, err := cel.NewEnv(
		cel.CustomTypeProvider(&provider{Registry: reg, structs: structs}),
		cel.Variable("args", args.typ),
		cel.Variable("principal", types.NewObjectType(principalType)),
		cel.CrossTypeNumericComparisons(true),
		cel.ParserExpressionSizeLimit(MaxExprLength),
		cel.ParserRecursionLimit(32),
	)
	if err != nil {
		return nil, nil, fmt.Errorf("conditions: %w", err)
	}
	return env, args, nil
}

func compileOne(env *cel.Env, i int, c policy.Condition) (cel.Program, error) {
	if !slices.Contains(policy.ConditionEffects, c.Effect) {
		return nil, &CompileError{Index: i, Message: fmt.Sprintf("effect must be one of %s (got %q)", strings.Join(policy.ConditionEffects, ", "), c.Effect)}
	}
	if n := utf8.RuneCountInString(c.Expr); n > MaxExprLength {
		return nil, &CompileError{Index: i, Message: fmt.Sprintf("the expression is %d characters long; at most %d", n, MaxExprLength)}
	}
	ast, iss := env.Compile(c.Expr)
	if iss != nil && iss.Err() != nil {
		e := &CompileError{Index: i, Message: iss.Err().Error()}
		if errs := iss.Errors(); len(errs) > 0 {
			e.Message = errs[0].Message
			if loc := errs[0].Location; loc != nil && loc.Line() > 0 {
				e.Line, e.Column = loc.Line(), loc.Column()+1
			}
		}
		return nil, e
	}
	if !ast.OutputType().IsExactType(types.BoolType) {
		return nil, &CompileError{Index: i, Message: fmt.Sprintf("the expression must be true or false; it is %s", ast.OutputType())}
	}
	prg, err := env.Program(ast, cel.CostLimit(CostLimit), cel.EvalOptions(cel.OptOptimize))
	if err != nil {
		return nil, &CompileError{Index: i, Message: err.Error()}
	}
	return prg, nil
}

// Decision is the outcome of a Set for one call: refused (Rule ≥ 0),
// or let through, possibly only once a person decided (Ask).
type Decision struct {
	// Rule is the index of the condition that refused the call; -1 when
	// none did and the call may proceed (once a person decided, when Ask
	// is set).
	Rule int
	// Message is the refusing rule's own message, or for an evaluation
	// error a sentence saying which rule failed and why.
	Message string
	// Err is the evaluation error that made the rule refuse (fail
	// closed), nil when the rule refused by its own verdict.
	Err error
	// Ask is the per-call mode a person must decide this call under
	// (policy.PerCallConfirm or policy.PerCallApprove, R16), "" when
	// nobody is asked. Only set when no rule refused.
	Ask string
	// AskRule is the index of the condition that asked, -1 when the
	// tool's own per-call mode did (WithPerCall) or nobody is asked.
	AskRule int
	// AskMessage is the asking condition's message: why a person is
	// asked; "" when the tool's per-call mode asked.
	AskMessage string
}

// Allowed reports whether no condition refused the call.
func (d Decision) Allowed() bool { return d.Rule < 0 }

// WithPerCall combines d with the tool's per-call mode: the call is asked
// under the stronger of the two (approve over confirm), keeping the
// condition's message when it asked at least as strongly. A refusal stays
// a refusal.
func (d Decision) WithPerCall(mode string) Decision {
	if !d.Allowed() || policy.PerCallRank(mode) <= policy.PerCallRank(d.Ask) {
		return d
	}
	d.Ask, d.AskRule, d.AskMessage = mode, -1, ""
	return d
}

// Evaluate runs the conditions in order on args (as decoded from JSON,
// already valid against the input schema) and p. deny refuses when true,
// allow_only unless true, and either refuses when it cannot be evaluated
// (an unset argument read, the cost limit); confirm and approve ask a
// person when true (and refuse when they cannot be evaluated). The first
// rule that refuses decides, even after a rule asked; among the rules that
// ask, the strongest (approve over confirm), and of equals the first.
func (s *Set) Evaluate(args map[string]any, p principal.Principal) Decision {
	d := Decision{Rule: -1, AskRule: -1}
	if s == nil || len(s.rules) == 0 {
		return d
	}
	var a any = args
	if s.args.kind != kindStruct {
		a = convertDyn(args)
	}
	vars := map[string]any{"args": a, "principal": principalValue(p)}
	for i, r := range s.rules {
		out, _, err := r.prg.Eval(vars)
		if err == nil {
			b, ok := out.Value().(bool)
			switch {
			case !ok:
				err = errors.New("the expression did not give true or false")
			case policy.ConditionAsks(r.cond.Effect):
				// The confirm and approve effects are spelt as the modes.
				if b && policy.PerCallRank(r.cond.Effect) > policy.PerCallRank(d.Ask) {
					d.Ask, d.AskRule, d.AskMessage = r.cond.Effect, i, r.cond.Message
				}
				continue
			case b == (r.cond.Effect == policy.ConditionDeny):
				return Decision{Rule: i, AskRule: -1, Message: r.cond.Message}
			default:
				continue
			}
		}
		return Decision{Rule: i, AskRule: -1, Err: err, Message: fmt.Sprintf(
			"condition %d (%s: %s) could not be evaluated, so the call is refused: %v", i+1, r.cond.Effect, r.cond.Expr, err)}
	}
	return d
}

// Conditions returns the conditions s was compiled from.
func (s *Set) Conditions() []policy.Condition {
	if s == nil {
		return nil
	}
	out := make([]policy.Condition, len(s.rules))
	for i, r := range s.rules {
		out[i] = r.cond
	}
	return out
}
