package condition

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/google/cel-go/common/types"

	"github.com/toolgate/toolgate/internal/principal"
)

// provider answers CEL's type questions about the struct types made from
// an input schema (and the principal's), and leaves every other type to
// CEL's own registry. Values of these types are plain decoded-JSON maps.
type provider struct {
	*types.Registry
	structs map[string]*node
}

const principalType = "toolgate/principal"

// principalNode is the type of principal: kind, subject and client_id
// strings, groups a list of strings.
func principalNode() *node {
	str := func() *node { return &node{typ: types.StringType, kind: kindString} }
	return &node{typ: types.NewObjectType(principalType), kind: kindStruct, fields: map[string]*node{
		"kind": str(), "subject": str(), "client_id": str(),
		"groups": listOf(str()),
	}}
}

// principalValue is p as the map principal's fields are read from.
func principalValue(p principal.Principal) map[string]any {
	groups := p.Groups
	if groups == nil {
		groups = []string{}
	}
	return map[string]any{"kind": string(p.Kind), "subject": p.Subject, "client_id": p.ClientID, "groups": groups}
}

// FindStructType implements types.Provider.
func (p *provider) FindStructType(name string) (*types.Type, bool) {
	if _, ok := p.structs[name]; ok {
		return types.NewTypeTypeWithParam(types.NewObjectType(name)), true
	}
	return p.Registry.FindStructType(name)
}

// FindStructFieldNames implements types.Provider.
func (p *provider) FindStructFieldNames(name string) ([]string, bool) {
	if n, ok := p.structs[name]; ok {
		return slices.Sorted(maps.Keys(n.fields)), true
	}
	return p.Registry.FindStructFieldNames(name)
}

// FindStructFieldType implements types.Provider: a declared property,
// present when the arguments hold it, its JSON value converted to the
// property's CEL type when read.
func (p *provider) FindStructFieldType(structType, field string) (*types.FieldType, bool) {
	n, ok := p.structs[structType]
	if !ok {
		return p.Registry.FindStructFieldType(structType, field)
	}
	f, ok := n.fields[field]
	if !ok {
		return nil, false
	}
	where := strings.ReplaceAll(strings.TrimPrefix(structType, "toolgate/"), "/", ".") + "." + field
	return &types.FieldType{
		Type: f.typ,
		IsSet: func(target any) bool {
			m, ok := target.(map[string]any)
			_, set := m[field]
			return ok && set
		},
		GetFrom: func(target any) (any, error) {
			m, ok := target.(map[string]any)
			if !ok {
				return nil, fmt.Errorf("%s: the value holding it is not an object", where)
			}
			v, set := m[field]
			if !set {
				return nil, fmt.Errorf("%s is not set (test it first: has(%s) && …)", where, where)
			}
			c, err := convert(v, f)
			if err != nil {
				return nil, fmt.Errorf("%s: %w", where, err)
			}
			return c, nil
		},
	}, true
}
