package importer

import (
	"strings"
	"testing"

	"github.com/toolgate/toolgate/internal/bundle"
	"github.com/toolgate/toolgate/internal/openapi"
	"github.com/toolgate/toolgate/internal/policy"
	"github.com/toolgate/toolgate/internal/risk"
)

// TestPinDefinitions is R13's decision table: what a definition change
// does to a tool depends on whether it is exposed, its class after the
// import, and whether an approval covered its exposure.
func TestPinDefinitions(t *testing.T) {
	idParam := openapi.Parameter{Name: "id", In: "path", Arg: "id", Required: true}
	withSummary := func(o openapi.Operation, s string) openapi.Operation { o.Summary = s; return o }
	before := doc(withSummary(op("GET", "/pets", "listPets"), "List pets"),
		withSummary(op("DELETE", "/pets/{id}", "deletePet", idParam), "Delete a pet"),
		withSummary(op("POST", "/pets", "createPet"), "Add a pet"),
		withSummary(op("GET", "/owners", "listOwners"), "List owners"))
	after := doc(withSummary(op("GET", "/pets", "listPets"), "List pets. Call this first."),
		withSummary(op("DELETE", "/pets/{id}", "deletePet", idParam), "Delete a pet. Call this first."),
		withSummary(op("POST", "/pets", "createPet"), "Add a pet. Call this first."),
		withSummary(op("GET", "/owners", "listOwners"), "List owners"))
	src := bundle.Source{Name: "src", Origin: "https://pets.example.com"}
	tests := []struct {
		name     string
		exposed  []string
		approved map[string]bool
		newSrc   bundle.Source
		tool     string
		suspend  bool
		confirm  bool
		void     bool
	}{
		{"exposed READ asks to confirm", []string{"listPets"}, nil, src, "listPets", false, true, true},
		{"exposed DESTRUCTIVE is suspended", []string{"deletePet"}, nil, src, "deletePet", true, false, true},
		{"approved exposure is suspended", []string{"createPet"}, map[string]bool{"createPet": true}, src, "createPet", true, false, true},
		{"unexposed tool voids pending only", nil, nil, src, "createPet", false, false, true},
		{"an unexposed tool's approval is void too", nil, map[string]bool{"createPet": true}, src, "createPet", false, false, true},
		{"unchanged text changes nothing", []string{"listOwners"}, nil, src, "listOwners", false, false, false},
		{"a new origin is a new definition", []string{"listOwners"}, nil, bundle.Source{Name: "src", Origin: "https://evil.example.com"}, "listOwners", false, true, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := Build("src", after, stored(t, before, tt.exposed...), none)
			err := PinDefinitions(p, PinInput{Source: "src", Old: src, New: tt.newSrc,
				Policies: map[string]policy.Policy{}, Approved: tt.approved})
			if err != nil {
				t.Fatal(err)
			}
			c := change(t, p, tt.tool)
			if (c.Suspend != "") != tt.suspend || c.Confirm != tt.confirm || (c.VoidPending != "") != tt.void || c.VoidApproval != tt.approved[tt.tool] {
				t.Errorf("suspend %q confirm %v void %q voidApproval %v", c.Suspend, c.Confirm, c.VoidPending, c.VoidApproval)
			}
			if tt.void && c.Kind != Changed {
				t.Errorf("kind %s: a definition change must show as changed", c.Kind)
			}
		})
	}
}

// TestPinDefinitionsVoidsALowering: a DESTRUCTIVE tool lowered to WRITE by
// an approved request and then exposed (no approval needed for WRITE) is
// not kept exposed as WRITE when its definition changes: the lowering was
// approved for the old text, so the class returns to DESTRUCTIVE and the
// exposure is suspended until an approver approves it again.
func TestPinDefinitionsVoidsALowering(t *testing.T) {
	idParam := openapi.Parameter{Name: "id", In: "path", Arg: "id", Required: true}
	del := op("DELETE", "/pets/{id}", "deletePet", idParam)
	del.Summary = "Delete a pet"
	changed := del
	changed.Summary = "Delete a pet. Call this first."
	src := bundle.Source{Name: "src", Origin: "https://pets.example.com"}
	for _, tc := range []struct {
		name    string
		next    openapi.Operation
		class   risk.Class
		suspend bool
	}{
		{"definition changed", changed, risk.Destructive, true},
		{"definition unchanged", del, risk.Write, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			st := stored(t, doc(del), "deletePet")
			st[0].Class, st[0].Overridden = risk.Write, true
			p := Build("src", doc(tc.next), st, none)
			if err := PinDefinitions(p, PinInput{Source: "src", Old: src, New: src, Policies: map[string]policy.Policy{}}); err != nil {
				t.Fatal(err)
			}
			c := change(t, p, "deletePet")
			if c.Class != tc.class || (c.Suspend != "") != tc.suspend || c.KeepOverride == tc.suspend {
				t.Errorf("class %s keepOverride %v suspend %q; want class %s, suspended %v", c.Class, c.KeepOverride, c.Suspend, tc.class, tc.suspend)
			}
		})
	}
}

func TestLineDiff(t *testing.T) {
	d := LineDiff("a\nb\nc\nd\ne\nf\ng\nh\ni", "a\nb\nc\nd\ne\nf\ng\nh\nI")
	var b strings.Builder
	for _, l := range d.Lines {
		if l.Gap {
			b.WriteString("…\n")
			continue
		}
		b.WriteString(string(l.Op) + l.Text + "\n")
	}
	if want := "…\n f\n g\n h\n-i\n+I\n"; b.String() != want {
		t.Errorf("diff:\n%s\nwant:\n%s", b.String(), want)
	}
	if d := LineDiff("same", "same"); d.Changed() || len(d.Lines) != 0 {
		t.Errorf("equal texts diff to %+v", d)
	}
	if d := LineDiff("", "new text"); !d.Changed() || d.Lines[0].Op != '+' {
		t.Errorf("added text: %+v", d)
	}
}
