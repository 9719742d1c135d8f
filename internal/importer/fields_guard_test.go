package importer

import (
	"fmt"
	"reflect"
	"testing"

	"github.com/toolgate/toolgate/internal/openapi"
	"github.com/toolgate/toolgate/internal/risk"
)

// operationFields says, for every field of openapi.Operation, whether a
// re-import's field diff compares it or why it does not. A field added to
// Operation fails TestDiffFieldsCoverOperation until it is listed here, so
// nothing an agent depends on changes without a line on the diff page.
var operationFields = map[string]string{
	"Method":      FieldMethod,
	"PathKey":     FieldPath,
	"Parameters":  FieldParameters,
	"RequestBody": FieldParameters,
	"Security":    FieldSecurity,

	"Tool":                 "-identity: the tool a re-import matches, never a change of it",
	"OperationID":          "-identity: matching key beside method and path",
	"OperationIDDerived":   "-follows OperationID",
	"Path":                 "-PathKey carries the path and its #fragment",
	"Summary":              "-text the agent reads: the definition digest's diff (R13)",
	"Description":          "-text the agent reads: the definition digest's diff (R13)",
	"InputSchema":          "-what the agent sends: the definition digest's diff (R13)",
	"Servers":              "-the origin: the definition digest's diff (R13)",
	"Tags":                 "-risk input: shows as the risk class row",
	"Deprecated":           "-risk input: shows as the risk class row",
	"Extensions":           "-risk input: shows as the risk class row",
	"IdempotencyKeyHeader": "-a suggestion for the policy editor, not enforcement",
	"ResponseFields":       "-risk input: shows as the risk class row",
	"RequestFields":        "-risk input: shows as the risk class row",
	"RequestEnums":         "-risk input: shows as the risk class row",
	"SchemaGaps":           "-follows InputSchema; flagged on the tool page and acknowledged there",
}

// fillOp sets every field under v to a value that depends on variant.
func fillOp(v reflect.Value, variant int) {
	switch v.Kind() {
	case reflect.Bool:
		v.SetBool(variant%2 == 1)
	case reflect.Int, reflect.Int64:
		v.SetInt(int64(variant))
	case reflect.String:
		v.SetString(fmt.Sprintf("v%d", variant))
	case reflect.Slice:
		if v.Type().Elem().Kind() == reflect.Uint8 { // JSON
			v.SetBytes(fmt.Appendf(nil, `{"type":"t%d"}`, variant))
			return
		}
		s := reflect.MakeSlice(v.Type(), 1, 1)
		fillOp(s.Index(0), variant)
		v.Set(s)
	case reflect.Map:
		m := reflect.MakeMap(v.Type())
		k, e := reflect.New(v.Type().Key()).Elem(), reflect.New(v.Type().Elem()).Elem()
		fillOp(k, variant)
		fillOp(e, variant)
		m.SetMapIndex(k, e)
		v.Set(m)
	case reflect.Pointer:
		p := reflect.New(v.Type().Elem())
		fillOp(p.Elem(), variant)
		v.Set(p)
	case reflect.Struct:
		for i := range v.NumField() {
			fillOp(v.Field(i), variant)
		}
	default:
		panic("fillOp does not know " + v.Kind().String())
	}
}

func TestDiffFieldsCoverOperation(t *testing.T) {
	ot := reflect.TypeFor[openapi.Operation]()
	seen := map[string]bool{}
	for i := range ot.NumField() {
		f := ot.Field(i)
		seen[f.Name] = true
		listed, ok := operationFields[f.Name]
		if !ok {
			t.Errorf("openapi.Operation.%s is not in operationFields: compare it in diffFields or say why not", f.Name)
			continue
		}
		if listed[0] == '-' {
			continue
		}
		t.Run(f.Name, func(t *testing.T) {
			var before openapi.Operation
			fillOp(reflect.ValueOf(&before).Elem(), 1)
			after := before
			fillOp(reflect.ValueOf(&after).Elem().Field(i), 2)
			s := &Stored{Op: before, DetectedClass: risk.Write}
			changes := diffFields(s, &after, risk.Assessment{Class: risk.Write})
			if len(changes) != 1 || changes[0].Field != listed {
				t.Errorf("changing only %s gives %+v, want one %q change", f.Name, changes, listed)
			}
		})
	}
	for name := range operationFields {
		if !seen[name] {
			t.Errorf("operationFields lists %s, which openapi.Operation no longer has", name)
		}
	}
}
