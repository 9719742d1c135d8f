package runtime

import (
	"strings"
	"testing"

	"github.com/toolgate/toolgate/internal/policy"
	"github.com/toolgate/toolgate/internal/testing/oidctest"
)

// Agents with access tokens from the real provider, through a go-sdk
// client over streamable HTTP, on a tool scoped to the billing group with
// an argument condition (a v2 bundle): an agent outside the group does not
// see it and calling it by name is refused as an unknown tool; a member
// sees it, the condition refuses one order without any request reaching
// the upstream, and the compliant call goes through.
func TestGroupsAndConditionsForAuthenticatedAgents(t *testing.T) {
	p := oidctest.Start(t)
	p.AddAgent(oidctest.Agent{ID: "agent-billing", Secret: "s1", Audience: []string{testResource}, Groups: []string{"ops", "billing"}})
	p.AddAgent(oidctest.Agent{ID: "agent-ops", Secret: "s2", Audience: []string{testResource}, Groups: []string{"ops"}})
	tool := getOrderTool()
	tool.Policy.Groups = []string{"billing"}
	tool.Policy.Conditions = []policy.Condition{{Effect: policy.ConditionDeny, Expr: `args.order_id == "ord_0002"`,
		Message: "order ord_0002 is frozen"}}
	f := newAuthFixtureWith(t, oidcEndpoint(t, p), tool)

	ops, err := dialAs(t, f.url, agentToken(t, p, "agent-ops", "s2"))
	if err != nil {
		t.Fatal(err)
	}
	if got := listTools(t, ops); len(got) != 0 {
		t.Errorf("agent outside billing lists %v, want nothing", names(got))
	}
	res, body := callTool(t, ops, "getOrder", map[string]any{"order_id": "ord_0001"})
	if !res.IsError || errorClass(body) != "TOOL_NOT_EXPOSED" || !strings.Contains(errorMessage(body), "not in bundle") {
		t.Errorf("agent outside billing calling getOrder: %v", body)
	}
	if n := len(f.upstreamHeaders()); n != 0 {
		t.Fatalf("%d upstream requests after the refused call, want 0", n)
	}

	billing, err := dialAs(t, f.url, agentToken(t, p, "agent-billing", "s1"))
	if err != nil {
		t.Fatal(err)
	}
	if got := listTools(t, billing); got["getOrder"] == nil {
		t.Errorf("billing agent lists %v, want getOrder", names(got))
	}
	res, body = callTool(t, billing, "getOrder", map[string]any{"order_id": "ord_0002"})
	if !res.IsError || errorClass(body) != "POLICY_DENIED" || errorMessage(body) != "order ord_0002 is frozen" {
		t.Errorf("denied call: %v", body)
	}
	if n := len(f.upstreamHeaders()); n != 0 {
		t.Fatalf("%d upstream requests after the condition refused the call, want 0", n)
	}
	res, body = callTool(t, billing, "getOrder", map[string]any{"order_id": "ord_0001"})
	if res.IsError {
		t.Fatalf("compliant call refused: %v", body)
	}
	if n := len(f.upstreamHeaders()); n != 1 {
		t.Fatalf("%d upstream requests after the compliant call, want 1", n)
	}
	if logs := f.logs.String(); !strings.Contains(logs, "refused_by=groups") && !strings.Contains(logs, `"refused_by":"groups"`) {
		t.Errorf("the refusal by groups is not in the log:\n%s", logs)
	}
}

func errorClass(body map[string]any) string {
	e, _ := body["error"].(map[string]any)
	c, _ := e["class"].(string)
	return c
}

func errorMessage(body map[string]any) string {
	e, _ := body["error"].(map[string]any)
	m, _ := e["message"].(string)
	return m
}
