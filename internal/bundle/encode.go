package bundle

import (
	"fmt"
	"strconv"
	"time"
)

// This file writes the wire form of a bundle (wire.go) straight into RFC
// 8785 form: members in the order of their names (all ASCII, so byte
// order), the same members,
// omissions and values encoding/json would produce from the struct tags,
// strings and numbers as jcs.go formats them. It gives exactly the bytes of
// json.Marshal followed by an RFC 8785 transform, without building either
// intermediate. A field added to any of these types must be added here:
// TestEncoderMatchesJCSOnRandomBundles fills every field by reflection and
// fails on any difference.

// bundleEncoder appends one bundle; its parser is reused for every input
// schema.
type bundleEncoder struct {
	dst []byte
	jcs jcsParser
	// rawFrom, rawTo are where the last raw value (a tool's input
	// schema: the only one) went in dst, in canonical form.
	rawFrom, rawTo int
	// canonRaw, when set, is written instead of the raw value, which it
	// must be the canonical form of: toolReader.digestMatches passes the
	// schema the tool's re-encoding just canonicalized.
	canonRaw []byte
}

// encodeCanonical returns the canonical bytes of an already normalized
// bundle. sizeHint is the expected size (0 when unknown).
func encodeCanonical(b *wireBundle, sizeHint int) ([]byte, error) {
	e := bundleEncoder{dst: make([]byte, 0, max(sizeHint, 4096))}
	if err := e.bundle(b); err != nil {
		return nil, err
	}
	return e.dst, nil
}

// sizeHint estimates the canonical size of a bundle so the output buffer is
// allocated about once: the input schemas plus about 1 KiB per tool.
func sizeHint(b *wireBundle) int {
	n := 1024
	for i := range b.Tools {
		n += len(b.Tools[i].InputSchema) + 1024
	}
	return n
}

func (e *bundleEncoder) name(first bool, n string) {
	if !first {
		e.dst = append(e.dst, ',')
	}
	e.dst = append(e.dst, '"')
	e.dst = append(e.dst, n...)
	e.dst = append(e.dst, '"', ':')
}

func (e *bundleEncoder) str(s string) { e.dst = appendJSONString(e.dst, s) }
func (e *bundleEncoder) int(v int64)  { e.dst = appendJSONInt(e.dst, v) }
func (e *bundleEncoder) bool(v bool)  { e.dst = strconv.AppendBool(e.dst, v) }
func (e *bundleEncoder) open(c byte)  { e.dst = append(e.dst, c) }
func (e *bundleEncoder) close(c byte) { e.dst = append(e.dst, c) }
func (e *bundleEncoder) null()        { e.dst = append(e.dst, "null"...) }

// comma separates list elements: before every element but the first.
func (e *bundleEncoder) comma(i int) {
	if i > 0 {
		e.dst = append(e.dst, ',')
	}
}

// list writes xs as a JSON array, elem writing each element, or null for a
// nil slice (encoding/json's rule; normalize has already turned the lists
// that must not be null into empty ones).
func list[T any](e *bundleEncoder, xs []T, elem func(*T) error) error {
	if xs == nil {
		e.null()
		return nil
	}
	e.open('[')
	for i := range xs {
		e.comma(i)
		if err := elem(&xs[i]); err != nil {
			return err
		}
	}
	e.close(']')
	return nil
}

func (e *bundleEncoder) time(t time.Time) error {
	// time.Time's MarshalJSON: RFC 3339 with nanoseconds, years 0..9999.
	if y := t.Year(); y < 0 || y > 9999 {
		return fmt.Errorf("time %v: year outside [0,9999]", t)
	}
	e.dst = append(e.dst, '"')
	e.dst = t.AppendFormat(e.dst, time.RFC3339Nano)
	e.dst = append(e.dst, '"')
	return nil
}

func (e *bundleEncoder) bundle(b *wireBundle) error {
	e.open('{')
	e.name(true, "expires_at")
	if err := e.time(b.ExpiresAt); err != nil {
		return err
	}
	e.name(false, "issued_at")
	if err := e.time(b.IssuedAt); err != nil {
		return err
	}
	e.name(false, "schema")
	e.str(b.Schema)
	e.name(false, "sources")
	if err := list(e, b.Sources, e.source); err != nil {
		return err
	}
	e.name(false, "tools")
	if err := list(e, b.Tools, e.tool); err != nil {
		return err
	}
	e.name(false, "version")
	e.int(b.Version)
	e.close('}')
	return nil
}

func (e *bundleEncoder) source(s *wireSource) error {
	e.open('{')
	e.name(true, "auth")
	if err := list(e, s.Auth, e.authScheme); err != nil {
		return err
	}
	e.name(false, "base_path")
	e.str(s.BasePath)
	e.name(false, "name")
	e.str(s.Name)
	e.name(false, "origin")
	e.str(s.Origin)
	e.close('}')
	return nil
}

func (e *bundleEncoder) authScheme(a *wireAuth) error {
	e.open('{')
	first := true
	if a.In != "" {
		e.name(first, "in")
		e.str(a.In)
		first = false
	}
	e.name(first, "name")
	e.str(a.Name)
	if a.Param != "" {
		e.name(false, "param")
		e.str(a.Param)
	}
	if a.Scheme != "" {
		e.name(false, "scheme")
		e.str(a.Scheme)
	}
	e.name(false, "type")
	e.str(a.Type)
	e.close('}')
	return nil
}

// tool writes one tool; its errors name it.
func (e *bundleEncoder) tool(t *wireTool) error {
	if err := e.toolMembers(t); err != nil {
		return fmt.Errorf("tool %q: %w", t.Name, err)
	}
	return nil
}

func (e *bundleEncoder) toolMembers(t *wireTool) error {
	e.open('{')
	e.name(true, "annotations")
	e.annotations(t.Annotations)
	if len(t.Approvals) > 0 {
		e.name(false, "approvals")
		e.open('[')
		for i := range t.Approvals {
			e.comma(i)
			if err := e.approval(&t.Approvals[i]); err != nil {
				return err
			}
		}
		e.close(']')
	}
	if t.Body != nil {
		e.name(false, "body")
		e.body(t.Body)
	}
	e.name(false, "description")
	e.str(t.Description)
	e.name(false, "digest")
	e.str(t.Digest)
	e.name(false, "input_schema")
	if err := e.raw(t.InputSchema); err != nil {
		return fmt.Errorf("input_schema: %w", err)
	}
	e.name(false, "method")
	e.str(t.Method)
	e.name(false, "name")
	e.str(t.Name)
	e.name(false, "params")
	if err := list(e, t.Params, e.param); err != nil {
		return err
	}
	e.name(false, "path")
	e.str(t.Path)
	e.name(false, "policy")
	if err := e.policy(&t.Policy); err != nil {
		return err
	}
	e.name(false, "reasons")
	if err := list(e, t.Reasons, e.reason); err != nil {
		return err
	}
	e.name(false, "risk")
	e.str(t.Risk)
	e.name(false, "source")
	e.str(t.Source)
	e.close('}')
	return nil
}

// raw canonicalizes embedded JSON; like json.RawMessage's own encoding, an
// empty one is null.
func (e *bundleEncoder) raw(r []byte) error {
	if len(r) == 0 {
		e.null()
		return nil
	}
	if e.canonRaw != nil {
		e.dst = append(e.dst, e.canonRaw...)
		return nil
	}
	e.jcs.src, e.jcs.i = r, 0
	out, err := e.jcs.transform(e.dst)
	if err != nil {
		return err
	}
	e.rawFrom, e.rawTo, e.dst = len(e.dst), len(out), out
	return nil
}

func (e *bundleEncoder) annotations(a wireAnnotations) {
	e.open('{')
	e.name(true, "destructiveHint")
	e.bool(a.DestructiveHint)
	e.name(false, "idempotentHint")
	e.bool(a.IdempotentHint)
	e.name(false, "readOnlyHint")
	e.bool(a.ReadOnlyHint)
	e.close('}')
}

func (e *bundleEncoder) approval(a *wireApproval) error {
	e.open('{')
	e.name(true, "approved_at")
	if err := e.time(a.ApprovedAt); err != nil {
		return err
	}
	e.name(false, "approved_by")
	e.str(a.ApprovedBy)
	e.name(false, "change_request")
	e.int(a.ChangeRequest)
	e.name(false, "summary")
	e.str(a.Summary)
	e.close('}')
	return nil
}

func (e *bundleEncoder) body(b *wireBody) {
	e.open('{')
	e.name(true, "arg")
	e.str(b.Arg)
	e.name(false, "media_type")
	e.str(b.MediaType)
	e.name(false, "required")
	e.bool(b.Required)
	e.close('}')
}

func (e *bundleEncoder) param(p *wireParam) error {
	e.open('{')
	e.name(true, "arg")
	e.str(p.Arg)
	e.name(false, "in")
	e.str(p.In)
	e.name(false, "name")
	e.str(p.Name)
	e.name(false, "required")
	e.bool(p.Required)
	e.close('}')
	return nil
}
