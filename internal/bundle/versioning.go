package bundle

import (
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/toolgate/toolgate/internal/policy"
)

// KnownSchemas returns the schema majors this verifier reads (doc.go,
// "Versioning"). A bundle of any other schema is refused with
// ErrUnknownSchema, whatever else it holds.
func KnownSchemas() []string { return []string{SchemaV1, SchemaV2} }

// UsesV2 reports whether a policy needs toolgate.bundle/v2: it names groups
// or conditions, which a v1 runtime would not enforce.
func UsesV2(p *policy.Policy) bool { return len(p.Groups) > 0 || len(p.Conditions) > 0 }

// schemaFor is the lowest major that carries tools: v1 unless one of them
// uses v2, so a bundle without groups or conditions keeps its v1 bytes and
// every runtime of the fleet reads it.
func schemaFor(tools []Tool) string {
	for i := range tools {
		if UsesV2(&tools[i].Policy) {
			return SchemaV2
		}
	}
	return SchemaV1
}

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
