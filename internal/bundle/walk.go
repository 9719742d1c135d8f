package bundle

import (
	"fmt"
)

// scanner walks JSON text structurally without decoding values: enough to
// find an object's members and an array's elements and to skip anything
// else. It checks only the structure it walks (brackets, strings, commas,
// colons); values are checked where they are decoded, and canonical form
// where the bytes are compared. Verify uses it to cut a payload into its
// tools (read.go) and to drop members of later revisions (extras.go).
type scanner struct {
	src []byte
	i   int
}

func (s *scanner) errorf(format string, args ...any) error {
	return fmt.Errorf("JSON at offset %d: %s", s.i, fmt.Sprintf(format, args...))
}

func (s *scanner) space() {
	for s.i < len(s.src) {
		switch s.src[s.i] {
		case ' ', '\t', '\n', '\r':
			s.i++
		default:
			return
		}
	}
}

// at reports whether the next token starts with c.
func (s *scanner) at(c byte) bool {
	s.space()
	return s.i < len(s.src) && s.src[s.i] == c
}

// str reads a string token and returns its raw contents (escapes kept).
func (s *scanner) str() ([]byte, error) {
	if !s.at('"') {
		return nil, s.errorf("want a string")
	}
	start := s.i + 1
	end, ok := stringEnd(s.src, start)
	if !ok {
		return nil, s.errorf("unterminated string")
	}
	s.i = end
	return s.src[start : end-1], nil
}

// skipValue moves past one value, however deeply nested (without
// recursion, so hostile nesting costs no stack). It is the one pass over
// every byte of a payload that Verify adds to decoding (splitTools), so
// it works on a local index and finds the end of a string with
// bytes.IndexByte.
func (s *scanner) skipValue() error {
	src, i, depth := s.src, s.i, 0
	for i < len(src) {
		switch c := src[i]; c {
		case ' ', '\t', '\r', '\n':
			i++
			continue
		case '"':
			end, ok := stringEnd(src, i+1)
			if !ok {
				s.i = i
				return s.errorf("unterminated string")
			}
			i = end
		case '{', '[':
			depth++
			i++
			continue
		case '}', ']':
			if depth == 0 {
				s.i = i
				return s.errorf("unexpected %q", c)
			}
			depth--
			i++
		case ',', ':':
			if depth == 0 {
				s.i = i
				return s.errorf("unexpected %q", c)
			}
			i++
			continue
		default:
			start := i
			for i < len(src) && !delimiter(src[i]) {
				i++
			}
			if i == start {
				s.i = i
				return s.errorf("unexpected %q", c)
			}
		}
		if depth == 0 {
			s.i = i
			return nil
		}
	}
	s.i = i
	return s.errorf("unexpected end of JSON")
}

// stringEnd returns the offset just past the closing quote of the string
// whose contents start at from: a backslash always escapes the byte after
// it, so the first quote not so escaped ends the string. A byte loop: the
// strings of a payload are mostly a few bytes long, too short for
// bytes.IndexByte to pay for its call.
func stringEnd(src []byte, from int) (int, bool) {
	for j := from; j < len(src); j++ {
		switch src[j] {
		case '"':
			return j + 1, true
		case '\\':
			j++
		}
	}
	return 0, false
}

// object walks an object: member is called with each member's raw name,
// the scanner at its value, and must move past the value.
func (s *scanner) object(member func(name []byte) error) error {
	if !s.at('{') {
		return s.errorf("want an object")
	}
	s.i++
	if s.at('}') {
		s.i++
		return nil
	}
	for {
		name, err := s.str()
		if err != nil {
			return err
		}
		if !s.at(':') {
			return s.errorf("want ':' after a member name")
		}
		s.i++
		s.space()
		if err := member(name); err != nil {
			return err
		}
		if done, err := s.next('}'); done || err != nil {
			return err
		}
	}
}

// array walks an array: elem is called with the scanner at each element
// and must move past it.
func (s *scanner) array(elem func() error) error {
	if !s.at('[') {
		return s.errorf("want an array")
	}
	s.i++
	if s.at(']') {
		s.i++
		return nil
	}
	for {
		s.space()
		if err := elem(); err != nil {
			return err
		}
		if done, err := s.next(']'); done || err != nil {
			return err
		}
	}
}

// next reads what follows a member or element: a comma (more follow) or
// the closing bracket.
func (s *scanner) next(closing byte) (bool, error) {
	switch {
	case s.at(','):
		s.i++
		return false, nil
	case s.at(closing):
		s.i++
		return true, nil
	}
	return false, s.errorf("want ',' or %q", closing)
}

// delimiter reports whether c ends a number or literal.
func delimiter(c byte) bool {
	switch c {
	case ' ', '\t', '\r', '\n', ',', ':', '{', '}', '[', ']', '"':
		return true
	}
	return false
}
