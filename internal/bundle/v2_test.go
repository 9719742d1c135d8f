package bundle

import (
	"bytes"
	"errors"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/toolgate/toolgate/internal/policy"
)

// v2Input is smallInput with groups (unsorted, one repeated) and two
// conditions on getOrder.
func v2Input() BuildInput {
	in := smallInput()
	for i := range in.Tools {
		if in.Tools[i].Name == "getOrder" {
			in.Tools[i].Policy.Groups = []string{"support", "billing", "support"}
			in.Tools[i].Policy.Conditions = []policy.Condition{
				{Effect: policy.ConditionDeny, Expr: `args.id == "ord_0"`, Message: "Order 0 is <internal>."},
				{Effect: policy.ConditionAllowOnly, Expr: `args.id.startsWith("ord_")`, Message: "Only order ids."},
			}
		}
	}
	return in
}

// toolBytes returns the canonical bytes of each tool of a payload, by name.
func toolBytes(t *testing.T, payload []byte) map[string]string {
	t.Helper()
	_, tools, err := splitTools(payload)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]string{}
	for _, raw := range tools {
		name := string(raw[bytes.Index(raw, []byte(`"name":`))+7:])
		out[name[:strings.IndexByte(name[1:], '"')+2]] = string(raw)
	}
	return out
}

// TestV2MembersOnTheWire: a policy with groups or conditions makes the
// bundle toolgate.bundle/v2, its members written in their sorted places
// (groups as a sorted set, conditions in order), and the policies come
// back from Verify exactly as built; a tool without them has the same bytes as in a
// v1 bundle, and a bundle without any stays v1, byte for byte.
func TestV2MembersOnTheWire(t *testing.T) {
	k := testKey(t, 1)
	b := mustBuild(t, v2Input())
	if b.Schema != SchemaV2 {
		t.Fatalf("schema %q, want %q", b.Schema, SchemaV2)
	}
	payload, err := Canonical(b)
	if err != nil {
		t.Fatal(err)
	}
	want := `"circuit_breaker":{"reset_ms":30000,"threshold":5},"conditions":[` +
		`{"effect":"deny","expr":"args.id == \"ord_0\"","message":"Order 0 is <internal>."},` +
		`{"effect":"allow_only","expr":"args.id.startsWith(\"ord_\")","message":"Only order ids."}],` +
		`"deadline_ms":30000,"exposed":true,"groups":["billing","support"],"idempotency_key":null`
	tools := toolBytes(t, payload)
	if !strings.Contains(tools[`"getOrder"`], want) {
		t.Errorf("getOrder's policy is not written as specified:\n got %s\nwant …%s…", tools[`"getOrder"`], want)
	}
	got, _, err := Verify(mustSign(t, b, k), keySet(k), VerifyOptions{Now: issued.Add(time.Hour)})
	if err != nil {
		t.Fatalf("Verify: %v", err)
	}
	for i := range b.Tools {
		if !reflect.DeepEqual(got.Tools[i].Policy, b.Tools[i].Policy) {
			t.Errorf("tool %s: the policy reads back differently:\n got %+v\nwant %+v", b.Tools[i].Name, got.Tools[i].Policy, b.Tools[i].Policy)
		}
	}

	v1 := mustBuild(t, smallInput())
	if v1.Schema != SchemaV1 {
		t.Fatalf("a bundle without groups or conditions has schema %q, want %q", v1.Schema, SchemaV1)
	}
	v1Payload, err := Canonical(v1)
	if err != nil {
		t.Fatal(err)
	}
	if v1Tools := toolBytes(t, v1Payload); v1Tools[`"placeOrder"`] != tools[`"placeOrder"`] {
		t.Errorf("a tool without v2 members has other bytes in a v2 bundle:\n v1 %s\n v2 %s", v1Tools[`"placeOrder"`], tools[`"placeOrder"`])
	}
	for _, member := range []string{`"groups"`, `"conditions"`} {
		if bytes.Contains(v1Payload, []byte(member)) {
			t.Errorf("the v1 bundle carries %s: %s", member, v1Payload)
		}
	}
}

// TestV2MembersRefused: groups and conditions have one byte form and a
// closed set of effects, and only v2 carries them: a v1 runtime would
// ignore them as members of a later revision and serve the tool to anyone.
func TestV2MembersRefused(t *testing.T) {
	k := testKey(t, 1)
	plain, err := Canonical(mustBuild(t, v2Input()))
	if err != nil {
		t.Fatal(err)
	}
	getOrder := func(doc map[string]any) map[string]any {
		for _, tv := range arr(doc["tools"]) {
			if obj(tv)["name"] == "getOrder" {
				return obj(obj(tv)["policy"])
			}
		}
		panic("no getOrder")
	}
	firstCondition := func(doc map[string]any) map[string]any { return obj(arr(getOrder(doc)["conditions"])[0]) }
	tests := []struct {
		name string
		edit func(doc map[string]any)
		want string
	}{
		{"groups in a v1 bundle", func(doc map[string]any) { doc["schema"] = SchemaV1; delete(getOrder(doc), "conditions") }, "only toolgate.bundle/v2 carries"},
		{"conditions in a v1 bundle", func(doc map[string]any) { doc["schema"] = SchemaV1; delete(getOrder(doc), "groups") }, "only toolgate.bundle/v2 carries"},
		{"empty groups written", func(doc map[string]any) { getOrder(doc)["groups"] = []any{} }, "canonical form"},
		{"null groups", func(doc map[string]any) { getOrder(doc)["groups"] = nil }, "canonical form"},
		{"empty conditions written", func(doc map[string]any) { getOrder(doc)["conditions"] = []any{} }, "canonical form"},
		{"groups unsorted", func(doc map[string]any) { getOrder(doc)["groups"] = []any{"support", "billing"} }, `"billing" follows "support"`},
		{"a group twice", func(doc map[string]any) { getOrder(doc)["groups"] = []any{"billing", "billing"} }, "sorted (byte order) and unique"},
		{"an empty group name", func(doc map[string]any) { getOrder(doc)["groups"] = []any{""} }, "a group name is empty"},
		{"a group that is not a string", func(doc map[string]any) { getOrder(doc)["groups"] = []any{1} }, "decoding"},
		{"unknown effect", func(doc map[string]any) { firstCondition(doc)["effect"] = "warn" }, `effect "warn": want deny or allow_only`},
		{"effect in another case", func(doc map[string]any) { firstCondition(doc)["effect"] = "DENY" }, `effect "DENY"`},
		{"empty expression", func(doc map[string]any) { firstCondition(doc)["expr"] = " " }, "the expression is empty"},
		{"condition without a message", func(doc map[string]any) { delete(firstCondition(doc), "message") }, "canonical form"},
		{"condition without an effect", func(doc map[string]any) { delete(firstCondition(doc), "effect") }, "canonical form"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			payload := editPayload(t, plain, tc.edit)
			_, _, err := Verify(handSign(t, header(k), payload, k.Private), keySet(k), VerifyOptions{Now: issued.Add(time.Hour)})
			if !errors.Is(err, ErrSchema) || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("Verify error = %v, want %v saying %q", err, ErrSchema, tc.want)
			}
		})
	}
}

// TestMemoIsPerSchema: a tool remembered from a v2 bundle is checked again
// in a v1 bundle with the same bytes, where its groups are refused.
func TestMemoIsPerSchema(t *testing.T) {
	k := testKey(t, 1)
	b := mustBuild(t, v2Input())
	memo := &Memo{}
	opts := VerifyOptions{Now: issued.Add(time.Hour), Memo: memo}
	if _, _, err := Verify(mustSign(t, b, k), keySet(k), opts); err != nil {
		t.Fatal(err)
	}
	payload, err := Canonical(b)
	if err != nil {
		t.Fatal(err)
	}
	v1 := bytes.Replace(payload, []byte(SchemaV2), []byte(SchemaV1), 1)
	_, _, err = Verify(handSign(t, header(k), v1, k.Private), keySet(k), opts)
	if !errors.Is(err, ErrSchema) || !strings.Contains(err.Error(), "only toolgate.bundle/v2 carries") {
		t.Fatalf("Verify error = %v, want the v1 bundle's groups refused", err)
	}
}

// TestDowngradeV1: the v1 form of a v2 bundle has the same version and
// times, leaves out exactly the tools that use v2 (named, with the
// reason) and keeps every other tool byte for byte; a verifier reading
// only v1, as a runtime of an older release, accepts it and refuses the
// v2 bundle itself for its schema.
func TestDowngradeV1(t *testing.T) {
	k := testKey(t, 1)
	b := mustBuild(t, v2Input())
	d, withheld := DowngradeV1(b)
	if d.Schema != SchemaV1 || d.Version != b.Version || !d.IssuedAt.Equal(b.IssuedAt) || !d.ExpiresAt.Equal(b.ExpiresAt) {
		t.Fatalf("downgrade is %s v%d %s–%s, want %s v%d with the same times", d.Schema, d.Version, d.IssuedAt, d.ExpiresAt, SchemaV1, b.Version)
	}
	if want := []Withheld{{Tool: "getOrder", Reason: WithheldV2Reason}}; !reflect.DeepEqual(withheld, want) {
		t.Errorf("withheld %+v, want %+v", withheld, want)
	}
	if len(b.Tools) != 2 || b.Schema != SchemaV2 || len(b.Tools[0].Policy.Groups) == 0 {
		t.Fatalf("DowngradeV1 changed its input: %+v", b)
	}
	v1Only := VerifyOptions{Now: issued.Add(time.Hour), Schemas: []string{SchemaV1}}
	got, payload, err := Verify(mustSign(t, d, k), keySet(k), v1Only)
	if err != nil {
		t.Fatalf("a v1-only verifier refuses the downgrade: %v", err)
	}
	if len(got.Tools) != 1 || got.Tools[0].Name != "placeOrder" {
		t.Errorf("downgrade serves %+v, want placeOrder only", got.Tools)
	}
	if bytes.Contains(payload, []byte(`"groups"`)) || bytes.Contains(payload, []byte(`"conditions"`)) {
		t.Errorf("the downgrade carries v2 members: %s", payload)
	}
	full, err := Canonical(b)
	if err != nil {
		t.Fatal(err)
	}
	if toolBytes(t, payload)[`"placeOrder"`] != toolBytes(t, full)[`"placeOrder"`] {
		t.Error("placeOrder has other bytes in the downgrade")
	}
	_, _, err = Verify(mustSign(t, b, k), keySet(k), v1Only)
	if !errors.Is(err, ErrUnknownSchema) || !strings.Contains(err.Error(), `"toolgate.bundle/v2" and this verifier knows toolgate.bundle/v1;`) {
		t.Errorf("a v1-only verifier: %v, want %v naming both schemas", err, ErrUnknownSchema)
	}
	if same, none := DowngradeV1(d); same != d || none != nil {
		t.Error("downgrading a v1 bundle changed it")
	}
}
