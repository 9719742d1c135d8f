package bundle

import (
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
)

// KnownSchemas returns the schema majors this verifier reads (doc.go,
// "Versioning"). A bundle of any other schema is refused with
// ErrUnknownSchema, whatever else it holds.
func KnownSchemas() []string { return []string{Schema} }

// errStopWalk ends a walk early once the member sought is found.
var errStopWalk = errors.New("stop")

// checkSchema reads the payload's schema member before anything else is
// decoded, so a bundle of a newer major is refused for what it is, not for
// the first member this verifier happens not to know.
func checkSchema(payload []byte) error {
	var raw []byte
	s := scanner{src: payload}
	err := s.object(func(name []byte) error {
		from := s.i
		if err := s.skipValue(); err != nil || string(name) != "schema" {
			return err
		}
		raw = payload[from:s.i]
		return errStopWalk
	})
	if err != nil && !errors.Is(err, errStopWalk) {
		return fmt.Errorf("decoding payload: %w", err)
	}
	if raw == nil {
		return errors.New("decoding payload: no schema member")
	}
	var schema string
	if err := json.Unmarshal(raw, &schema); err != nil {
		return fmt.Errorf("decoding payload: schema is not a string: %s", raw)
	}
	known := KnownSchemas()
	if slices.Contains(known, schema) {
		return nil
	}
	return fmt.Errorf("%w: the bundle's schema is %q and this verifier knows %s; a newer console published it, "+
		"upgrade this runtime", ErrUnknownSchema, schema, strings.Join(known, ", "))
}
