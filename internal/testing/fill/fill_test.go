package fill

import (
	"encoding/json"
	"reflect"
	"testing"
)

type inner struct {
	N   int
	Raw json.RawMessage
}

type sample struct {
	B   bool
	I   int64
	F   float64
	S   string
	L   []int
	M   map[string][]string
	P   *inner
	In  inner
	U   uint8
	Tag []string
}

// TestVariantsDifferInEveryLeaf: the property the guards rely on.
func TestVariantsDifferInEveryLeaf(t *testing.T) {
	var a, b sample
	Value(reflect.ValueOf(&a).Elem(), 1)
	Value(reflect.ValueOf(&b).Elem(), 2)
	va, vb := reflect.ValueOf(a), reflect.ValueOf(b)
	for i := range va.NumField() {
		if reflect.DeepEqual(va.Field(i).Interface(), vb.Field(i).Interface()) {
			t.Errorf("field %s is the same in both variants", va.Type().Field(i).Name)
		}
		if va.Field(i).IsZero() {
			t.Errorf("field %s is left zero", va.Type().Field(i).Name)
		}
	}
	if !json.Valid(a.P.Raw) {
		t.Errorf("RawMessage %q is not JSON", a.P.Raw)
	}
}
