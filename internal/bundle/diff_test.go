package bundle

import (
	"encoding/json"
	"math/rand/v2"
	"reflect"
	"slices"
	"testing"

	"github.com/toolgate/toolgate/internal/policy"
	"github.com/toolgate/toolgate/internal/risk"
)

func TestDiff(t *testing.T) {
	oldIn := smallInput()
	old := mustBuild(t, oldIn)

	newIn := smallInput()
	newIn.Version = 8
	newIn.Tools[0].Policy.TimeoutMS = 9000                                                                                           // placeOrder: policy change
	newIn.Tools[1].Assessment.Class = risk.Write                                                                                     // getOrder: risk change
	newIn.Tools[1].InputSchema = json.RawMessage(`{"type": "object", "properties": {"id": {"type": "string"}}, "required": ["id"]}`) // same content, other formatting
	newIn.Tools[2].Policy.Exposed = true                                                                                             // deleteUser: added (with its source), approved (R10)
	newIn.Tools[2].Approvals = []Approval{{ChangeRequest: 3, ApprovedBy: "sec", ApprovedAt: issued, Summary: "expose"}}
	newIn.Sources[0].Origin = "https://shop2.example.com" // shop: source change
	next := mustBuild(t, newIn)

	c := Diff(old, next)
	if !slices.Equal(c.ToolsAdded, []string{"deleteUser"}) || len(c.ToolsRemoved) != 0 {
		t.Errorf("added %v removed %v", c.ToolsAdded, c.ToolsRemoved)
	}
	if !slices.Equal(c.SourcesAdded, []string{"admin"}) || !slices.Equal(c.SourcesChanged, []string{"shop"}) {
		t.Errorf("sources added %v changed %v", c.SourcesAdded, c.SourcesChanged)
	}
	if len(c.ToolsChanged) != 2 {
		t.Fatalf("changed %+v, want getOrder and placeOrder", c.ToolsChanged)
	}
	get, place := c.ToolsChanged[0], c.ToolsChanged[1]
	if get.Tool != "getOrder" || get.RiskBefore != "READ" || get.RiskAfter != "WRITE" || !get.RiskChanged() {
		t.Errorf("getOrder change %+v: want risk READ → WRITE", get)
	}
	if slices.Contains(get.Definition, "input_schema") {
		t.Error("reformatted input schema reported as changed")
	}
	if !slices.Contains(get.Definition, "annotations") {
		t.Errorf("getOrder lost readOnlyHint, yet definition changes are %v", get.Definition)
	}
	if place.Tool != "placeOrder" || len(place.Policy) != 1 || place.Policy[0] != (policy.FieldChange{Field: policy.FieldTimeoutMS, Before: "8000", After: "9000"}) {
		t.Errorf("placeOrder change %+v: want timeout_ms 8000 → 9000", place)
	}

	back := Diff(next, old)
	if !slices.Equal(back.ToolsRemoved, []string{"deleteUser"}) || !slices.Equal(back.SourcesRemoved, []string{"admin"}) {
		t.Errorf("reverse diff removed %v / %v", back.ToolsRemoved, back.SourcesRemoved)
	}
	if !Diff(old, old).Empty() {
		t.Error("a bundle differs from itself")
	}
	if first := Diff(nil, old); len(first.ToolsAdded) != 2 || len(first.SourcesAdded) != 1 {
		t.Errorf("first publish: %+v", first)
	}
}

// TestDiffSeesEveryToolField changes one Tool field at a time, by
// reflection, to a random different value: Diff must report the tool as
// changed, so a field added to Tool cannot be left out of diffTool.
func TestDiffSeesEveryToolField(t *testing.T) {
	rnd := rand.New(rand.NewPCG(7, 13))
	tt := reflect.TypeFor[Tool]()
	for i := range tt.NumField() {
		name := tt.Field(i).Name
		if name == "Name" {
			continue // the identity Diff matches tools by
		}
		t.Run(name, func(t *testing.T) {
			for try := 0; ; try++ {
				var o, n Tool
				f := randomFiller{rnd: rnd, validUTF8: true}
				f.fillValue(reflect.ValueOf(&o).Elem(), 0)
				n = o
				f.fillValue(reflect.ValueOf(&n).Elem().Field(i), 1)
				if jsonEqual(reflect.ValueOf(o).Field(i).Interface(), reflect.ValueOf(n).Field(i).Interface()) {
					if try > 50 {
						t.Fatal("could not draw a different value")
					}
					continue
				}
				if _, changed := diffTool(o, n); !changed {
					t.Fatalf("a different %s is not a change", name)
				}
				return
			}
		})
	}
}
