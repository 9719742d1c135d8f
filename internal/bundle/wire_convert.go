package bundle

import (
	"fmt"

	"github.com/toolgate/toolgate/internal/risk"
)

// Conversions between the domain types and the wire types, one function per
// pair and every field named: a domain field added without a line here
// fails TestWireConversionCoversEveryField. Lists keep nil as nil and empty
// as empty, so that what normalize decided (null retry_on is refused, the
// other lists are []) is what gets encoded.

// toWire converts a bundle for encoding. It fails only on a risk class
// that has no name.
func toWire(b *Bundle) (*wireBundle, error) {
	w := &wireBundle{Schema: b.Schema, Version: b.Version, IssuedAt: b.IssuedAt, ExpiresAt: b.ExpiresAt,
		Sources: mapList(b.Sources, sourceToWire)}
	if b.Tools != nil {
		w.Tools = make([]wireTool, len(b.Tools))
		for i := range b.Tools {
			if err := toolToWire(&b.Tools[i], &w.Tools[i]); err != nil {
				return nil, fmt.Errorf("tool %q: %w", b.Tools[i].Name, err)
			}
		}
	}
	return w, nil
}

// fromWire converts a decoded payload. It fails on a risk class name this
// runtime does not know.
func fromWire(w *wireBundle) (*Bundle, error) {
	b := &Bundle{Schema: w.Schema, Version: w.Version, IssuedAt: w.IssuedAt, ExpiresAt: w.ExpiresAt,
		Sources: mapList(w.Sources, sourceFromWire)}
	if w.Tools != nil {
		b.Tools = make([]Tool, len(w.Tools))
		for i := range w.Tools {
			if err := toolFromWire(&w.Tools[i], &b.Tools[i]); err != nil {
				return nil, fmt.Errorf("tool %q: %w", w.Tools[i].Name, err)
			}
		}
	}
	return b, nil
}

// mapList converts a list element by element; nil stays nil.
func mapList[S, D any](xs []S, conv func(*S) D) []D {
	if xs == nil {
		return nil
	}
	out := make([]D, len(xs))
	for i := range xs {
		out[i] = conv(&xs[i])
	}
	return out
}

func sourceToWire(s *Source) wireSource {
	return wireSource{Name: s.Name, Origin: s.Origin, BasePath: s.BasePath, Auth: mapList(s.Auth, authToWire)}
}

func sourceFromWire(s *wireSource) Source {
	return Source{Name: s.Name, Origin: s.Origin, BasePath: s.BasePath, Auth: mapList(s.Auth, authFromWire)}
}

func authToWire(a *AuthScheme) wireAuth {
	return wireAuth{Name: a.Name, Type: a.Type, Scheme: a.Scheme, In: a.In, Param: a.Param}
}

func authFromWire(a *wireAuth) AuthScheme {
	return AuthScheme{Name: a.Name, Type: a.Type, Scheme: a.Scheme, In: a.In, Param: a.Param}
}

func toolToWire(t *Tool, w *wireTool) error {
	class, err := t.Risk.MarshalText()
	if err != nil {
		return err
	}
	reasons, err := reasonsToWire(t.Reasons)
	if err != nil {
		return err
	}
	*w = wireTool{Name: t.Name, Source: t.Source, Method: t.Method, Path: t.Path, Description: t.Description,
		Params: mapList(t.Params, paramToWire), Body: bodyToWire(t.Body), InputSchema: t.InputSchema,
		Risk: string(class), Reasons: reasons, Annotations: annotationsToWire(t.Annotations),
		Policy: policyToWire(&t.Policy), Approvals: mapList(t.Approvals, approvalToWire), Digest: t.Digest}
	return nil
}

func toolFromWire(w *wireTool, t *Tool) error {
	class, err := classFromWire(w.Risk)
	if err != nil {
		return fmt.Errorf("risk: %w", err)
	}
	reasons, err := reasonsFromWire(w.Reasons)
	if err != nil {
		return err
	}
	*t = Tool{Name: w.Name, Source: w.Source, Method: w.Method, Path: w.Path, Description: w.Description,
		Params: mapList(w.Params, paramFromWire), Body: bodyFromWire(w.Body), InputSchema: w.InputSchema,
		Risk: class, Reasons: reasons, Annotations: annotationsFromWire(w.Annotations),
		Policy: policyFromWire(&w.Policy), Approvals: mapList(w.Approvals, approvalFromWire), Digest: w.Digest}
	return nil
}

// classFromWire reads a class name exactly as the encoder writes it (upper
// case): the payload must be its own canonical form anyway.
func classFromWire(s string) (risk.Class, error) {
	for _, c := range risk.Classes {
		if s == c.String() {
			return c, nil
		}
	}
	return 0, fmt.Errorf("unknown risk class %q (want READ, WRITE, DESTRUCTIVE or PRIVILEGED)", s)
}

func reasonsToWire(rs []risk.Reason) ([]wireReason, error) {
	if rs == nil {
		return nil, nil
	}
	out := make([]wireReason, len(rs))
	for i, r := range rs {
		class, err := r.Class.MarshalText()
		if err != nil {
			return nil, fmt.Errorf("reason %q: %w", r.Code, err)
		}
		out[i] = wireReason{Code: r.Code, Class: string(class), Text: r.Text}
	}
	return out, nil
}

func reasonsFromWire(rs []wireReason) ([]risk.Reason, error) {
	if rs == nil {
		return nil, nil
	}
	out := make([]risk.Reason, len(rs))
	for i, r := range rs {
		class, err := classFromWire(r.Class)
		if err != nil {
			return nil, fmt.Errorf("reason %q: %w", r.Code, err)
		}
		out[i] = risk.Reason{Code: r.Code, Class: class, Text: r.Text}
	}
	return out, nil
}

func paramToWire(p *Param) wireParam {
	return wireParam{Name: p.Name, In: p.In, Arg: p.Arg, Required: p.Required}
}

func paramFromWire(p *wireParam) Param {
	return Param{Name: p.Name, In: p.In, Arg: p.Arg, Required: p.Required}
}

func bodyToWire(b *Body) *wireBody {
	if b == nil {
		return nil
	}
	return &wireBody{Arg: b.Arg, Required: b.Required, MediaType: b.MediaType}
}

func bodyFromWire(b *wireBody) *Body {
	if b == nil {
		return nil
	}
	return &Body{Arg: b.Arg, Required: b.Required, MediaType: b.MediaType}
}

func annotationsToWire(a Annotations) wireAnnotations {
	//lint:ignore S1016 the wire mapping names every field, so a change to the domain type cannot reach the wire unseen
	return wireAnnotations{ReadOnlyHint: a.ReadOnlyHint, DestructiveHint: a.DestructiveHint, IdempotentHint: a.IdempotentHint}
}

func annotationsFromWire(a wireAnnotations) Annotations {
	//lint:ignore S1016 the wire mapping names every field, so a change to the domain type cannot reach the wire unseen
	return Annotations{ReadOnlyHint: a.ReadOnlyHint, DestructiveHint: a.DestructiveHint, IdempotentHint: a.IdempotentHint}
}

func approvalToWire(a *Approval) wireApproval {
	return wireApproval{ChangeRequest: a.ChangeRequest, ApprovedBy: a.ApprovedBy, ApprovedAt: a.ApprovedAt, Summary: a.Summary}
}

func approvalFromWire(a *wireApproval) Approval {
	return Approval{ChangeRequest: a.ChangeRequest, ApprovedBy: a.ApprovedBy, ApprovedAt: a.ApprovedAt, Summary: a.Summary}
}
