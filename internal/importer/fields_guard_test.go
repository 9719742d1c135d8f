package importer

import (
	"reflect"
	"testing"

	"github.com/toolgate/toolgate/internal/testing/fill"

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
			fill.Value(reflect.ValueOf(&before).Elem(), 1)
			after := before
			fill.Value(reflect.ValueOf(&after).Elem().Field(i), 2)
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
