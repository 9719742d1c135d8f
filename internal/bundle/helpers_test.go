package bundle

import (
	"bytes"
	"encoding/json"
	"fmt"
	"testing"
	"time"

	"github.com/toolgate/toolgate/internal/policy"
	"github.com/toolgate/toolgate/internal/risk"
)

// issued is the fixed issue time of test bundles.
var issued = time.Date(2025, 3, 1, 12, 0, 0, 0, time.UTC)

// testKey returns a deterministic signing key: seed bytes all equal to n.
func testKey(t testing.TB, n byte) SigningKey {
	t.Helper()
	k, err := GenerateKey(bytes.NewReader(bytes.Repeat([]byte{n}, 32)), issued)
	if err != nil {
		t.Fatal(err)
	}
	return k
}

func keySet(keys ...SigningKey) KeySet {
	var s KeySet
	for _, k := range keys {
		s.Keys = append(s.Keys, k.Public())
	}
	return s
}

// smallInput is a project of two sources and three tools, one of them not
// exposed; the golden canonical bytes are made from it.
func smallInput() BuildInput {
	getPolicy := policy.Policy{Exposed: true, TimeoutMS: 5000, Retry: policy.Retry{Attempts: 2, BackoffMS: 300, Multiplier: 2, Jitter: true}}
	postPolicy := policy.Policy{Exposed: true, Retry: policy.Retry{Attempts: 3, BackoffMS: 500, Multiplier: 2}}
	return BuildInput{
		Version: 7,
		Now:     issued.Add(1500 * time.Millisecond).In(time.FixedZone("CET", 3600)),
		Sources: []Source{
			{Name: "shop", Origin: "https://shop.example.com", BasePath: "/v2",
				Auth: []AuthScheme{{Name: "key", Type: "apiKey", In: "header", Param: "X-API-Key"}}},
			{Name: "admin", Origin: "https://admin.example.com:8443"},
		},
		Tools: []ToolInput{
			{Name: "placeOrder", Source: "shop", Method: "post", Path: "/orders", Description: "Place an order <now> & pay",
				Body:        &Body{Arg: "body", Required: true, MediaType: "application/json"},
				InputSchema: json.RawMessage(`{ "type": "object", "properties": {"body": {"type": "object"}}, "required": ["body"] }`),
				Assessment:  risk.Assessment{Class: risk.Write, Reasons: []risk.Reason{{Code: "method:POST", Class: risk.Write, Text: "POST creates or changes state"}}},
				Policy:      postPolicy},
			{Name: "getOrder", Source: "shop", Method: "GET", Path: "/orders/{id}", Description: "Read one order",
				Params:      []Param{{Name: "id", In: "path", Arg: "id", Required: true}},
				InputSchema: json.RawMessage(`{"type":"object","required":["id"],"properties":{"id":{"type":"string"}}}`),
				Assessment:  risk.Assessment{Class: risk.Read, Reasons: []risk.Reason{{Code: "method:GET", Class: risk.Read, Text: "GET reads"}}},
				Policy:      getPolicy},
			{Name: "deleteUser", Source: "admin", Method: "DELETE", Path: "/users/{id}",
				InputSchema: json.RawMessage(`{"type":"object"}`),
				Assessment:  risk.Assessment{Class: risk.Destructive},
				Policy:      policy.Policy{Exposed: false}},
		},
	}
}

func mustBuild(t testing.TB, in BuildInput) *Bundle {
	t.Helper()
	b, err := Build(in)
	if err != nil {
		t.Fatalf("Build: %v", err)
	}
	return b
}

func mustSign(t testing.TB, b *Bundle, k SigningKey) []byte {
	t.Helper()
	signed, err := Sign(b, k)
	if err != nil {
		t.Fatalf("Sign: %v", err)
	}
	return signed
}

// largeInput is a realistic project of n tools over 10 sources: input
// schemas of a few hundred bytes, reasons, policies, some approvals.
func largeInput(n int) BuildInput {
	in := BuildInput{Version: 42, Now: issued}
	for s := range 10 {
		in.Sources = append(in.Sources, Source{Name: fmt.Sprintf("api%02d", s), Origin: fmt.Sprintf("https://api%02d.example.com", s), BasePath: "/v1",
			Auth: []AuthScheme{{Name: "bearer", Type: "http", Scheme: "bearer"}}})
	}
	methods := []string{"GET", "POST", "PUT", "DELETE", "PATCH"}
	classes := []risk.Class{risk.Read, risk.Write, risk.Write, risk.Destructive, risk.Write}
	for i := range n {
		m := i % len(methods)
		p := policy.Policy{Exposed: true, TimeoutMS: 5000 + i%7*100, Retry: policy.Retry{Attempts: 1 + i%3, BackoffMS: 300, Multiplier: 2, Jitter: true}}
		if m == 2 {
			p.IdempotencyKey = &policy.IdempotencyKey{Header: "Idempotency-Key", Source: policy.KeyGenerated}
		}
		t := ToolInput{
			Name: fmt.Sprintf("tool_%05d", i), Source: fmt.Sprintf("api%02d", i%10), Method: methods[m],
			Path:        fmt.Sprintf("/things/%d/items/{id}", i),
			Description: fmt.Sprintf("Operation %d on the items of thing %d, as described by the API's own summary text.", i, i),
			Params:      []Param{{Name: "id", In: "path", Arg: "id", Required: true}, {Name: "limit", In: "query", Arg: "limit"}},
			InputSchema: json.RawMessage(fmt.Sprintf(`{"type":"object","additionalProperties":false,"required":["id"],"properties":{"id":{"type":"string","description":"Identifier of the item %d","maxLength":64},"limit":{"type":"integer","minimum":1,"maximum":100,"description":"Page size"},"body":{"type":"object","properties":{"name":{"type":"string"},"count":{"type":"integer"}}}}}`, i)),
			Assessment: risk.Assessment{Class: classes[m], Reasons: []risk.Reason{
				{Code: "method:" + methods[m], Class: classes[m], Text: "The HTTP method " + methods[m] + " implies this class."},
				{Code: "path:items", Class: risk.Read, Text: "The path names a collection of items."}}},
			Policy: p,
		}
		if classes[m] == risk.Destructive {
			t.Approvals = []Approval{{ChangeRequest: int64(i), ApprovedBy: "sec@example.com", ApprovedAt: issued.Add(-time.Hour), Summary: "expose: false → true"}}
		}
		in.Tools = append(in.Tools, t)
	}
	return in
}
