package callrecord

import (
	"encoding/json"
	"math"
	"slices"
	"strconv"
	"unicode/utf16"
	"unicode/utf8"

	"github.com/gowebpki/jcs"
)

// Every tools/call digests its arguments, so the digest is on the call's
// path: through json.Marshal and then jcs.Transform it was the larger part
// of a call record's cost. appendCanonical writes the canonical form
// (RFC 8785) of the values a call's arguments hold — decoded JSON with
// json.Number numbers — directly. For anything else it reports !ok and
// ArgumentsDigest takes the general path, whose bytes it equals on every
// value it accepts (TestCanonicalMatchesMarshalThenTransform).

// appendCanonical appends the canonical JSON of v to dst; ok is false for
// a value it leaves to the general path: another type, a string or key
// that is not valid UTF-8 (json.Marshal replaces its bytes, which may make
// two keys one), a number that is not a finite JSON number.
func appendCanonical(dst []byte, v any) (_ []byte, ok bool) {
	switch v := v.(type) {
	case nil:
		return append(dst, "null"...), true
	case bool:
		return strconv.AppendBool(dst, v), true
	case string:
		if !utf8.ValidString(v) {
			return dst, false
		}
		return appendCanonicalString(dst, v), true
	case json.Number:
		if !validNumber(string(v)) {
			return dst, false
		}
		f, err := strconv.ParseFloat(string(v), 64)
		if err != nil { // out of range
			return dst, false
		}
		return appendNumber(dst, f)
	case float64:
		return appendNumber(dst, v)
	case []any:
		if v == nil { // as json.Marshal writes it
			return append(dst, "null"...), true
		}
		dst = append(dst, '[')
		for i, e := range v {
			if i > 0 {
				dst = append(dst, ',')
			}
			if dst, ok = appendCanonical(dst, e); !ok {
				return dst, false
			}
		}
		return append(dst, ']'), true
	case map[string]any:
		if v == nil {
			return append(dst, "null"...), true
		}
		keys := make([]string, 0, len(v))
		ascii := true
		for k := range v {
			if !utf8.ValidString(k) {
				return dst, false
			}
			ascii = ascii && isASCII(k)
			keys = append(keys, k)
		}
		if ascii {
			slices.Sort(keys) // byte order is UTF-16 order for ASCII
		} else {
			slices.SortFunc(keys, compareUTF16)
		}
		dst = append(dst, '{')
		for i, k := range keys {
			if i > 0 {
				dst = append(dst, ',')
			}
			dst = appendCanonicalString(dst, k)
			dst = append(dst, ':')
			if dst, ok = appendCanonical(dst, v[k]); !ok {
				return dst, false
			}
		}
		return append(dst, '}'), true
	}
	return dst, false
}

func appendNumber(dst []byte, f float64) ([]byte, bool) {
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return dst, false
	}
	s, err := jcs.NumberToJSON(f)
	if err != nil {
		return dst, false
	}
	return append(dst, s...), true
}

// appendCanonicalString writes s as RFC 8785 does: '"' and '\\' escaped,
// the control characters as \b \f \n \r \t or \u00xx, everything else as
// it is.
func appendCanonicalString(dst []byte, s string) []byte {
	const hex = "0123456789abcdef"
	dst = append(dst, '"')
	start := 0
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c >= 0x20 && c != '"' && c != '\\' {
			continue
		}
		dst = append(dst, s[start:i]...)
		switch c {
		case '"', '\\':
			dst = append(dst, '\\', c)
		case '\b':
			dst = append(dst, '\\', 'b')
		case '\f':
			dst = append(dst, '\\', 'f')
		case '\n':
			dst = append(dst, '\\', 'n')
		case '\r':
			dst = append(dst, '\\', 'r')
		case '\t':
			dst = append(dst, '\\', 't')
		default:
			dst = append(dst, '\\', 'u', '0', '0', hex[c>>4], hex[c&0xf])
		}
		start = i + 1
	}
	dst = append(dst, s[start:]...)
	return append(dst, '"')
}

func isASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= utf8.RuneSelf {
			return false
		}
	}
	return true
}

// compareUTF16 orders two valid UTF-8 strings by their UTF-16 code units,
// RFC 8785's member order: it differs from byte order where a character
// above U+FFFF (a surrogate pair, 0xD800…) meets one in U+E000–U+FFFF.
func compareUTF16(a, b string) int {
	for a != "" && b != "" {
		ra, na := utf8.DecodeRuneInString(a)
		rb, nb := utf8.DecodeRuneInString(b)
		a, b = a[na:], b[nb:]
		if ra == rb {
			continue
		}
		ua, ub := firstUnit(ra), firstUnit(rb)
		if ua != ub {
			return int(ua) - int(ub)
		}
		// The same high surrogate: the low ones decide.
		_, la := utf16.EncodeRune(ra)
		_, lb := utf16.EncodeRune(rb)
		return int(la) - int(lb)
	}
	return len(a) - len(b)
}

// firstUnit is the first UTF-16 code unit of r.
func firstUnit(r rune) rune {
	if r > 0xFFFF {
		hi, _ := utf16.EncodeRune(r)
		return hi
	}
	return r
}

// validNumber reports whether s is a JSON number (RFC 8259 §6), as
// json.Marshal requires of a json.Number.
func validNumber(s string) bool {
	i := 0
	if i < len(s) && s[i] == '-' {
		i++
	}
	switch {
	case i < len(s) && s[i] == '0':
		i++
	case i < len(s) && s[i] >= '1' && s[i] <= '9':
		for i < len(s) && s[i] >= '0' && s[i] <= '9' {
			i++
		}
	default:
		return false
	}
	if i < len(s) && s[i] == '.' {
		i++
		if i >= len(s) || s[i] < '0' || s[i] > '9' {
			return false
		}
		for i < len(s) && s[i] >= '0' && s[i] <= '9' {
			i++
		}
	}
	if i < len(s) && (s[i] == 'e' || s[i] == 'E') {
		i++
		if i < len(s) && (s[i] == '+' || s[i] == '-') {
			i++
		}
		if i >= len(s) || s[i] < '0' || s[i] > '9' {
			return false
		}
		for i < len(s) && s[i] >= '0' && s[i] <= '9' {
			i++
		}
	}
	return i == len(s)
}
