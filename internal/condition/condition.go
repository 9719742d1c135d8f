package condition

import (
	"encoding/json"
	"errors"
	"fmt"
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
	if c.Effect != policy.ConditionDeny && c.Effect != policy.ConditionAllowOnly {
		return nil, &CompileError{Index: i, Message: fmt.Sprintf("effect must be %q or %q (got %q)", policy.ConditionDeny, policy.ConditionAllowOnly, c.Effect)}
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

// Decision is the outcome of a Set for one call.
type Decision struct {
	// Rule is the index of the condition that refused the call; -1 when
	// none did and the call may proceed.
	Rule int
	// Message is the refusing rule's own message, or for an evaluation
	// error a sentence saying which rule failed and why.
	Message string
	// Err is the evaluation error that made the rule refuse (fail
	// closed), nil when the rule refused by its own verdict.
	Err error
}

// Allowed reports whether no condition refused the call.
func (d Decision) Allowed() bool { return d.Rule < 0 }

// Evaluate runs the conditions in order on args (as decoded from JSON,
// already valid against the input schema) and p; the first that refuses
// decides. deny refuses when true, allow_only unless true, and either
// refuses when it cannot be evaluated (an unset argument read, the cost
// limit).
func (s *Set) Evaluate(args map[string]any, p principal.Principal) Decision {
	if s == nil || len(s.rules) == 0 {
		return Decision{Rule: -1}
	}
	var a any = args
	if s.args.kind != kindStruct {
		a = convertDyn(args)
	}
	vars := map[string]any{"args": a, "principal": principalValue(p)}
	for i, r := range s.rules {
		out, _, err := r.prg.Eval(vars)
		if err == nil {
			if b, ok := out.Value().(bool); !ok {
				err = errors.New("the expression did not give true or false")
			} else if b == (r.cond.Effect == policy.ConditionDeny) {
				return Decision{Rule: i, Message: r.cond.Message}
			} else {
				continue
			}
		}
		return Decision{Rule: i, Err: err, Message: fmt.Sprintf(
			"condition %d (%s: %s) could not be evaluated, so the call is refused: %v", i+1, r.cond.Effect, r.cond.Expr, err)}
	}
	return Decision{Rule: -1}
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
