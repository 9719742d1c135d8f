package bundle

import (
	"encoding/json"
	"math"
	"math/rand/v2"
	"reflect"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/toolgate/toolgate/internal/risk"
)

// randomPieces are string fragments that stress RFC 8785 string rules:
// escapes, HTML characters encoding/json escapes, U+2028, characters on both
// sides of the UTF-16/UTF-8 ordering difference, invalid UTF-8.
var randomPieces = []string{
	"a", "Z", "tool_1", " ", "\"", "\\", "/", "<", ">", "&", "\x00", "\x1f", "\x7f", "\b\f\n\r\t",
	"é", "€", "\u2028", "\u2029", "\ufb33", "\uffff", "😀", "\U0010ffff", "\xff", "\xed\xa0\x80",
}

var randomNumbers = []float64{0, 1, 2, 1.5, 0.1, 1e21, 1e20, 1e-7, 1e-6, 3.0000001, 333333333.33333329,
	5e-324, math.MaxFloat64, -2, math.Copysign(0, -1), 9007199254740993}

// randomFiller sets every exported field reachable from a pointer to a
// random value. validUTF8 leaves the invalid-UTF-8 pieces out: encoding
// turns them into U+FFFD, which can reorder tools sorted by name, so a
// bundle holding them does not read back to the same bytes (Validate
// refuses such names anyway).
type randomFiller struct {
	rnd       *rand.Rand
	validUTF8 bool
}

// fillRandom fills ptr with random values, invalid UTF-8 included.
func fillRandom(rnd *rand.Rand, ptr any) {
	f := randomFiller{rnd: rnd}
	f.fillValue(reflect.ValueOf(ptr).Elem(), 0)
}

func (f randomFiller) fillValue(v reflect.Value, depth int) {
	rnd := f.rnd
	switch v.Type() {
	case reflect.TypeFor[time.Time]():
		sec := rnd.Int64N(253402300800) // years 1970..9999
		v.Set(reflect.ValueOf(time.Unix(sec, rnd.Int64N(2e9)).In(time.FixedZone("Z", rnd.IntN(5)*3600))))
		return
	case reflect.TypeFor[json.RawMessage]():
		v.SetBytes([]byte(randomJSON(rnd, 0)))
		return
	case reflect.TypeFor[risk.Class]():
		v.SetInt(int64(risk.Classes[rnd.IntN(len(risk.Classes))]))
		if rnd.IntN(200) == 0 {
			v.SetInt(9) // invalid: both encoders must refuse it
		}
		return
	}
	switch v.Kind() {
	case reflect.Struct:
		for i := range v.NumField() {
			if v.Type().Field(i).IsExported() {
				f.fillValue(v.Field(i), depth+1)
			}
		}
	case reflect.Pointer:
		if rnd.IntN(3) > 0 {
			v.Set(reflect.New(v.Type().Elem()))
			f.fillValue(v.Elem(), depth+1)
		}
	case reflect.Slice:
		switch rnd.IntN(5) {
		case 0: // nil
		case 1:
			v.Set(reflect.MakeSlice(v.Type(), 0, 0))
		default:
			n := 1 + rnd.IntN(3)
			v.Set(reflect.MakeSlice(v.Type(), n, n))
			for i := range n {
				f.fillValue(v.Index(i), depth+1)
			}
		}
	case reflect.String:
		s := randomString(rnd)
		if f.validUTF8 {
			s = strings.ToValidUTF8(s, "?")
		}
		v.SetString(s)
	case reflect.Bool:
		v.SetBool(rnd.IntN(2) == 0)
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		v.SetInt(randomInt(rnd, v.Type().Bits()))
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		v.SetUint(uint64(rnd.IntN(1000)))
	case reflect.Float32, reflect.Float64:
		if rnd.IntN(2) == 0 {
			v.SetFloat(randomNumbers[rnd.IntN(len(randomNumbers))])
		} else {
			v.SetFloat(math.Float64frombits(rnd.Uint64()&^(0x7ff<<52) | uint64(rnd.IntN(0x7fe)+1)<<52))
		}
	default:
		panic("fillValue: no generator for " + v.Type().String())
	}
}

func randomString(rnd *rand.Rand) string {
	var b strings.Builder
	for range rnd.IntN(6) {
		b.WriteString(randomPieces[rnd.IntN(len(randomPieces))])
	}
	return b.String()
}

func randomInt(rnd *rand.Rand, bits int) int64 {
	switch rnd.IntN(4) {
	case 0:
		return int64(rnd.IntN(10))
	case 1:
		return rnd.Int64N(100000) - 50000
	case 2:
		if bits == 64 {
			return rnd.Int64() - rnd.Int64()
		}
	}
	return int64(rnd.Int32())
}

// randomJSON is a valid JSON text with whitespace, unsorted and escaped
// member names, and numbers in every notation.
func randomJSON(rnd *rand.Rand, depth int) string {
	ws := func() string { return []string{"", " ", "\n\t"}[rnd.IntN(3)] }
	switch k := rnd.IntN(8); {
	case k == 0 && depth < 4:
		var parts []string
		seen := map[string]bool{}
		for range rnd.IntN(5) {
			name := randomString(rnd)
			if utf8.ValidString(name) && !seen[name] {
				seen[name] = true
				key, _ := json.Marshal(name)
				parts = append(parts, ws()+string(key)+ws()+":"+randomJSON(rnd, depth+1))
			}
		}
		return "{" + strings.Join(parts, ",") + ws() + "}"
	case k == 1 && depth < 4:
		var parts []string
		for range rnd.IntN(4) {
			parts = append(parts, randomJSON(rnd, depth+1))
		}
		return "[" + ws() + strings.Join(parts, ",") + "]"
	case k == 2:
		s := strings.ToValidUTF8(randomString(rnd), "?")
		if rnd.IntN(2) == 0 {
			out, _ := json.Marshal(s) // escapes <, >, & and U+2028 as \u....
			return string(out)
		}
		return `"` + strings.NewReplacer(`\`, `\\`, `"`, `\"`, "\n", `\n`, "\x00", `\u0000`, "\x1f", `\u001F`,
			"\b", `\b`, "\f", `\f`, "\r", `\r`, "\t", `\t`, "/", `\/`).Replace(s) + `"`
	case k == 3:
		return []string{"1E30", "4.50", "2e-3", "-0", "0.000001", "1e+2", "123456789012345678901", "-12.5e-10"}[rnd.IntN(8)]
	case k == 4:
		return []string{"true", "false", "null"}[rnd.IntN(3)]
	}
	return ws() + json.Number(strings.TrimSpace(string(mustJSON(rnd.NormFloat64()*1e6)))).String()
}

func mustJSON(v any) []byte {
	out, err := json.Marshal(v)
	if err != nil {
		panic(err)
	}
	return out
}
