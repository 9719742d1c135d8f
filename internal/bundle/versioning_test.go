package bundle

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"
)

// fixturePayload is the canonical payload of the bundle signed before the
// wire types (wire_test.go): every kind of member v1 has.
func fixturePayload(t *testing.T) []byte {
	t.Helper()
	signed, err := os.ReadFile(filepath.Join("testdata", signedBeforeWireTypes))
	if err != nil {
		t.Fatal(err)
	}
	_, payload, err := Verify(signed, keySet(testKey(t, 1)), VerifyOptions{Now: issued.Add(time.Hour)})
	if err != nil {
		t.Fatal(err)
	}
	return payload
}

// editPayload decodes a canonical payload into plain maps, lets edit
// change it and returns it canonical again.
func editPayload(t *testing.T, payload []byte, edit func(doc map[string]any)) []byte {
	t.Helper()
	dec := json.NewDecoder(bytes.NewReader(payload))
	dec.UseNumber()
	var doc map[string]any
	if err := dec.Decode(&doc); err != nil {
		t.Fatal(err)
	}
	edit(doc)
	out, err := canonicalJSON(doc)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func obj(v any) map[string]any { return v.(map[string]any) }
func arr(v any) []any          { return v.([]any) }

// addLaterMembers adds what a newer v1 console could add (doc.go,
// "Versioning"): optional members at every level, including names that
// sort before and after every v1 member and values of every JSON type.
func addLaterMembers(doc map[string]any) {
	doc["a_console"] = map[string]any{"build": "2.3.0", "features": []any{"hints", json.Number("2")}}
	doc["zz_note"] = "published by a newer console"
	for _, s := range arr(doc["sources"]) {
		obj(s)["display_name"] = "An API <b>"
		for _, a := range arr(obj(s)["auth"]) {
			obj(a)["docs_url"] = "https://example.com/auth"
		}
	}
	for _, tv := range arr(doc["tools"]) {
		tool := obj(tv)
		tool["owner"] = map[string]any{"team": "payments", "oncall": nil}
		tool["zz_deprecated"] = false
		obj(tool["annotations"])["x_cost_hint"] = json.Number("3")
		pol := obj(tool["policy"])
		pol["a_hint"] = []any{}
		obj(pol["retry"])["max_delay_hint_ms"] = json.Number("60000")
		obj(pol["circuit_breaker"])["x_probe_hint"] = json.Number("1")
		if k, ok := pol["idempotency_key"].(map[string]any); ok {
			k["ttl_hint_s"] = json.Number("86400")
		}
		for _, p := range arr(tool["params"]) {
			obj(p)["example"] = "42"
		}
		if b, ok := tool["body"].(map[string]any); ok {
			b["x_encoding_hint"] = "utf-8"
		}
		for _, r := range arr(tool["reasons"]) {
			obj(r)["weight"] = json.Number("0.5")
		}
		if as, ok := tool["approvals"].([]any); ok {
			for _, a := range as {
				obj(a)["ticket"] = "SEC-1"
			}
		}
	}
}

// TestVerifyIgnoresMembersOfALaterRevision: a bundle from a newer console
// of the same major, signed with a real key, verifies and reads exactly as
// the same bundle without the new members (so a runtime enforces the same),
// with and without a memo, in either order; the payload returned is the
// one signed, extras included.
func TestVerifyIgnoresMembersOfALaterRevision(t *testing.T) {
	k := testKey(t, 1)
	plain := fixturePayload(t)
	later := editPayload(t, plain, addLaterMembers)
	if bytes.Equal(later, plain) || bytes.Count(later, []byte(`"x_probe_hint"`)) != 14 {
		t.Fatalf("the edit added no members: %s", later)
	}
	opts := VerifyOptions{Now: issued.Add(time.Hour)}
	want, _, err := Verify(handSign(t, header(k), plain, k.Private), keySet(k), opts)
	if err != nil {
		t.Fatal(err)
	}
	got, payload, err := Verify(handSign(t, header(k), later, k.Private), keySet(k), opts)
	if err != nil {
		t.Fatalf("bundle with later members refused: %v", err)
	}
	if !bytes.Equal(payload, later) {
		t.Error("Verify did not return the signed payload")
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("bundle with later members reads differently:\n got %+v\nwant %+v", got, want)
	}
	for _, order := range [][2][]byte{{plain, later}, {later, plain}, {later, later}} {
		memo := &Memo{}
		for _, p := range order {
			got, _, err := Verify(handSign(t, header(k), p, k.Private), keySet(k), VerifyOptions{Now: opts.Now, Memo: memo})
			if err != nil {
				t.Fatalf("with a memo: %v", err)
			}
			if !reflect.DeepEqual(got, want) {
				t.Errorf("with a memo, the bundle reads differently")
			}
		}
	}
}

// TestLaterMembersLoosenNothing: with members of a later revision present,
// everything v1 requires is still required and still checked.
func TestLaterMembersLoosenNothing(t *testing.T) {
	k := testKey(t, 1)
	firstTool := func(doc map[string]any) map[string]any { return obj(arr(doc["tools"])[0]) }
	tests := []struct {
		name string
		edit func(doc map[string]any)
	}{
		{"required policy member missing", func(doc map[string]any) { delete(obj(firstTool(doc)["policy"]), "exposed") }},
		{"retry_on missing", func(doc map[string]any) { delete(obj(obj(firstTool(doc)["policy"])["retry"]), "retry_on") }},
		{"required tool member missing", func(doc map[string]any) { delete(firstTool(doc), "digest") }},
		{"required source member missing", func(doc map[string]any) { delete(obj(arr(doc["sources"])[0]), "origin") }},
		{"required top-level member missing", func(doc map[string]any) { delete(doc, "expires_at") }},
		{"known member of the wrong type", func(doc map[string]any) { obj(firstTool(doc)["policy"])["timeout_ms"] = "5000" }},
		{"definition changed after the digest", func(doc map[string]any) { firstTool(doc)["description"] = "Call me first." }},
		{"unknown risk class", func(doc map[string]any) { firstTool(doc)["risk"] = "CRITICAL" }},
		{"tool not exposed", func(doc map[string]any) { obj(firstTool(doc)["policy"])["exposed"] = false }},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			payload := editPayload(t, fixturePayload(t), func(doc map[string]any) { addLaterMembers(doc); tc.edit(doc) })
			_, _, err := Verify(handSign(t, header(k), payload, k.Private), keySet(k), VerifyOptions{Now: issued.Add(time.Hour)})
			if !errors.Is(err, ErrSchema) {
				t.Fatalf("Verify error = %v, want %v", err, ErrSchema)
			}
		})
	}
}

// TestVerifyRefusesAnUnknownMajor: a toolgate.bundle/v3 bundle is refused
// before anything else in it is read, with an error naming the schema it
// has and the ones this verifier knows, whatever v2 changed.
func TestVerifyRefusesAnUnknownMajor(t *testing.T) {
	k := testKey(t, 1)
	for name, edit := range map[string]func(map[string]any){
		"same members":  func(doc map[string]any) { doc["schema"] = "toolgate.bundle/v3" },
		"new structure": func(doc map[string]any) { doc["schema"] = "toolgate.bundle/v3"; doc["tools"] = map[string]any{"x": 1} },
	} {
		t.Run(name, func(t *testing.T) {
			payload := editPayload(t, fixturePayload(t), edit)
			_, _, err := Verify(handSign(t, header(k), payload, k.Private), keySet(k), VerifyOptions{Now: issued.Add(time.Hour)})
			if !errors.Is(err, ErrUnknownSchema) || errors.Is(err, ErrSchema) {
				t.Fatalf("Verify error = %v, want %v only", err, ErrUnknownSchema)
			}
			for _, s := range []string{`"toolgate.bundle/v3"`, "knows toolgate.bundle/v1, toolgate.bundle/v2"} {
				if !strings.Contains(err.Error(), s) {
					t.Errorf("error %q does not say %s", err, s)
				}
			}
		})
	}
}

// TestMemberNamesMatchExactly: a member that differs from a v1 member only
// in case is a different, unknown member: ignored, never read as the v1
// one (which stays as signed).
func TestMemberNamesMatchExactly(t *testing.T) {
	k := testKey(t, 1)
	plain := fixturePayload(t)
	payload := editPayload(t, plain, func(doc map[string]any) {
		doc["Version"] = json.Number("99")
		obj(obj(arr(doc["tools"])[0])["policy"])["Exposed"] = false
	})
	got, _, err := Verify(handSign(t, header(k), payload, k.Private), keySet(k), VerifyOptions{Now: issued.Add(time.Hour)})
	if err != nil {
		t.Fatal(err)
	}
	if got.Version != 42 || !got.Tools[0].Policy.Exposed {
		t.Errorf("a member in another case was read: version %d, exposed %v", got.Version, got.Tools[0].Policy.Exposed)
	}
}

// FuzzReadPayload: whatever the payload, reading it does not panic, and a
// payload it accepts is its own RFC 8785 form, extras included (one
// signature, one byte string).
func FuzzReadPayload(f *testing.F) {
	plain, err := Canonical(mustBuild(f, smallInput()))
	if err != nil {
		f.Fatal(err)
	}
	f.Add(plain)
	f.Add(bytes.Replace(plain, []byte(`"version":7}`), []byte(`"version":7,"zz":{"a":[1,"x",null]}}`), 1))
	f.Add(bytes.Replace(plain, []byte(`"policy":{`), []byte(`"policy":{"a_hint":true,`), 1))
	f.Add(bytes.Replace(plain, []byte(SchemaV1), []byte("toolgate.bundle/v3"), 1))
	f.Fuzz(func(t *testing.T, payload []byte) {
		if _, err := readPayload(payload, &Memo{}, nil); err != nil {
			return
		}
		canon, err := appendCanonicalJSON(nil, payload)
		if err != nil || !bytes.Equal(canon, payload) {
			t.Fatalf("accepted a payload that is not canonical (%v):\n%s", err, payload)
		}
	})
}
