package bundle

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
)

// DigestPrefix names the hash of a definition digest.
const DigestPrefix = "sha256:"

// definition is everything an agent reads or sends through one tool (R13):
// what tools/list shows (name, description, input schema, annotations) and
// where a call goes (source, origin, base path, method, path template,
// parameter locations, body). Policy values (timeouts, retry) and the risk
// assessment are not in it: they decide how a call is run, not what the
// agent is told or what it sends. A field of Tool must be listed here or in
// digestExcluded (TestDefinitionCoversEveryToolField).
type definition struct {
	Name        string          `json:"name"`
	Source      string          `json:"source"`
	Origin      string          `json:"origin"`
	BasePath    string          `json:"base_path"`
	Method      string          `json:"method"`
	Path        string          `json:"path"`
	Description string          `json:"description"`
	Params      []wireParam     `json:"params"`
	Body        *wireBody       `json:"body"`
	InputSchema json.RawMessage `json:"input_schema"`
	Annotations wireAnnotations `json:"annotations"`
}

// digestExcluded are the Tool fields deliberately left out of the digest.
var digestExcluded = []string{"Risk", "Reasons", "Policy", "Approvals", "Digest"}

// DefinitionDigest is a tool's definition digest (R13): "sha256:" and the
// lower-case hex SHA-256 of the RFC 8785 form of the object
//
//	{name, source, origin, base_path, method, path, description, params,
//	 body (null when absent), input_schema, annotations}
//
// with the values the bundle's tool and its source carry (params [] when
// empty). The console pins approvals and change requests with it, and every
// bundle tool carries it, so anyone can check that what an agent is served
// is what was approved. An input schema that is not JSON has no digest.
func DefinitionDigest(t *Tool, src *Source) (string, error) {
	e := bundleEncoder{dst: make([]byte, 0, len(t.InputSchema)+512)}
	if err := e.definition(t, src); err != nil {
		return "", fmt.Errorf("definition digest of tool %q: %w", t.Name, err)
	}
	sum := sha256.Sum256(e.dst)
	return DigestPrefix + hex.EncodeToString(sum[:]), nil
}

// definition writes the definition object of a tool in canonical form,
// as the bundle encoder writes a tool: the bytes of canonicalJSON(
// definitionOf(t, src)) without encoding/json (it was most of the time of
// validating a bundle). TestDefinitionEncoderMatchesReference compares the
// two on random tools.
func (e *bundleEncoder) definition(t *Tool, src *Source) error {
	var origin, basePath string
	if src != nil {
		origin, basePath = src.Origin, src.BasePath
	}
	e.open('{')
	e.name(true, "annotations")
	e.annotations(annotationsToWire(t.Annotations))
	e.name(false, "base_path")
	e.str(basePath)
	e.name(false, "body")
	if b := bodyToWire(t.Body); b == nil {
		e.null()
	} else {
		e.body(b)
	}
	e.name(false, "description")
	e.str(t.Description)
	e.name(false, "input_schema")
	if err := e.raw(t.InputSchema); err != nil {
		return fmt.Errorf("input_schema: %w", err)
	}
	e.name(false, "method")
	e.str(t.Method)
	e.name(false, "name")
	e.str(t.Name)
	e.name(false, "origin")
	e.str(origin)
	e.name(false, "params")
	e.open('[')
	for i := range t.Params {
		e.comma(i)
		p := paramToWire(&t.Params[i])
		_ = e.param(&p)
	}
	e.close(']')
	e.name(false, "path")
	e.str(t.Path)
	e.name(false, "source")
	e.str(t.Source)
	e.close('}')
	return nil
}

// BuildTool is the Tool Build would put in a bundle for in, digest
// included, without the R10 gate or the rest of the bundle: what the
// console hands to the executor's compile step before publishing.
func BuildTool(in ToolInput, src Source) (Tool, error) {
	t := buildTool(in)
	d, err := DefinitionDigest(&t, &src)
	t.Digest = d
	return t, err
}
