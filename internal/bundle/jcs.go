package bundle

import (
	"errors"
	"fmt"
	"slices"
	"unicode/utf16"
	"unicode/utf8"
)

// This file is a fast RFC 8785 (JSON Canonicalization Scheme) transform of
// JSON text, used for the arbitrary JSON a bundle carries (input schemas);
// encode.go writes the bundle's own types directly in the same form.
// github.com/gowebpki/jcs does the same job but was most of the time of
// Sign and Verify (it builds a string per token); the tests compare the two
// byte for byte on the RFC's examples, the golden file, a 5,000-tool bundle
// and a fuzz corpus.
//
// Where RFC 8785 leaves no choice the transform refuses: invalid UTF-8, lone
// surrogates, duplicate member names, numbers outside IEEE 754 double range
// and anything that is not JSON (RFC 8259) are errors.

// maxJSONDepth bounds nesting so hostile input cannot exhaust the stack.
const maxJSONDepth = 1000

// jcsMember is one member of an object being canonicalized: the offsets of
// its canonical bytes ("name":value) and of its name's contents in the
// output, and the decoded name when it differs from those contents (only
// when the name holds an escape).
type jcsMember struct {
	from, to         int
	nameFrom, nameTo int
	decoded          []byte
	escaped          bool
}

// jcsParser is one transform's state. members is a stack shared by nested
// objects (an object's members are contiguous above its base index) and
// scratch is the buffer members are reordered through; both are reused.
type jcsParser struct {
	src     []byte
	i       int
	members []jcsMember
	scratch []byte
}

// appendCanonicalJSON appends the RFC 8785 form of the JSON text src to dst.
func appendCanonicalJSON(dst, src []byte) ([]byte, error) {
	p := jcsParser{src: src}
	return p.transform(dst)
}

func (p *jcsParser) transform(dst []byte) ([]byte, error) {
	p.skipSpace()
	dst, err := p.value(dst, 0)
	if err != nil {
		return nil, err
	}
	p.skipSpace()
	if p.i != len(p.src) {
		return nil, p.errorf("data after the JSON value")
	}
	return dst, nil
}

func (p *jcsParser) errorf(format string, args ...any) error {
	return fmt.Errorf("RFC 8785 at offset %d: %w", p.i, fmt.Errorf(format, args...))
}

// errLoneSurrogate: I-JSON (RFC 7493 §2.1), which RFC 8785 requires as
// input, forbids unpaired surrogates; they have no UTF-8 form to write.
var errLoneSurrogate = errors.New("lone surrogate in a string")

func (p *jcsParser) skipSpace() {
	for p.i < len(p.src) {
		switch p.src[p.i] {
		case ' ', '\t', '\n', '\r':
			p.i++
		default:
			return
		}
	}
}

func (p *jcsParser) value(dst []byte, depth int) ([]byte, error) {
	if p.i >= len(p.src) {
		return nil, p.errorf("unexpected end of JSON")
	}
	switch c := p.src[p.i]; {
	case c == '{':
		return p.object(dst, depth+1)
	case c == '[':
		return p.array(dst, depth+1)
	case c == '"':
		dst, _, err := p.str(dst)
		return dst, err
	case c == 't':
		return p.literal(dst, "true")
	case c == 'f':
		return p.literal(dst, "false")
	case c == 'n':
		return p.literal(dst, "null")
	case c == '-' || c >= '0' && c <= '9':
		return p.number(dst)
	}
	return nil, p.errorf("unexpected character %q", p.src[p.i])
}

func (p *jcsParser) literal(dst []byte, lit string) ([]byte, error) {
	if len(p.src)-p.i < len(lit) || string(p.src[p.i:p.i+len(lit)]) != lit {
		return nil, p.errorf("invalid literal")
	}
	p.i += len(lit)
	return append(dst, lit...), nil
}

func (p *jcsParser) array(dst []byte, depth int) ([]byte, error) {
	if depth > maxJSONDepth {
		return nil, p.errorf("nesting deeper than %d", maxJSONDepth)
	}
	p.i++ // [
	dst = append(dst, '[')
	p.skipSpace()
	if p.i < len(p.src) && p.src[p.i] == ']' {
		p.i++
		return append(dst, ']'), nil
	}
	for {
		p.skipSpace()
		var err error
		if dst, err = p.value(dst, depth); err != nil {
			return nil, err
		}
		p.skipSpace()
		if p.i >= len(p.src) {
			return nil, p.errorf("unexpected end of JSON in an array")
		}
		switch p.src[p.i] {
		case ',':
			p.i++
			dst = append(dst, ',')
		case ']':
			p.i++
			return append(dst, ']'), nil
		default:
			return nil, p.errorf("want , or ] in an array")
		}
	}
}

// object writes the members as they come, then reorders them by name when
// they were not already sorted (RFC 8785 §3.2.3).
func (p *jcsParser) object(dst []byte, depth int) ([]byte, error) {
	if depth > maxJSONDepth {
		return nil, p.errorf("nesting deeper than %d", maxJSONDepth)
	}
	p.i++ // {
	dst = append(dst, '{')
	start := len(dst)
	base := len(p.members)
	defer func() { p.members = p.members[:base] }()
	p.skipSpace()
	if p.i < len(p.src) && p.src[p.i] == '}' {
		p.i++
		return append(dst, '}'), nil
	}
	for {
		p.skipSpace()
		if p.i >= len(p.src) || p.src[p.i] != '"' {
			return nil, p.errorf("want a member name")
		}
		m := jcsMember{from: len(dst), nameFrom: len(dst) + 1}
		var err error
		if dst, m.escaped, err = p.str(dst); err != nil {
			return nil, err
		}
		m.nameTo = len(dst) - 1
		if m.escaped {
			m.decoded = decodeCanonicalString(dst[m.nameFrom:m.nameTo])
		}
		p.skipSpace()
		if p.i >= len(p.src) || p.src[p.i] != ':' {
			return nil, p.errorf("want : after a member name")
		}
		p.i++
		dst = append(dst, ':')
		p.skipSpace()
		if dst, err = p.value(dst, depth); err != nil {
			return nil, err
		}
		m.to = len(dst)
		p.members = append(p.members, m)
		p.skipSpace()
		if p.i >= len(p.src) {
			return nil, p.errorf("unexpected end of JSON in an object")
		}
		if p.src[p.i] == ',' {
			p.i++
			dst = append(dst, ',')
			continue
		}
		if p.src[p.i] != '}' {
			return nil, p.errorf("want , or } in an object")
		}
		p.i++
		break
	}
	dst, err := p.sortMembers(dst, start, p.members[base:])
	if err != nil {
		return nil, err
	}
	return append(dst, '}'), nil
}

// sortMembers puts the members written at dst[start:] in RFC 8785 order and
// refuses duplicate names.
func (p *jcsParser) sortMembers(dst []byte, start int, ms []jcsMember) ([]byte, error) {
	name := func(buf []byte, off int, m *jcsMember) []byte {
		if m.escaped {
			return m.decoded
		}
		return buf[m.nameFrom-off : m.nameTo-off]
	}
	sorted := true
	for i := 1; i < len(ms); i++ {
		c := compareUTF16(name(dst, 0, &ms[i-1]), name(dst, 0, &ms[i]))
		if c == 0 {
			return nil, p.errorf("duplicate member name %q", name(dst, 0, &ms[i]))
		}
		if c > 0 {
			sorted = false
		}
	}
	if sorted {
		return dst, nil
	}
	p.scratch = append(p.scratch[:0], dst[start:]...)
	slices.SortFunc(ms, func(a, b jcsMember) int {
		return compareUTF16(name(p.scratch, start, &a), name(p.scratch, start, &b))
	})
	for i := 1; i < len(ms); i++ {
		if compareUTF16(name(p.scratch, start, &ms[i-1]), name(p.scratch, start, &ms[i])) == 0 {
			return nil, p.errorf("duplicate member name %q", name(p.scratch, start, &ms[i]))
		}
	}
	dst = dst[:start]
	for i, m := range ms {
		if i > 0 {
			dst = append(dst, ',')
		}
		dst = append(dst, p.scratch[m.from-start:m.to-start]...)
	}
	return dst, nil
}

// compareUTF16 orders names by their UTF-16 code units (RFC 8785 §3.2.3).
// That is byte order except where a character at or above U+E000 meets one
// above U+FFFF: UTF-8 puts the latter last, UTF-16 (whose surrogates are
// D800–DFFF) first. Both differing bytes are then lead bytes (at least
// 0xEE), so the characters start right there.
func compareUTF16(a, b []byte) int {
	n := min(len(a), len(b))
	i := 0
	for i < n && a[i] == b[i] {
		i++
	}
	if i == n {
		return len(a) - len(b)
	}
	if a[i] < 0xEE || b[i] < 0xEE {
		return int(a[i]) - int(b[i])
	}
	ra, _ := utf8.DecodeRune(a[i:])
	rb, _ := utf8.DecodeRune(b[i:])
	ua, ub := utf16Units(ra), utf16Units(rb)
	if ua[0] != ub[0] {
		return int(ua[0]) - int(ub[0])
	}
	return int(ua[1]) - int(ub[1])
}

func utf16Units(r rune) [2]uint16 {
	if r >= 0x10000 {
		hi, lo := utf16.EncodeRune(r)
		return [2]uint16{uint16(hi), uint16(lo)}
	}
	return [2]uint16{uint16(r), 0}
}
