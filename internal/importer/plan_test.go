package importer

import (
	"reflect"
	"regexp"
	"strings"
	"testing"

	"github.com/toolgate/toolgate/internal/openapi"
	"github.com/toolgate/toolgate/internal/risk"
)

// op builds an operation the way the importer would hand it over.
func op(method, pathKey, id string, params ...openapi.Parameter) openapi.Operation {
	return openapi.Operation{Tool: id, Method: method, Path: pathKey, PathKey: pathKey, OperationID: id, Parameters: params}
}

func doc(ops ...openapi.Operation) *openapi.Document { return &openapi.Document{Operations: ops} }

// stored turns a document's operations into stored tools, as a first import
// would leave them (nothing exposed unless listed).
func stored(t *testing.T, d *openapi.Document, exposed ...string) []Stored {
	t.Helper()
	var out []Stored
	for _, c := range Build("src", d, nil, func(string) bool { return false }).Changes {
		out = append(out, Stored{Name: c.Tool, OpKey: c.OpKey, Op: *c.Op, DetectedClass: c.Class, Class: c.Class,
			Exposed: contains(exposed, c.Tool)})
	}
	return out
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

func none(string) bool { return false }

// toolNamePattern is the tool-name rule of DESIGN.md's vocabulary, which
// every name Name picks must follow.
var toolNamePattern = regexp.MustCompile(`^[a-zA-Z0-9_-]{1,64}$`)

func kinds(p *Plan) map[string]Kind {
	out := map[string]Kind{}
	for _, c := range p.Changes {
		out[c.Tool] = c.Kind
	}
	return out
}

func change(t *testing.T, p *Plan, tool string) Change {
	t.Helper()
	for _, c := range p.Changes {
		if c.Tool == tool {
			return c
		}
	}
	t.Fatalf("no change for %s in %+v", tool, kinds(p))
	return Change{}
}

var (
	listPets  = op("GET", "/pets", "listPets")
	createPet = op("POST", "/pets", "createPet")
	getPet    = op("GET", "/pets/{id}", "getPet", openapi.Parameter{Name: "id", In: "path", Required: true})
	dropPet   = op("DELETE", "/pets/{id}", "deletePet", openapi.Parameter{Name: "id", In: "path", Required: true})
)

func TestBuildFirstImport(t *testing.T) {
	p := Build("src", doc(dropPet, listPets, createPet), nil, none)
	want := map[string]Kind{"listPets": Added, "createPet": Added, "deletePet": Added}
	if got := kinds(p); !reflect.DeepEqual(got, want) {
		t.Fatalf("kinds %v, want %v", got, want)
	}
	for tool, class := range map[string]risk.Class{"listPets": risk.Read, "createPet": risk.Write, "deletePet": risk.Destructive} {
		if c := change(t, p, tool); c.Class != class || c.Assessment.Class != class {
			t.Errorf("%s: class %v, want %v", tool, c.Class, class)
		}
	}
	if p.Empty() {
		t.Error("a first import is not empty")
	}
}

func TestBuildReimport(t *testing.T) {
	base := doc(listPets, createPet, getPet, dropPet)
	t.Run("same document changes nothing", func(t *testing.T) {
		p := Build("src", base, stored(t, base, "listPets"), none)
		if !p.Empty() || p.Count(Unchanged) != 4 {
			t.Fatalf("kinds %v", kinds(p))
		}
		if len(p.Suspended()) != 0 {
			t.Error("unchanged tools suspended")
		}
	})
	t.Run("removed operation is kept and unexposed", func(t *testing.T) {
		p := Build("src", doc(createPet, getPet, dropPet), stored(t, base, "listPets"), none)
		c := change(t, p, "listPets")
		if c.Kind != Removed || c.Suspend == "" {
			t.Fatalf("listPets: %+v", c)
		}
	})
	t.Run("an already removed tool stays silent, and comes back restored", func(t *testing.T) {
		st := stored(t, base)
		for i := range st {
			st[i].Removed = st[i].Name == "listPets"
		}
		if p := Build("src", doc(createPet, getPet, dropPet), st, none); !p.Empty() {
			t.Errorf("removed again: %v", kinds(p))
		}
		if c := change(t, Build("src", base, st, none), "listPets"); c.Kind != Restored {
			t.Errorf("back in the document: %v", c.Kind)
		}
	})
	t.Run("changed parameters", func(t *testing.T) {
		moved := getPet
		moved.Parameters = append([]openapi.Parameter{}, getPet.Parameters...)
		moved.Parameters = append(moved.Parameters, openapi.Parameter{Name: "fields", In: "query"})
		p := Build("src", doc(listPets, createPet, moved, dropPet), stored(t, base, "getPet"), none)
		c := change(t, p, "getPet")
		if c.Kind != Changed || len(c.Fields) != 1 || c.Fields[0].Field != FieldParameters || c.Suspend != "" {
			t.Fatalf("getPet: %+v", c)
		}
		if c.Fields[0].After != "path:id* query:fields" {
			t.Errorf("parameters after %q", c.Fields[0].After)
		}
	})
	t.Run("raised class suspends an exposed tool only", func(t *testing.T) {
		risky := createPet
		risky.Summary = "Purge every pet"
		p := Build("src", doc(listPets, risky, getPet, dropPet), stored(t, base, "createPet"), none)
		c := change(t, p, "createPet")
		if c.Kind != Changed || c.Class != risk.Destructive || !strings.Contains(c.Suspend, "WRITE to DESTRUCTIVE") {
			t.Fatalf("createPet: %+v", c)
		}
		if c := change(t, Build("src", doc(listPets, risky, getPet, dropPet), stored(t, base), none), "createPet"); c.Suspend != "" {
			t.Errorf("unexposed tool suspended: %q", c.Suspend)
		}
	})
	t.Run("moved operation keeps its name and is suspended", func(t *testing.T) {
		moved := op("GET", "/animals", "listPets")
		p := Build("src", doc(moved, createPet, getPet, dropPet), stored(t, base, "listPets"), none)
		c := change(t, p, "listPets")
		if c.Kind != Changed || c.OpKey != "GET /animals" || !strings.Contains(c.Suspend, "moved") {
			t.Fatalf("listPets: %+v", c)
		}
		if p.Count(Added) != 0 || p.Count(Removed) != 0 {
			t.Errorf("a move is not add+remove: %v", kinds(p))
		}
	})
}

func TestClassInForce(t *testing.T) {
	tests := []struct {
		name                       string
		detected, class, detected2 risk.Class
		overridden                 bool
		want                       risk.Class
		keep                       bool
	}{
		{"same verdict keeps a raise", risk.Read, risk.Privileged, risk.Read, true, risk.Privileged, true},
		{"new verdict below a raise keeps it as a floor", risk.Read, risk.Destructive, risk.Write, true, risk.Destructive, true},
		{"new verdict above a raise wins", risk.Read, risk.Write, risk.Privileged, true, risk.Privileged, false},
		{"a lowering is void once the verdict changes", risk.Destructive, risk.Write, risk.Privileged, true, risk.Privileged, false},
		{"no override follows the engine", risk.Write, risk.Write, risk.Read, false, risk.Read, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, keep := classInForce(&Stored{DetectedClass: tt.detected, Class: tt.class, Overridden: tt.overridden}, tt.detected2)
			if got != tt.want || keep != tt.keep {
				t.Errorf("got %v/%v, want %v/%v", got, keep, tt.want, tt.keep)
			}
		})
	}
}

func TestBuildIsIndependentOfDocumentOrder(t *testing.T) {
	a := Build("src", doc(listPets, createPet, getPet, dropPet), nil, none)
	b := Build("src", doc(dropPet, getPet, createPet, listPets), nil, none)
	if !reflect.DeepEqual(kinds(a), kinds(b)) || len(a.Changes) != len(b.Changes) {
		t.Fatal("plans differ")
	}
	for i := range a.Changes {
		if a.Changes[i].Tool != b.Changes[i].Tool || a.Changes[i].OpKey != b.Changes[i].OpKey {
			t.Errorf("change %d: %s/%s vs %s/%s", i, a.Changes[i].Tool, a.Changes[i].OpKey, b.Changes[i].Tool, b.Changes[i].OpKey)
		}
	}
}

func TestName(t *testing.T) {
	long := strings.Repeat("x", 64)
	tests := []struct {
		name, source, candidate string
		taken                   []string
		want                    string
	}{
		{"free", "pets", "listPets", nil, "listPets"},
		{"prefixed", "pets", "listPets", []string{"listPets"}, "pets_listPets"},
		{"hashed", "pets", "listPets", []string{"listPets", "pets_listPets"}, "pets_listPets_" + hash8("pets\x00GET /pets")},
		{"long prefixed stays within 64", "a-very-long-source-name-of-forty-chars-x", long, []string{long}, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			taken := func(n string) bool { return contains(tt.taken, n) }
			got := Name(tt.source, tt.candidate, "GET /pets", taken)
			if !toolNamePattern.MatchString(got) || taken(got) {
				t.Fatalf("name %q is invalid or taken", got)
			}
			if tt.want != "" && got != tt.want {
				t.Errorf("got %q, want %q", got, tt.want)
			}
			if again := Name(tt.source, tt.candidate, "GET /pets", taken); again != got {
				t.Errorf("not deterministic: %q then %q", got, again)
			}
		})
	}
}

func TestBuildNamesAcrossSources(t *testing.T) {
	other := map[string]bool{"listPets": true}
	p := Build("zoo", doc(listPets, createPet), nil, func(n string) bool { return other[n] })
	if got := kinds(p); got["zoo_listPets"] != Added || got["createPet"] != Added {
		t.Fatalf("names %v", got)
	}
}
