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
	d := definition{Name: t.Name, Source: t.Source, Method: t.Method, Path: t.Path, Description: t.Description,
		Params: nonNil(mapList(t.Params, paramToWire)), Body: bodyToWire(t.Body), InputSchema: t.InputSchema,
		Annotations: annotationsToWire(t.Annotations)}
	if src != nil {
		d.Origin, d.BasePath = src.Origin, src.BasePath
	}
	raw, err := canonicalJSON(d)
	if err != nil {
		return "", fmt.Errorf("definition digest of tool %q: %w", t.Name, err)
	}
	sum := sha256.Sum256(raw)
	return DigestPrefix + hex.EncodeToString(sum[:]), nil
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
