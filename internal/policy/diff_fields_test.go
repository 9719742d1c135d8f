package policy

import (
	"bytes"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/toolgate/toolgate/internal/testing/fill"
)

var updateGolden = flag.Bool("update", false, "rewrite testdata/*.golden.json from the current types")

// leaf is one settable field of Policy, reached through nested structs
// and pointers: its path of field indexes and its dotted Go name.
type leaf struct {
	index []int
	name  string
}

// policyLeaves lists every leaf field of t, recursing into structs and the
// structs that pointers point to. A pointer is a leaf of its own as well
// (nil against set).
func policyLeaves(t reflect.Type, index []int, prefix string) []leaf {
	var out []leaf
	for i := range t.NumField() {
		f := t.Field(i)
		idx := append(append([]int{}, index...), i)
		name := prefix + f.Name
		ft := f.Type
		switch {
		case ft.Kind() == reflect.Struct:
			out = append(out, policyLeaves(ft, idx, name+".")...)
		case ft.Kind() == reflect.Pointer && ft.Elem().Kind() == reflect.Struct:
			out = append(out, leaf{idx, name})
			out = append(out, policyLeaves(ft.Elem(), idx, name+".")...)
		default:
			out = append(out, leaf{idx, name})
		}
	}
	return out
}

// fieldByPath walks index from v, allocating nil pointers on the way.
func fieldByPath(v reflect.Value, index []int) reflect.Value {
	for _, i := range index {
		if v.Kind() == reflect.Pointer {
			if v.IsNil() {
				v.Set(reflect.New(v.Type().Elem()))
			}
			v = v.Elem()
		}
		v = v.Field(i)
	}
	return v
}

func clonePolicy(t *testing.T, p Policy) Policy {
	t.Helper()
	b, err := json.Marshal(p)
	if err != nil {
		t.Fatal(err)
	}
	var out Policy
	if err := json.Unmarshal(b, &out); err != nil {
		t.Fatal(err)
	}
	return out
}

// TestDiffCoversEveryField is the guard of the hand-kept list in Diff:
// whether an approval is stale (R10) and whether a change needs one are
// decided by Diff being empty, so a Policy field Diff does not compare
// would let a changed policy ride on an old approval. Each leaf is changed
// alone, by reflection; adding a field fails here until Diff lists it.
func TestDiffCoversEveryField(t *testing.T) {
	var base Policy
	fill.Value(reflect.ValueOf(&base).Elem(), 1)
	leaves := policyLeaves(reflect.TypeFor[Policy](), nil, "")
	if len(leaves) < 16 {
		t.Fatalf("found %d leaves, fewer than Policy has today: the walk is broken", len(leaves))
	}
	for _, l := range leaves {
		t.Run(l.name, func(t *testing.T) {
			after := clonePolicy(t, base)
			f := fieldByPath(reflect.ValueOf(&after).Elem(), l.index)
			if f.Kind() == reflect.Pointer {
				f.Set(reflect.Zero(f.Type())) // set against nil
			} else {
				fill.Value(f, 2)
			}
			if reflect.DeepEqual(base, after) {
				t.Fatalf("the test did not change %s", l.name)
			}
			if len(Diff(base, after)) == 0 || Equal(base, after) {
				t.Errorf("Diff does not see a change of %s: add it to Diff (and a Field constant)", l.name)
			}
		})
	}
}

// TestPolicyStoredJSON pins the JSON of Policy as the store writes it
// (tools, change requests' before/after, the audit log): rows written
// years ago must still read. Renaming or dropping a JSON key fails here;
// adding one means regenerating the golden with -update and checking that
// old rows (without the key) still mean what they meant.
func TestPolicyStoredJSON(t *testing.T) {
	var p Policy
	fill.Value(reflect.ValueOf(&p).Elem(), 1)
	got, err := json.MarshalIndent(p, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	golden := filepath.Join("testdata", "policy_stored.golden.json")
	if *updateGolden {
		if err := os.WriteFile(golden, append(got, '\n'), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatalf("reading the golden (run with -update to create it): %v", err)
	}
	if !bytes.Equal(bytes.TrimSpace(got), bytes.TrimSpace(want)) {
		t.Errorf("stored JSON of Policy changed:\n got %s\nwant %s", got, want)
	}
	// The golden decodes, strictly, into the same policy.
	dec := json.NewDecoder(strings.NewReader(string(want)))
	dec.DisallowUnknownFields()
	var back Policy
	if err := dec.Decode(&back); err != nil {
		t.Fatalf("golden no longer decodes into Policy: %v", err)
	}
	if !reflect.DeepEqual(back, p) {
		t.Errorf("golden decodes to %+v, want %+v", back, p)
	}
}
