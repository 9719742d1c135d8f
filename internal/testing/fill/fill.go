// Package fill sets every field of a value by reflection, for the tests
// that guard hand-kept field lists (a diff, an equality, an encoder): two
// values filled with different variants differ in every leaf, so changing
// one leaf at a time shows which fields a list forgets. Test support only:
// imported by _test.go files, never by the binary.
package fill

import (
	"fmt"
	"reflect"
)

// Value sets every field under v to a value that depends on variant:
// booleans to variant%2 == 1, numbers and strings from variant, slices
// and maps to one filled element, pointers to a filled value. A []byte
// (json.RawMessage) holds a small JSON object. It panics on kinds the
// guarded types do not use, so a new kind is noticed.
func Value(v reflect.Value, variant int) {
	switch v.Kind() {
	case reflect.Bool:
		v.SetBool(variant%2 == 1)
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		v.SetInt(int64(100 + variant))
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		v.SetUint(uint64(100 + variant))
	case reflect.Float32, reflect.Float64:
		v.SetFloat(1.5 + float64(variant))
	case reflect.String:
		v.SetString(fmt.Sprintf("value-%d", variant))
	case reflect.Slice:
		if v.Type().Elem().Kind() == reflect.Uint8 {
			v.SetBytes(fmt.Appendf(nil, `{"type":"t%d"}`, variant))
			return
		}
		s := reflect.MakeSlice(v.Type(), 1, 1)
		Value(s.Index(0), variant)
		v.Set(s)
	case reflect.Map:
		m := reflect.MakeMap(v.Type())
		k, e := reflect.New(v.Type().Key()).Elem(), reflect.New(v.Type().Elem()).Elem()
		Value(k, variant)
		Value(e, variant)
		m.SetMapIndex(k, e)
		v.Set(m)
	case reflect.Pointer:
		p := reflect.New(v.Type().Elem())
		Value(p.Elem(), variant)
		v.Set(p)
	case reflect.Struct:
		for i := range v.NumField() {
			Value(v.Field(i), variant)
		}
	default:
		panic("fill: no rule for kind " + v.Kind().String())
	}
}
