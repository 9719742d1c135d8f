package bundle

import (
	"bytes"
	"encoding/json"
	"errors"
	"reflect"
	"strings"
	"sync"
	"time"

	segjson "github.com/segmentio/encoding/json"
)

// Members of a later compatible revision of the major (doc.go,
// "Versioning") are ignored, at every level the wire types describe, and
// everything else stays as strict as before: the payload must still be
// canonical as a whole (extras included, so one signature is still one
// byte string), and what is left without the extras must still decode
// with no unknown member and re-encode to exactly those bytes. A payload
// without extras never goes through the stripping below.

// shape is what the wire types say about a JSON value: for an object, its
// known members (a member mapped to nil is a leaf: string, number, time,
// input_schema); for an array, the shape of its elements.
type shape struct {
	members map[string]*shape
	elem    *shape
}

// shapeOf derives a shape from a wire type, so it can never disagree with
// what the decoder knows.
func shapeOf(t reflect.Type) *shape {
	switch {
	case t == reflect.TypeFor[json.RawMessage]() || t == reflect.TypeFor[time.Time]():
		return nil // opaque: input_schema is the API's own JSON
	case t.Kind() == reflect.Pointer:
		return shapeOf(t.Elem())
	case t.Kind() == reflect.Slice:
		if e := shapeOf(t.Elem()); e != nil {
			return &shape{elem: e}
		}
	case t.Kind() == reflect.Struct:
		s := &shape{members: map[string]*shape{}}
		for i := range t.NumField() {
			f := t.Field(i)
			name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
			s.members[name] = shapeOf(f.Type)
		}
		return s
	}
	return nil
}

var (
	bundleShape = sync.OnceValue(func() *shape { return shapeOf(reflect.TypeFor[wireBundle]()) })
	toolShape   = sync.OnceValue(func() *shape { return shapeOf(reflect.TypeFor[wireTool]()) })
)

// errNotCanonical is the refusal of a payload that is not its own
// canonical form.
var errNotCanonical = errors.New("payload is not in canonical form (RFC 8785, sorted tools and sources, whole-second UTC times, no null lists)")

// parseStrict decodes data into v refusing unknown members, members that
// differ from a known one only in case, and anything after the value.
func parseStrict(data []byte, v any) error {
	rest, err := segjson.Parse(data, v, segjson.DisallowUnknownFields|segjson.DontMatchCaseInsensitiveStructFields)
	if err != nil {
		return err
	}
	if len(bytes.TrimSpace(rest)) > 0 {
		return errors.New("data after the JSON value")
	}
	return nil
}

// decodeKnown decodes raw into a T and returns the bytes its canonical
// re-encoding must equal: raw itself, or, when raw carries members T does
// not know, raw without them (raw must then be canonical as it is).
func decodeKnown[T any](raw []byte, sh *shape) (T, []byte, error) {
	var v T
	err := parseStrict(raw, &v)
	if err == nil {
		return v, raw, nil
	}
	s := scanner{src: raw}
	known, serr := stripUnknown(make([]byte, 0, len(raw)), &s, sh)
	if serr != nil || bytes.Equal(known, raw) {
		return v, nil, err // no extras: the strict error is the real one
	}
	if canon, cerr := appendCanonicalJSON(make([]byte, 0, len(raw)), raw); cerr != nil || !bytes.Equal(canon, raw) {
		return v, nil, errNotCanonical
	}
	var again T
	if err := parseStrict(known, &again); err != nil {
		return again, nil, err
	}
	return again, known, nil
}

// stripUnknown appends the value at the scanner to dst without the members
// sh does not know, at every level sh describes; anything sh does not
// describe is copied as it is.
func stripUnknown(dst []byte, s *scanner, sh *shape) ([]byte, error) {
	from := s.i
	switch {
	case sh != nil && sh.members != nil && s.at('{'):
		return stripObject(dst, s, sh)
	case sh != nil && sh.elem != nil && s.at('['):
		dst = append(dst, '[')
		n := 0
		err := s.array(func() error {
			if n++; n > 1 {
				dst = append(dst, ',')
			}
			var err error
			dst, err = stripUnknown(dst, s, sh.elem)
			return err
		})
		return append(dst, ']'), err
	}
	err := s.skipValue()
	return append(dst, s.src[from:s.i]...), err
}

func stripObject(dst []byte, s *scanner, sh *shape) ([]byte, error) {
	dst = append(dst, '{')
	n := 0
	err := s.object(func(name []byte) error {
		sub, known := sh.members[string(name)]
		if !known {
			return s.skipValue()
		}
		if n++; n > 1 {
			dst = append(dst, ',')
		}
		dst = append(append(append(dst, '"'), name...), '"', ':')
		var err error
		dst, err = stripUnknown(dst, s, sub)
		return err
	})
	return append(dst, '}'), err
}
