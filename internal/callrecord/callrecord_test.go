package callrecord

import (
	"encoding/json"
	"strings"
	"testing"
	"time"
)

// The arguments digest is of the canonical JSON: key order and number
// spelling do not change it, values do.
func TestArgumentsDigestCanonical(t *testing.T) {
	var a, b map[string]any
	if err := json.Unmarshal([]byte(`{"b": 1.0, "a": {"y": "é", "x": [1, 2]}}`), &a); err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal([]byte(`{"a": {"x": [1, 2], "y": "\u00e9"}, "b": 1}`), &b); err != nil {
		t.Fatal(err)
	}
	da, _ := ArgumentsDigest(a)
	db, _ := ArgumentsDigest(b)
	other, _ := ArgumentsDigest(map[string]any{"b": 2})
	empty, _ := ArgumentsDigest(nil)
	braces, _ := ArgumentsDigest(map[string]any{})
	if da != db || da == other || empty != braces || !digest.MatchString(da) {
		t.Fatalf("digests %s %s %s %s %s", da, db, other, empty, braces)
	}
}

// Each refusal class has its decision; every other class is allowed. A
// refusal by groups reads TOOL_NOT_EXPOSED to the agent, so that class
// goes with DeniedGroup too, and no other does.
func TestDecisionOf(t *testing.T) {
	for class, want := range map[string]string{"OK": Allowed, "REJECTED": Allowed, "INVALID_ARGUMENTS": Allowed,
		"TOOL_NOT_EXPOSED": DeniedExposure, "POLICY_DENIED": DeniedCondition, "APPROVAL_PENDING": AwaitingDecision} {
		if got := DecisionOf(class); got != want {
			t.Errorf("DecisionOf(%s) = %s, want %s", class, got, want)
		}
		if !GoesWith(want, class) || GoesWith(DeniedGroup, class) != (class == "TOOL_NOT_EXPOSED") ||
			GoesWith(DeniedPerCall, class) != (class == "POLICY_DENIED") {
			t.Errorf("GoesWith wrong for class %s", class)
		}
	}
}

// The per-call decisions (R16) are decisions a console accepts, each with
// its class only.
func TestPerCallDecisionsValidate(t *testing.T) {
	now := time.Now()
	d, _ := ArgumentsDigest(nil)
	for _, c := range []struct {
		decision, class string
		ok              bool
	}{
		{AwaitingDecision, "APPROVAL_PENDING", true},
		{DeniedPerCall, "POLICY_DENIED", true},
		{AwaitingDecision, "OK", false},
		{DeniedPerCall, "TOOL_NOT_EXPOSED", false},
		{Allowed, "APPROVAL_PENDING", false},
	} {
		r := Record{ID: NewID(), Tool: "t", ArgumentsDigest: d, Principal: Principal{Kind: "local"}, Decision: c.decision, Class: c.class, At: now}
		if err := r.Validate(now); (err == nil) != c.ok {
			t.Errorf("%s with %s: Validate = %v, want ok %v", c.decision, c.class, err, c.ok)
		}
	}
}

// Validate refuses every field out of its bounds, with the field named.
func TestValidate(t *testing.T) {
	now := time.Now()
	good := func() Record {
		d, _ := ArgumentsDigest(nil)
		return Record{ID: NewID(), Tool: "t", ArgumentsDigest: d, Principal: Principal{Kind: "local"}, Decision: Allowed, Class: ClassOK, At: now}
	}
	if err := good().Validate(now); err != nil {
		t.Fatalf("a good record: %v", err)
	}
	tests := []struct {
		name string
		edit func(*Record)
		says string
	}{
		{"id", func(r *Record) { r.ID = "x" }, "id"},
		{"tool", func(r *Record) { r.Tool = "a b" }, "tool"},
		{"definition digest", func(r *Record) { r.DefinitionDigest = "md5:00" }, "definition_digest"},
		{"kind", func(r *Record) { r.Principal.Kind = "root" }, "principal kind"},
		{"subject", func(r *Record) { r.Principal.Subject = "a\x00b" }, "printable"},
		{"decision", func(r *Record) { r.Decision = "maybe" }, "decision"},
		{"class", func(r *Record) { r.Class = "<b>" }, "class"},
		{"attempts", func(r *Record) { r.Attempts = 9 }, "attempts"},
		{"duration", func(r *Record) { r.DurationMS = -1 }, "duration_ms"},
		{"future", func(r *Record) { r.At = now.Add(time.Hour) }, "no later than now"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := good()
			tt.edit(&r)
			if err := r.Validate(now); err == nil || !strings.Contains(err.Error(), tt.says) {
				t.Fatalf("got %v, want an error about %s", err, tt.says)
			}
		})
	}
}
