package condition

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/toolgate/toolgate/internal/policy"
	"github.com/toolgate/toolgate/internal/principal"
)

const paySchema = `{"type":"object","properties":{
	"account_id":{"type":"string"},
	"amount":{"type":"number"},
	"count":{"type":"integer"},
	"force":{"type":"boolean"},
	"tags":{"type":"array","items":{"type":"string"}},
	"body":{"type":"object","properties":{"lines":{"type":"array","items":{"type":"object","properties":{"qty":{"type":"integer"}}}}}},
	"X-Request-Id":{"type":"string"}
},"required":["account_id","amount"]}`

const plainSchema = `{"type":"object","properties":{"account_id":{"type":"string"},"amount":{"type":"number"},"count":{"type":"integer"},"force":{"type":"boolean"},"tags":{"type":"array","items":{"type":"string"}},"body":{"type":"object","properties":{"lines":{"type":"array","items":{"type":"object","properties":{"qty":{"type":"integer"}}}}}}}}`

func deny(expr string) policy.Condition {
	return policy.Condition{Effect: policy.ConditionDeny, Expr: expr, Message: "denied: " + expr}
}

func allowOnly(expr string) policy.Condition {
	return policy.Condition{Effect: policy.ConditionAllowOnly, Expr: expr, Message: "only: " + expr}
}

func decode(t *testing.T, s string) map[string]any {
	t.Helper()
	dec := json.NewDecoder(strings.NewReader(s))
	dec.UseNumber()
	var m map[string]any
	if err := dec.Decode(&m); err != nil {
		t.Fatal(err)
	}
	return m
}

func TestEvaluate(t *testing.T) {
	alice := principal.New(principal.OIDC, "alice", "ci", []string{"acct-1", "ops"})
	tests := []struct {
		name  string
		conds []policy.Condition
		args  string
		want  int // refusing rule, -1 allowed
		err   bool
	}{
		{"deny true", []policy.Condition{deny("args.amount > 100")}, `{"account_id":"a","amount":150}`, 0, false},
		{"deny false", []policy.Condition{deny("args.amount > 100")}, `{"account_id":"a","amount":99.5}`, -1, false},
		{"allow_only in groups", []policy.Condition{allowOnly("args.account_id in principal.groups")}, `{"account_id":"acct-1","amount":1}`, -1, false},
		{"allow_only outside groups", []policy.Condition{allowOnly("args.account_id in principal.groups")}, `{"account_id":"acct-2","amount":1}`, 0, false},
		{"has guards optional", []policy.Condition{deny("has(args.force) && args.force")}, `{"account_id":"a","amount":1}`, -1, false},
		{"has and set", []policy.Condition{deny("has(args.force) && args.force")}, `{"account_id":"a","amount":1,"force":true}`, 0, false},
		{"unset optional fails closed", []policy.Condition{deny("args.force")}, `{"account_id":"a","amount":1}`, 0, true},
		{"integer arithmetic", []policy.Condition{deny("args.count * 2 >= 10")}, `{"account_id":"a","amount":1,"count":5}`, 0, false},
		{"nested list", []policy.Condition{deny("args.body.lines.exists(l, l.qty > 3)")}, `{"account_id":"a","amount":1,"body":{"lines":[{"qty":1},{"qty":4}]}}`, 0, false},
		{"first refusing rule decides", []policy.Condition{deny("args.amount > 1000"), allowOnly("principal.subject == 'bob'"), deny("true")}, `{"account_id":"a","amount":5}`, 1, false},
		{"principal kind", []policy.Condition{allowOnly("principal.kind == 'oidc' && principal.client_id == 'ci'")}, `{"account_id":"a","amount":5}`, -1, false},
		{"cost limit fails closed", []policy.Condition{deny("args.tags.all(a, args.tags.all(b, args.tags.all(c, a + b + c != 'x')))")}, `{"account_id":"a","amount":5,"tags":[` + strings.Repeat(`"t",`, 60) + `"t"]}`, 0, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, err := Compile(json.RawMessage(plainSchema), tt.conds)
			if err != nil {
				t.Fatal(err)
			}
			d := s.Evaluate(decode(t, tt.args), alice)
			if d.Rule != tt.want || (d.Err != nil) != tt.err {
				t.Fatalf("Evaluate = %+v, want rule %d (error %v)", d, tt.want, tt.err)
			}
			if d.Rule >= 0 && !tt.err && d.Message != tt.conds[d.Rule].Message {
				t.Fatalf("message %q, want the rule's own %q", d.Message, tt.conds[d.Rule].Message)
			}
			if tt.err && !strings.Contains(d.Message, "could not be evaluated") {
				t.Fatalf("message %q does not say the rule could not be evaluated", d.Message)
			}
		})
	}
}

func TestCompileErrors(t *testing.T) {
	tests := []struct {
		name   string
		schema string
		conds  []policy.Condition
		index  int
		line   int
		col    int
		substr string
	}{
		{"unknown field", plainSchema, []policy.Condition{deny("true"), deny("args.amout > 100")}, 1, 1, 5, "undefined field 'amout'"},
		{"type mismatch", plainSchema, []policy.Condition{deny("args.account_id > 100")}, 0, 1, 17, "no matching overload"},
		{"second line", plainSchema, []policy.Condition{deny("args.amount > 1 &&\n  args.force == 'yes'")}, 0, 2, 14, "no matching overload"},
		{"not bool", plainSchema, []policy.Condition{deny("args.amount + 1.0")}, 0, 0, 0, "must be true or false"},
		{"syntax", plainSchema, []policy.Condition{deny("args.amount >")}, 0, 1, 14, "Syntax error"},
		{"bad effect", plainSchema, []policy.Condition{{Effect: "maybe", Expr: "true", Message: "m"}}, 0, 0, 0, "effect must be"},
		{"too long", plainSchema, []policy.Condition{deny(strings.Repeat("true && ", 200) + "true")}, 0, 0, 0, "characters long"},
		{"unknown principal field", plainSchema, []policy.Condition{deny("principal.email == 'x'")}, 0, 1, 10, "undefined field 'email'"},
		{"map schema takes any key", paySchema, []policy.Condition{deny(`args["X-Request-Id"] == 1`)}, -1, 0, 0, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Compile(json.RawMessage(tt.schema), tt.conds)
			if tt.index < 0 {
				if err != nil {
					t.Fatalf("Compile: %v, want it to compile", err)
				}
				return
			}
			var ce *CompileError
			if !errors.As(err, &ce) {
				t.Fatalf("Compile error = %v, want a *CompileError", err)
			}
			if ce.Index != tt.index || ce.Line != tt.line || ce.Column != tt.col || !strings.Contains(ce.Message, tt.substr) {
				t.Fatalf("error = %+v (%v), want condition %d at %d:%d containing %q", ce, ce, tt.index, tt.line, tt.col, tt.substr)
			}
		})
	}
}

func TestMapSchemaNumbersAreDoubles(t *testing.T) {
	// A property name CEL cannot write after a dot makes args a map of
	// dyn: numbers are JSON numbers (double) and comparisons still work.
	s, err := Compile(json.RawMessage(paySchema), []policy.Condition{deny(`args["amount"] > 100`)})
	if err != nil {
		t.Fatal(err)
	}
	if d := s.Evaluate(decode(t, `{"account_id":"a","amount":101}`), principal.Principal{}); d.Rule != 0 || d.Err != nil {
		t.Fatalf("Evaluate = %+v, want rule 0 refusing", d)
	}
	if d := s.Evaluate(decode(t, `{"account_id":"a","amount":100}`), principal.Principal{}); !d.Allowed() {
		t.Fatalf("Evaluate = %+v, want allowed", d)
	}
}

func TestNoConditions(t *testing.T) {
	s, err := Compile(nil, nil)
	if err != nil || s != nil || !s.Evaluate(nil, principal.Principal{}).Allowed() {
		t.Fatalf("no conditions: %v %v", s, err)
	}
}
