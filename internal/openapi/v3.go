package openapi

import (
	"cmp"
	"slices"
	"strings"

	"github.com/pb33f/go-yaml"
	"github.com/pb33f/libopenapi"
	"github.com/pb33f/libopenapi/datamodel/high/base"
	v3 "github.com/pb33f/libopenapi/datamodel/high/v3"
	"github.com/pb33f/libopenapi/orderedmap"
)

// onlyCircular reports whether every error libopenapi joined is about a
// circular schema reference, which toolgate bounds instead of refusing.
func onlyCircular(err error) bool {
	for _, line := range strings.Split(strings.TrimSpace(err.Error()), "\n") {
		if !strings.Contains(line, "circular reference") {
			return false
		}
	}
	return true
}

// fromV3 reads an OpenAPI 3.0/3.1 model, batch by batch of path items
// (eachBatch): the document's parts are read from the first batch's model,
// the webhooks from the last, so the order of what is read is the order of
// a model built whole.
func (b *builder) fromV3(doc libopenapi.Document) error {
	return eachBatch(doc, b.rootData, b.batchOps, func(first, last bool) error {
		m, err := buildV3(doc)
		if m == nil || (err != nil && !onlyCircular(err)) {
			return modelError(b.file, err)
		}
		// libopenapi reports circular schemas as errors but still builds
		// the model; input schemas bound that recursion, so only a missing
		// model is fatal.
		if first {
			b.documentV3(m)
		}
		if m.Paths != nil && m.Paths.PathItems != nil {
			for key, item := range m.Paths.PathItems.FromOldest() {
				if b.err != nil {
					break
				}
				b.pathItemV3(key, item, b.docSecurity, b.doc.Servers)
			}
		}
		if last && m.Webhooks != nil {
			for name, item := range m.Webhooks.FromOldest() {
				for method := range item.GetOperations().FromOldest() {
					b.doc.Skipped = append(b.doc.Skipped, Skipped{Kind: "webhook", Name: name,
						Method: strings.ToUpper(method), Reason: "webhooks are requests the API sends, not operations an agent calls"})
				}
			}
		}
		return nil
	})
}

// documentV3 reads what the whole document declares: version, info,
// servers, security schemes and the default security.
func (b *builder) documentV3(d *v3.Document) {
	b.doc.SpecVersion = d.Version
	if d.Info != nil {
		b.doc.Title, b.doc.Version = d.Info.Title, d.Info.Version
	}
	b.doc.Servers = serversV3(d.Servers)
	if d.Components != nil && d.Components.SecuritySchemes != nil {
		for name, s := range d.Components.SecuritySchemes.FromOldest() {
			b.doc.SecuritySchemes = append(b.doc.SecuritySchemes, SecurityScheme{
				Name: name, Type: s.Type, Scheme: strings.ToLower(s.Scheme), In: s.In, Param: s.Name,
			})
		}
	}
	b.docSecurity = securityOf(d.Security)
}

func (b *builder) pathItemV3(key string, item *v3.PathItem, docSecurity []SecurityAlternative, docServers []Server) {
	if msg := unresolvedOf(item.Extensions); msg != "" {
		b.warnf("path %s: not imported: its path item is %s", key, msg)
		return
	}
	pathParams, pathGaps, pathBroken := b.paramsV3(item.Parameters)
	pathExt := extensions(item.Extensions)
	servers := docServers
	if len(item.Servers) > 0 {
		servers = serversV3(item.Servers)
	}
	for method, op := range item.GetOperations().FromOldest() {
		opParams, opGaps, opBroken := b.paramsV3(op.Parameters)
		if broken := cmp.Or(pathBroken, opBroken); broken != "" {
			b.dropOperation(strings.ToUpper(method), key, "parameter", broken)
			continue
		}
		if op.RequestBody != nil {
			if msg := unresolvedOf(op.RequestBody.Extensions); msg != "" {
				b.dropOperation(strings.ToUpper(method), key, "request body", msg)
				continue
			}
		}
		o := Operation{
			Method:      strings.ToUpper(method),
			PathKey:     key,
			Path:        stripFragment(key),
			OperationID: op.OperationId,
			Summary:     op.Summary,
			Description: op.Description,
			Tags:        op.Tags,
			Deprecated:  op.Deprecated != nil && *op.Deprecated,
			Parameters:  mergeParams(slices.Concat(pathParams, opParams), paramKey),
			SchemaGaps:  slices.Concat(pathGaps, opGaps),
			Servers:     servers,
			Security:    docSecurity,
			Extensions:  mergeExtensions(pathExt, extensions(op.Extensions)),
		}
		if o.OperationID == "" {
			o.OperationID, o.OperationIDDerived = derivedOperationID(o.Method, key), true
		}
		if len(op.Servers) > 0 {
			o.Servers = serversV3(op.Servers)
		}
		// An explicit `security` key, even `[]`, replaces the document's.
		if low := op.GoLow(); low != nil && low.Security.ValueNode != nil {
			o.Security = securityOf(op.Security)
		}
		var bodySchema *base.SchemaProxy
		if rb := op.RequestBody; rb != nil {
			o.RequestBody, bodySchema = requestBodyV3(rb)
		}
		o.ResponseFields = b.successResponseFieldsV3(op.Responses)
		o.RequestFields, o.RequestEnums = requestBodyFields(bodySchema)
		var at *yaml.Node
		if low := op.GoLow(); low != nil {
			at = low.KeyNode
		}
		b.addOperation(o, bodySchema, nil, at)
		if op.Callbacks != nil {
			for name, cb := range op.Callbacks.FromOldest() {
				b.skipCallbacks(name, cb)
			}
		}
	}
}

func (b *builder) skipCallbacks(name string, cb *v3.Callback) {
	if cb == nil || cb.Expression == nil {
		return
	}
	for _, item := range cb.Expression.FromOldest() {
		for method := range item.GetOperations().FromOldest() {
			b.doc.Skipped = append(b.doc.Skipped, Skipped{Kind: "callback", Name: name,
				Method: strings.ToUpper(method), Reason: "callbacks are requests the API sends, not operations an agent calls"})
		}
	}
}

// paramsV3 converts parameters; gaps lists what their schemas left
// unconstrained, and broken is the warning of a parameter that is itself an
// unresolved $ref (the operations using it are not imported).
func (b *builder) paramsV3(in []*v3.Parameter) (out []Parameter, gaps []string, broken string) {
	out = make([]Parameter, 0, len(in))
	for _, p := range in {
		if p == nil {
			continue
		}
		if msg := unresolvedOf(p.Extensions); msg != "" {
			return nil, nil, msg
		}
		if p.Name == "" {
			continue
		}
		sp := p.Schema
		if sp == nil && p.Content != nil {
			for _, mt := range p.Content.FromOldest() {
				sp = mt.Schema
				break
			}
		}
		schema, g := b.paramSchema(sp, p.Description)
		gaps = append(gaps, g...)
		out = append(out, Parameter{
			Name: p.Name, In: p.In, Required: p.Required != nil && *p.Required || p.In == "path",
			Description: p.Description, Style: p.Style,
			// A copy: the model's pointer would keep the batch's model,
			// and through it the node tree, alive (eachBatch).
			Explode: cloneBool(p.Explode),
			Schema:  schema,
		})
	}
	return out, gaps, ""
}

func cloneBool(b *bool) *bool {
	if b == nil {
		return nil
	}
	v := *b
	return &v
}

func requestBodyV3(rb *v3.RequestBody) (*RequestBody, *base.SchemaProxy) {
	out := &RequestBody{Required: rb.Required != nil && *rb.Required}
	var first, firstJSON *base.SchemaProxy
	seenJSON := false
	if rb.Content != nil {
		for mt, media := range rb.Content.FromOldest() {
			out.MediaTypes = append(out.MediaTypes, mt)
			if first == nil {
				first = media.Schema
			}
			if !seenJSON && isJSONMedia(mt) {
				firstJSON, seenJSON = media.Schema, true
			}
		}
	}
	if seenJSON {
		return out, firstJSON
	}
	return out, first
}

func isJSONMedia(mt string) bool {
	mt = strings.ToLower(mt)
	return strings.HasPrefix(mt, "application/json") || strings.Contains(mt, "+json")
}

func serversV3(in []*v3.Server) []Server {
	out := make([]Server, 0, len(in))
	for _, s := range in {
		out = append(out, Server{URL: s.URL, Description: s.Description, Variables: serverVars(s.Variables)})
	}
	return out
}

func serverVars(m *orderedmap.Map[string, *v3.ServerVariable]) map[string]string {
	if m == nil || m.Len() == 0 {
		return nil
	}
	out := make(map[string]string, m.Len())
	for k, v := range m.FromOldest() {
		out[k] = v.Default
	}
	return out
}

// stripFragment removes a "#variant" suffix Box puts on path keys.
func stripFragment(key string) string {
	if i := strings.IndexByte(key, '#'); i >= 0 {
		return key[:i]
	}
	return key
}
