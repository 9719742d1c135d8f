package condition

import (
	"encoding/json"
	"fmt"
	"maps"
	"math"
	"slices"
	"strconv"

	"github.com/google/cel-go/common/types"
)

// maxSchemaDepth bounds how deep object and array schemas become CEL
// types; anything deeper is dyn.
const maxSchemaDepth = 8

// node is the CEL type of one position of the arguments, made from the
// tool's input schema, with what is needed to bring a JSON value to it.
type node struct {
	typ    *types.Type
	kind   kind
	fields map[string]*node // struct: declared properties
	elem   *node            // list or map: the element
}

type kind int

const (
	kindDyn kind = iota
	kindString
	kindInt
	kindDouble
	kindBool
	kindList
	kindMap
	kindStruct
)

// schemaDoc is the part of a JSON Schema the CEL types are made from.
type schemaDoc struct {
	Type       json.RawMessage       `json:"type"`
	Properties map[string]*schemaDoc `json:"properties"`
	Items      *schemaDoc            `json:"items"`
	Ref        string                `json:"$ref"`
}

// typeName is the name of a struct type made from a schema object. It
// holds a '/', which no CEL identifier can, so a name in an expression
// never resolves to one of these types.
func typeName(path string) string { return "toolgate/" + path }

// argsNode makes the CEL type of args from a tool's input schema. A schema
// that is missing, not an object or has no properties gives a map of
// dyn. Structs are registered in types.
func argsNode(schema json.RawMessage, structs map[string]*node) (*node, error) {
	if len(schema) == 0 {
		return mapOf(dynNode()), nil
	}
	var doc schemaDoc
	if err := json.Unmarshal(schema, &doc); err != nil {
		return nil, fmt.Errorf("the input schema is not a JSON object: %w", err)
	}
	n := fromSchema(&doc, "args", 0, structs)
	if n.kind != kindStruct && n.kind != kindMap {
		return mapOf(dynNode()), nil
	}
	return n, nil
}

func dynNode() *node { return &node{typ: types.DynType, kind: kindDyn} }
func mapOf(elem *node) *node {
	return &node{typ: types.NewMapType(types.StringType, elem.typ), kind: kindMap, elem: elem}
}
func listOf(elem *node) *node {
	return &node{typ: types.NewListType(elem.typ), kind: kindList, elem: elem}
}

// fromSchema is the CEL type of one schema: its single JSON type, or dyn
// for a union, a $ref, or no type at all.
func fromSchema(d *schemaDoc, path string, depth int, structs map[string]*node) *node {
	if d == nil || d.Ref != "" || depth > maxSchemaDepth {
		return dynNode()
	}
	var t string
	if json.Unmarshal(d.Type, &t) != nil && len(d.Properties) > 0 {
		t = "object"
	}
	switch t {
	case "string":
		return &node{typ: types.StringType, kind: kindString}
	case "integer":
		return &node{typ: types.IntType, kind: kindInt}
	case "number":
		return &node{typ: types.DoubleType, kind: kindDouble}
	case "boolean":
		return &node{typ: types.BoolType, kind: kindBool}
	case "array":
		return listOf(fromSchema(d.Items, path+"[]", depth+1, structs))
	case "object":
		return objectNode(d, path, depth, structs)
	}
	return dynNode()
}

// objectNode is a struct type when every property name can be written as
// a CEL field (args.amount); otherwise a map of dyn, read as
// args["X-Request-Id"].
func objectNode(d *schemaDoc, path string, depth int, structs map[string]*node) *node {
	if len(d.Properties) == 0 {
		return mapOf(dynNode())
	}
	for name := range d.Properties {
		if !isIdent(name) {
			return mapOf(dynNode())
		}
	}
	n := &node{typ: types.NewObjectType(typeName(path)), kind: kindStruct, fields: map[string]*node{}}
	for _, name := range slices.Sorted(maps.Keys(d.Properties)) {
		n.fields[name] = fromSchema(d.Properties[name], path+"/"+name, depth+1, structs)
	}
	structs[typeName(path)] = n
	return n
}

// reserved are CEL's reserved words, which cannot follow a dot.
var reserved = map[string]bool{"true": true, "false": true, "null": true, "in": true, "as": true,
	"break": true, "const": true, "continue": true, "else": true, "for": true, "function": true,
	"if": true, "import": true, "let": true, "loop": true, "package": true, "namespace": true,
	"return": true, "var": true, "void": true, "while": true}

func isIdent(s string) bool {
	if s == "" || reserved[s] {
		return false
	}
	for i, c := range s {
		letter := c == '_' || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z')
		if !letter && (i == 0 || c < '0' || c > '9') {
			return false
		}
	}
	return true
}

// convert brings a decoded JSON value (json.Number or float64 numbers) to
// the native value CEL expects for n: int64 for an integer, float64 for a
// number and inside dyn. Structs are left as maps: their fields convert
// when read (fieldType).
func convert(v any, n *node) (any, error) {
	switch n.kind {
	case kindInt:
		return toInt(v)
	case kindDouble:
		return toDouble(v)
	case kindList:
		items, ok := v.([]any)
		if !ok {
			return v, nil
		}
		out := make([]any, len(items))
		for i, it := range items {
			c, err := convert(it, n.elem)
			if err != nil {
				return nil, fmt.Errorf("item %d: %w", i, err)
			}
			out[i] = c
		}
		return out, nil
	case kindMap, kindDyn:
		return convertDyn(v), nil
	}
	return v, nil
}

// convertDyn turns every json.Number inside v into a float64.
func convertDyn(v any) any {
	switch x := v.(type) {
	case json.Number:
		f, _ := x.Float64()
		return f
	case []any:
		out := make([]any, len(x))
		for i, it := range x {
			out[i] = convertDyn(it)
		}
		return out
	case map[string]any:
		out := make(map[string]any, len(x))
		for k, it := range x {
			out[k] = convertDyn(it)
		}
		return out
	}
	return v
}

func toInt(v any) (any, error) {
	switch x := v.(type) {
	case json.Number:
		if i, err := strconv.ParseInt(string(x), 10, 64); err == nil {
			return i, nil
		}
		f, err := x.Float64()
		if err != nil {
			return nil, fmt.Errorf("%s is not an integer", x)
		}
		return toInt(f)
	case float64:
		if x != math.Trunc(x) || math.Abs(x) > 1<<53 {
			return nil, fmt.Errorf("%v is not an integer", x)
		}
		return int64(x), nil
	case int:
		return int64(x), nil
	case int64:
		return x, nil
	}
	return v, nil
}

func toDouble(v any) (any, error) {
	switch x := v.(type) {
	case json.Number:
		f, err := x.Float64()
		if err != nil {
			return nil, fmt.Errorf("%s is not a number", x)
		}
		return f, nil
	case int:
		return float64(x), nil
	case int64:
		return float64(x), nil
	}
	return v, nil
}
