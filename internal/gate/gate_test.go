package gate

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/toolgate/toolgate/internal/bundle"
	"github.com/toolgate/toolgate/internal/policy"
	"github.com/toolgate/toolgate/internal/risk"
)

var petSource = bundle.Source{Name: "pets", Origin: "https://pets.example.com"}

// tool is a tool of petSource with the class in force and the engine's
// verdict.
func tool(method, path string, class, detected risk.Class, p policy.Policy) Tool {
	p.Exposed = true
	return Tool{Source: petSource, Detected: detected, Input: bundle.ToolInput{Name: "t", Source: "pets", Method: method,
		Path: path, Description: "A tool", InputSchema: json.RawMessage(`{"type":"object"}`),
		Assessment: risk.Assessment{Class: class}, Policy: p}}
}

// approval approves kind for t as it is (its digest, its policy, its class).
func approval(t *testing.T, tl Tool, kind policy.Action, id int64) Approval {
	t.Helper()
	bt, err := bundle.BuildTool(tl.Input, tl.Source)
	if err != nil {
		t.Fatal(err)
	}
	return Approval{Kind: kind, Digest: bt.Digest, Policy: tl.Input.Policy, Class: tl.Input.Assessment.Class,
		Record: bundle.Approval{ChangeRequest: id, ApprovedBy: "approver@example.com"}}
}

// TestDecide is the gate's table: which tools a bundle may sign under
// which approvals, whatever path (publish, preview, rollback) asks.
func TestDecide(t *testing.T) {
	retry := policy.Policy{Idempotent: true, Retry: policy.Retry{Attempts: 3}}
	del := tool("DELETE", "/pets", risk.Destructive, risk.Destructive, policy.Policy{})
	movedDel := tool("DELETE", "/owners", risk.Destructive, risk.Destructive, policy.Policy{})
	otherMethod := tool("POST", "/pets", risk.Destructive, risk.Destructive, policy.Policy{})
	otherOrigin := del
	otherOrigin.Source.Origin = "https://evil.example.com"
	post := tool("POST", "/pets", risk.Write, risk.Write, retry)
	morePost := post
	morePost.Input.Policy.Retry.Attempts = 5
	keyed := tool("POST", "/pets", risk.Write, risk.Write, policy.Policy{IdempotencyKey: &policy.IdempotencyKey{}, Retry: policy.Retry{Attempts: 3}})
	keyedEffective := keyed // as an old bundle holds it: defaults filled in
	keyedEffective.Input.Policy = policy.Effective("POST", keyed.Input.Policy)
	lowered := tool("DELETE", "/pets", risk.Write, risk.Destructive, policy.Policy{})
	loweredToRead := tool("DELETE", "/pets", risk.Read, risk.Destructive, policy.Policy{})
	legacy := approval(t, del, policy.ExposeRisky, 9)
	legacy.Digest = ""
	tests := []struct {
		name      string
		tool      Tool
		approvals []Approval
		why       string // "" when publishable
		covering  int
	}{
		{"a READ tool needs nothing", tool("GET", "/pets", risk.Read, risk.Read, policy.Policy{}), nil, "", 0},
		{"a WRITE tool retried by method needs nothing", tool("GET", "/pets", risk.Write, risk.Write, retry), nil, "", 0},
		{"DESTRUCTIVE without approval", del, nil, "DESTRUCTIVE and exposed without an approved change request", 0},
		{"DESTRUCTIVE under its approval", del, []Approval{approval(t, del, policy.ExposeRisky, 1)}, "", 1},
		{"an approval of another kind does not cover", del, []Approval{approval(t, del, policy.EnableMutationRetry, 1)},
			"DESTRUCTIVE and exposed without an approved change request", 0},
		{"path moved since the approval", del, []Approval{approval(t, movedDel, policy.ExposeRisky, 2)}, "change request 2 approved another definition", 0},
		{"method moved since the approval", del, []Approval{approval(t, otherMethod, policy.ExposeRisky, 3)}, "change request 3 approved another definition", 0},
		{"origin moved since the approval", del, []Approval{approval(t, otherOrigin, policy.ExposeRisky, 4)}, "change request 4 approved another definition", 0},
		{"one matching approval among stale ones", del, []Approval{approval(t, movedDel, policy.ExposeRisky, 2), approval(t, del, policy.ExposeRisky, 5)}, "", 1},
		{"a request older than digests", del, []Approval{legacy}, "", 1},
		{"mutation retry without approval", post, nil, "retry enabled on a POST tool without an approved change request", 0},
		{"mutation retry under its approval", post, []Approval{approval(t, post, policy.EnableMutationRetry, 6)}, "", 1},
		{"more retry than approved", morePost, []Approval{approval(t, post, policy.EnableMutationRetry, 6)}, "retry goes beyond what change request 6 approved", 0},
		{"an old bundle's effective policy under the typed approval", keyedEffective, []Approval{approval(t, keyed, policy.EnableMutationRetry, 8)}, "", 1},
		{"lowered class without approval", lowered, nil, "class lowered from DESTRUCTIVE to WRITE without an approved change request", 0},
		{"lowered class under its approval", lowered, []Approval{approval(t, lowered, policy.LowerRiskClass, 7)}, "", 1},
		{"lowered further than approved", loweredToRead, []Approval{approval(t, lowered, policy.LowerRiskClass, 7)}, "change request 7 lowered the class to WRITE, not to READ", 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d, err := Decide(tt.tool, tt.approvals)
			if err != nil {
				t.Fatal(err)
			}
			if tt.why == "" && !d.Publishable() || tt.why != "" && !strings.Contains(d.Reason, tt.why) {
				t.Fatalf("reason %q, want %q", d.Reason, tt.why)
			}
			if len(d.Approvals) != tt.covering {
				t.Errorf("covering approvals %+v, want %d", d.Approvals, tt.covering)
			}
		})
	}
}

// TestDecideExecutorRefusal: a tool the executor would refuse is left out
// with the executor's reason, approved or not.
func TestDecideExecutorRefusal(t *testing.T) {
	tl := tool("GET", "/pets", risk.Read, risk.Read, policy.Policy{})
	tl.Input.Params = []bundle.Param{{Name: "id", In: "path", Arg: "id", Required: true}} // not in the path template
	d, err := Decide(tl, nil)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(d.Reason, "The runtime's executor would refuse it: ") {
		t.Fatalf("reason %q", d.Reason)
	}
	tl.Source.Origin = "" // left to the caller's origin check
	if d, _ := Decide(tl, nil); !d.Publishable() {
		t.Fatalf("without origin: %q", d.Reason)
	}
}

// TestDecideConditionThatDoesNotCompile: publish, preview and rollback
// leave out a tool whose condition the executor's compile step refuses,
// with CEL's position; a condition that compiles ships.
func TestDecideConditionThatDoesNotCompile(t *testing.T) {
	tl := tool("GET", "/pets", risk.Read, risk.Read, policy.Policy{})
	tl.Input.InputSchema = []byte(`{"type":"object","properties":{"limit":{"type":"integer"}}}`)
	tl.Input.Policy.Conditions = []policy.Condition{{Effect: policy.ConditionDeny, Expr: "args.limit > 'ten'", Message: "m"}}
	d, err := Decide(tl, nil)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(d.Reason, "condition 1, line 1, column 12") {
		t.Fatalf("reason %q, want the condition's position", d.Reason)
	}
	tl.Input.Policy.Conditions[0].Expr = "args.limit > 10"
	if d, _ := Decide(tl, nil); !d.Publishable() {
		t.Fatalf("a compiling condition is left out: %q", d.Reason)
	}
}
