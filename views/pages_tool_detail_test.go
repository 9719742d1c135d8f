package views

import "testing"

// TestToolDetailPage: the operation as imported (escaped), the policy
// panel with the risk class beside the retry summary, the schema gaps with
// their acknowledgement form, and the raise form for admins.
func TestToolDetailPage(t *testing.T) {
	panel := deletePanel()
	m := ToolDetailView{Page: page("pets_delete"), Tool: toolRows[1], OperationID: "deletePet", PathKey: "/pets/{id}",
		Description: "Deletes a pet. " + evil, Tags: []string{"pets"},
		Parameters: []ToolParamVM{{Name: "id", In: "path", Required: true, Schema: "integer", Description: evil}},
		Body:       &ToolBodyVM{MediaTypes: []string{"application/json"}, Schema: `{"type":"object"}`},
		Security:   []string{"api_key"}, Servers: []string{"https://pets.example.com/v1"},
		Extensions: []ToolKVVM{{Key: "x-owner", Value: `"team-pets"`}}, InputSchema: `{"type":"object","properties":{"id":{}}}`,
		Override: "Raised to DESTRUCTIVE by ada@example.com", Detected: "WRITE", Notice: "Policy saved.",
		Panel: &panel,
		Raise: RaiseRiskVM{Show: true, URL: "/tools/pets_delete/risk", Classes: []string{"PRIVILEGED"},
			Errors: []FormError{{Field: "reason", Message: "Give a reason."}}},
		Gaps: SchemaGapsVM{Gaps: []string{"body.owner"}, FormURL: "/tools/pets_delete/schema-gaps"}}
	wantPage(t, ToolDetailPage(m), "pets_delete",
		in("[data-testid=tool-detail] p.lead", hasText("DELETE /pets/{id} · source pets"), in("a[href='/sources/pets']"), in("a[data-testid=tool-calls][href='/calls?tool=pets_delete']", hasText("Call records"))),
		in("[data-testid=tool-summary]", hasText(evil)),
		in("[data-testid=tool-description]", hasText("Deletes a pet. "+evil)),
		in("[data-testid=notice]", hasText("Policy saved.")),
		in("section[data-testid=schema-gaps]", hasText("body.owner"), in("[data-testid=schema-gaps-unacknowledged]"),
			postForm("/tools/pets_delete/schema-gaps")),
		in("[data-testid=tool-policy] [data-testid=risk-box] [data-testid=risk-class]", hasText("DESTRUCTIVE")),
		in("[data-testid=tool-policy] [data-testid=retry-box] [data-testid=policy-summary]", hasText("DELETE · 1 attempt")),
		in("[data-testid=risk-override]", hasText("Raised to DESTRUCTIVE by ada@example.com (detected WRITE)")),
		postForm("/tools/pets_delete/risk", hasAttr("data-testid", "raise-risk"),
			in("select#raise-class option[value=PRIVILEGED]"),
			in("textarea#raise-reason[required][aria-invalid]", hasAttr("aria-describedby", "raise-reason-error")),
			in("#raise-reason-error[role=alert]", hasText("Give a reason.")), none("#raise-class-error")),
		in("[data-testid=tool-operation]", in("dt:contains('operationId') + dd", hasText("deletePet")),
			in("dt:contains('Deprecated') + dd", hasText("yes")),
			in("[data-testid=tool-params] td", hasText(evil)),
			in("pre.schema", hasText(`{"type":"object"}`)),
			in("[data-testid=tool-security] li", hasText("api_key")),
			in("dt code", hasText("x-owner")),
			in("details summary", hasText("Input schema"))))
}

// TestToolDetailPageRemoved: a removed tool has no policy panel: its class
// and retry summary still show side by side, and nothing can be changed.
func TestToolDetailPageRemoved(t *testing.T) {
	m := ToolDetailView{Page: page("pets_delete"), Tool: toolRows[1], Removed: "2026-11-29",
		Gaps: SchemaGapsVM{Gaps: []string{"body.owner"}, AckBy: "ada@example.com"}}
	wantPage(t, ToolDetailPage(m), "pets_delete",
		in("[data-testid=removed]", hasText("Removed from the document on 2026-11-29")),
		none("[data-testid=tool-policy]"),
		in("section.card p:has([data-testid=risk-class])", in("[data-testid=risk-class].risk-DESTRUCTIVE"),
			in("[data-testid=policy-summary]", hasText("DELETE · 1 attempt"))),
		in("[data-testid=risk-reasons] li", hasText("method.delete DELETE removes data")),
		in("[data-testid=schema-gaps-ack]", hasText("Acknowledged by ada@example.com")),
		none("form"+":not([action='/logout'])"),
		in("[data-testid=tool-operation]", in("dt:contains('Tags') + dd", hasText("none"))))
}
