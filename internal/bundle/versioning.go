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
// or conditions, or asks a person per call, which a v1 runtime would not
// enforce.
func UsesV2(p *policy.Policy) bool {
	return len(p.Groups) > 0 || len(p.Conditions) > 0 || p.PerCall != ""
}

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
// the first member this verifier happens not to know. schemas are the ones
// read (nil: KnownSchemas).
func checkSchema(payload []byte, schemas []string) error {
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
	known := schemas
	if known == nil {
		known = KnownSchemas()
	}
	if slices.Contains(known, schema) {
		return nil
	}
	return fmt.Errorf("%w: the bundle's schema is %q and this verifier knows %s; a newer console published it, "+
		"upgrade this runtime", ErrUnknownSchema, schema, strings.Join(known, ", "))
}

// Withheld is a tool a downgraded bundle leaves out, and why.
type Withheld struct {
	Tool   string
	Reason string
}

// WithheldV2Reason is why DowngradeV1 leaves a tool out.
const WithheldV2Reason = "its policy has groups, conditions or a per-call mode, which a runtime reading only " + SchemaV1 + " does not enforce"

// DowngradeV1 returns the toolgate.bundle/v1 form of a v2 bundle for the
// runtimes that read only v1 (doc.go, "Rolling upgrade"): the same
// version, times and content, minus every tool whose policy uses v2,
// which it lists; never a tool with its groups or conditions dropped.
// Sources no remaining tool uses are left out, as Build does. b is not
// modified. A bundle that is already v1 is returned as it is.
func DowngradeV1(b *Bundle) (*Bundle, []Withheld) {
	if b.Schema == SchemaV1 {
		return b, nil
	}
	d := *b
	d.Schema = SchemaV1
	d.Tools = make([]Tool, 0, len(b.Tools))
	var withheld []Withheld
	used := map[string]bool{}
	for _, t := range b.Tools {
		if UsesV2(&t.Policy) {
			withheld = append(withheld, Withheld{Tool: t.Name, Reason: WithheldV2Reason})
			continue
		}
		d.Tools = append(d.Tools, t)
		used[t.Source] = true
	}
	d.Sources = make([]Source, 0, len(b.Sources))
	for _, s := range b.Sources {
		if used[s.Name] {
			d.Sources = append(d.Sources, s)
		}
	}
	return &d, withheld
}

// Reads reports whether a verifier reading schemas (nil: KnownSchemas)
// reads schema.
func Reads(schemas []string, schema string) bool {
	if schemas == nil {
		schemas = KnownSchemas()
	}
	return slices.Contains(schemas, schema)
}

// ReadsV2 reports whether a runtime's X-Toolgate-Bundle-Schemas value
// (the schemas it reads, comma separated) lists SchemaV2 (doc.go,
// "Rolling upgrade"). It allocates nothing (the 304 fast path calls it).
func ReadsV2(header string) bool {
	for header != "" {
		var s string
		s, header, _ = strings.Cut(header, ",")
		if strings.TrimSpace(s) == SchemaV2 {
			return true
		}
	}
	return false
}
