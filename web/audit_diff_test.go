package web

import (
	"reflect"
	"testing"

	"github.com/toolgate/toolgate/views"
)

func TestAuditDiff(t *testing.T) {
	tests := []struct {
		name, before, after string
		want                []views.DiffRowVM
	}{
		{"nested change", `{"exposed":false,"retry":{"attempts":2,"retry_on":[429,503]},"timeout_ms":8000}`,
			`{"exposed":true,"retry":{"attempts":2,"retry_on":[429]},"timeout_ms":8000}`,
			[]views.DiffRowVM{{Field: "exposed", Before: "false", After: "true"},
				{Field: "retry.retry_on", Before: "[429,503]", After: "[429]"}}},
		{"created", ``, `{"email":"a@example.com","roles":["admin"]}`,
			[]views.DiffRowVM{{Field: "email", Before: "—", After: "a@example.com"}, {Field: "roles", Before: "—", After: `["admin"]`}}},
		{"removed field", `{"name":"x","note":"n"}`, `{"name":"x"}`, []views.DiffRowVM{{Field: "note", Before: "n", After: "—"}}},
		{"not an object", `"plain"`, `not json`, []views.DiffRowVM{{Field: "value", Before: "plain", After: "not json"}}},
		{"big numbers stay exact", `{"n":12345678901234567890}`, `{"n":12345678901234567891}`,
			[]views.DiffRowVM{{Field: "n", Before: "12345678901234567890", After: "12345678901234567891"}}},
		{"same", `{"a":1}`, `{"a":1}`, nil},
		{"change request wraps its proposal", `{"exposed":false,"timeout_ms":8000}`,
			`{"request":7,"kind":"expose_risky","after":{"exposed":true,"timeout_ms":8000}}`,
			[]views.DiffRowVM{{Field: "kind", Before: "—", After: "expose_risky"}, {Field: "request", Before: "—", After: "7"},
				{Field: "exposed", Before: "false", After: "true"}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := auditDiff(tt.before, tt.after); !reflect.DeepEqual(got, tt.want) {
				t.Errorf("got %+v\nwant %+v", got, tt.want)
			}
		})
	}
}
