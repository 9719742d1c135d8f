package bundle

import (
	"errors"
	"math"
	"strconv"
	"unicode/utf16"
	"unicode/utf8"
)

// Strings and numbers in RFC 8785 form, for the transform (jcsParser) and
// the direct encoder (bundleEncoder) alike.

// str copies a JSON string in its canonical form and reports whether the
// canonical form holds an escape (so the decoded name differs from it).
func (p *jcsParser) str(dst []byte) ([]byte, bool, error) {
	p.i++ // opening quote
	dst = append(dst, '"')
	escaped := false
	for {
		start := p.i
		for p.i < len(p.src) {
			c := p.src[p.i]
			if c < utf8.RuneSelf && c >= 0x20 && c != '"' && c != '\\' {
				p.i++
				continue
			}
			break
		}
		dst = append(dst, p.src[start:p.i]...)
		if p.i >= len(p.src) {
			return nil, false, p.errorf("unterminated string")
		}
		switch c := p.src[p.i]; {
		case c == '"':
			p.i++
			return append(dst, '"'), escaped, nil
		case c == '\\':
			r, err := p.escape()
			if err != nil {
				return nil, false, err
			}
			before := len(dst)
			dst = appendStringRune(dst, r)
			escaped = escaped || dst[before] == '\\'
		case c < 0x20:
			return nil, false, p.errorf("control character in a string")
		default:
			r, size := utf8.DecodeRune(p.src[p.i:])
			if r == utf8.RuneError && size == 1 {
				return nil, false, p.errorf("invalid UTF-8 in a string")
			}
			dst = append(dst, p.src[p.i:p.i+size]...)
			p.i += size
		}
	}
}

// escape decodes one backslash escape, joining surrogate pairs.
func (p *jcsParser) escape() (rune, error) {
	if p.i+1 >= len(p.src) {
		return 0, p.errorf("unterminated escape")
	}
	c := p.src[p.i+1]
	p.i += 2
	switch c {
	case '"', '\\', '/':
		return rune(c), nil
	case 'b':
		return '\b', nil
	case 'f':
		return '\f', nil
	case 'n':
		return '\n', nil
	case 'r':
		return '\r', nil
	case 't':
		return '\t', nil
	case 'u':
		r, err := p.hex4()
		if err != nil {
			return 0, err
		}
		if !utf16.IsSurrogate(r) {
			return r, nil
		}
		if r < 0xDC00 && p.i+1 < len(p.src) && p.src[p.i] == '\\' && p.src[p.i+1] == 'u' {
			p.i += 2
			lo, err := p.hex4()
			if err != nil {
				return 0, err
			}
			if pair := utf16.DecodeRune(r, lo); pair != utf8.RuneError {
				return pair, nil
			}
		}
		return 0, p.errorf("%w", errLoneSurrogate)
	}
	return 0, p.errorf("invalid escape \\%c", c)
}

func (p *jcsParser) hex4() (rune, error) {
	if len(p.src)-p.i < 4 {
		return 0, p.errorf("short \\u escape")
	}
	v, err := strconv.ParseUint(string(p.src[p.i:p.i+4]), 16, 16)
	if err != nil {
		return 0, p.errorf("invalid \\u escape")
	}
	p.i += 4
	return rune(v), nil
}

// number copies a JSON number in ECMAScript form. An integer of at most 15
// digits is already in that form (except -0); anything else goes through
// float64 as RFC 8785 §3.2.2.3 prescribes.
func (p *jcsParser) number(dst []byte) ([]byte, error) {
	start := p.i
	simple := true
	if p.src[p.i] == '-' {
		p.i++
	}
	switch {
	case p.i < len(p.src) && p.src[p.i] == '0':
		p.i++
	case p.i < len(p.src) && p.src[p.i] >= '1' && p.src[p.i] <= '9':
		p.digits()
	default:
		return nil, p.errorf("invalid number")
	}
	if p.i < len(p.src) && p.src[p.i] == '.' {
		p.i++
		simple = false
		if p.digits() == 0 {
			return nil, p.errorf("invalid number")
		}
	}
	if p.i < len(p.src) && (p.src[p.i] == 'e' || p.src[p.i] == 'E') {
		p.i++
		simple = false
		if p.i < len(p.src) && (p.src[p.i] == '+' || p.src[p.i] == '-') {
			p.i++
		}
		if p.digits() == 0 {
			return nil, p.errorf("invalid number")
		}
	}
	text := p.src[start:p.i]
	if simple && len(text) <= 15 {
		if string(text) == "-0" {
			return append(dst, '0'), nil
		}
		return append(dst, text...), nil
	}
	f, err := strconv.ParseFloat(string(text), 64)
	if err != nil {
		return nil, p.errorf("number %s is outside the IEEE 754 double range", text)
	}
	return appendES6Number(dst, f)
}

func (p *jcsParser) digits() int {
	n := 0
	for p.i < len(p.src) && p.src[p.i] >= '0' && p.src[p.i] <= '9' {
		p.i++
		n++
	}
	return n
}

// errNotFinite: JSON has no NaN or infinity.
var errNotFinite = errors.New("RFC 8785: NaN and infinite numbers have no JSON form")

// appendES6Number formats f as ECMAScript's Number.prototype.toString does
// (RFC 8785 §3.2.2.3): the shortest digits that round-trip, plain notation
// for 1e-6 <= |f| < 1e21, exponent notation (e+21, e-7) otherwise, and 0 for
// negative zero.
func appendES6Number(dst []byte, f float64) ([]byte, error) {
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return nil, errNotFinite
	}
	if f == 0 {
		return append(dst, '0'), nil
	}
	abs := math.Abs(f)
	format := byte('f')
	if abs < 1e-6 || abs >= 1e21 {
		format = 'e'
	}
	dst = strconv.AppendFloat(dst, f, format, -1, 64)
	if format == 'e' {
		// Go writes e-07 where ECMAScript writes e-7.
		n := len(dst)
		if n >= 4 && dst[n-4] == 'e' && dst[n-3] == '-' && dst[n-2] == '0' {
			dst[n-2] = dst[n-1]
			dst = dst[:n-1]
		}
	}
	return dst, nil
}

// appendStringRune writes one character in RFC 8785 string form: the two
// mandatory escapes, the five short control escapes, other control
// characters as lower-case \u00xx, everything else as UTF-8.
func appendStringRune(dst []byte, r rune) []byte {
	const hex = "0123456789abcdef"
	switch r {
	case '"':
		return append(dst, '\\', '"')
	case '\\':
		return append(dst, '\\', '\\')
	case '\b':
		return append(dst, '\\', 'b')
	case '\f':
		return append(dst, '\\', 'f')
	case '\n':
		return append(dst, '\\', 'n')
	case '\r':
		return append(dst, '\\', 'r')
	case '\t':
		return append(dst, '\\', 't')
	}
	if r < 0x20 {
		return append(dst, '\\', 'u', '0', '0', hex[r>>4], hex[r&0xF])
	}
	return utf8.AppendRune(dst, r)
}

// decodeCanonicalString decodes the contents of a string in canonical form
// (only the escapes appendStringRune writes).
func decodeCanonicalString(s []byte) []byte {
	out := make([]byte, 0, len(s))
	for i := 0; i < len(s); i++ {
		if s[i] != '\\' {
			out = append(out, s[i])
			continue
		}
		i++
		switch s[i] {
		case 'b':
			out = append(out, '\b')
		case 'f':
			out = append(out, '\f')
		case 'n':
			out = append(out, '\n')
		case 'r':
			out = append(out, '\r')
		case 't':
			out = append(out, '\t')
		case 'u':
			v, _ := strconv.ParseUint(string(s[i+1:i+5]), 16, 8)
			out = append(out, byte(v))
			i += 4
		default: // " and \
			out = append(out, s[i])
		}
	}
	return out
}

// appendJSONInt writes an integer as RFC 8785 does: JSON numbers are IEEE
// doubles, so beyond ±2^53 the value is the nearest double, in ECMAScript
// form.
func appendJSONInt(dst []byte, v int64) []byte {
	const exact = 1 << 53
	if v >= -exact && v <= exact {
		return strconv.AppendInt(dst, v, 10)
	}
	out, _ := appendES6Number(dst, float64(v)) // always finite
	return out
}

// appendJSONString writes a Go string in RFC 8785 form. Invalid UTF-8
// becomes U+FFFD, as encoding/json does.
func appendJSONString(dst []byte, s string) []byte {
	dst = append(dst, '"')
	start := 0
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			if c >= 0x20 && c != '"' && c != '\\' {
				i++
				continue
			}
			dst = append(dst, s[start:i]...)
			dst = appendStringRune(dst, rune(c))
			i++
			start = i
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			dst = append(dst, s[start:i]...)
			dst = append(dst, "\uFFFD"...)
			i++
			start = i
			continue
		}
		i += size
	}
	dst = append(dst, s[start:]...)
	return append(dst, '"')
}
