package openapi

import (
	"encoding/json"
	"regexp"
	"slices"
	"strings"

	"github.com/pb33f/go-yaml"
	"github.com/pb33f/libopenapi"
	"github.com/pb33f/libopenapi/datamodel/high/base"
	v2 "github.com/pb33f/libopenapi/datamodel/high/v2"
)

// fromV2 reads a Swagger 2.0 model, batch by batch of path items as in
// 3.x (fromV3). body and formData parameters become the request body, as
// in 3.x, so everything downstream sees one shape.
func (b *builder) fromV2(doc libopenapi.Document) error {
	return eachBatch(doc, b.rootData, b.batchOps, func(first, _ bool) error {
		d, err := buildV2(doc)
		// As in 3.x (fromV3), a circular schema is bounded, not refused.
		if d == nil || (err != nil && !onlyCircular(err)) {
			return modelError(b.file, err)
		}
		if first {
			b.documentV2(d)
		}
		if d.Paths == nil || d.Paths.PathItems == nil {
			return nil
		}
		for key, item := range d.Paths.PathItems.FromOldest() {
			if b.err != nil {
				break
			}
			if msg := unresolvedOf(item.Extensions); msg != "" {
				b.warnf("path %s: not imported: its path item is %s", key, msg)
				continue
			}
			pathParams := item.Parameters
			pathExt := extensions(item.Extensions)
			for method, op := range item.GetOperations().FromOldest() {
				b.operationV2(d, key, method, op, pathV2{pathParams, pathExt}, b.docSecurity)
			}
		}
		return nil
	})
}

// documentV2 reads what the whole document declares (documentV3).
func (b *builder) documentV2(d *v2.Swagger) {
	b.doc.SpecVersion = d.Swagger
	if d.Info != nil {
		b.doc.Title, b.doc.Version = d.Info.Title, d.Info.Version
	}
	b.doc.Servers = serversV2(d.Schemes, d.Host, d.BasePath)
	if d.SecurityDefinitions != nil && d.SecurityDefinitions.Definitions != nil {
		for name, s := range d.SecurityDefinitions.Definitions.FromOldest() {
			ss := SecurityScheme{Name: name, Type: s.Type, In: s.In, Param: s.Name}
			if s.Type == "basic" {
				ss.Type, ss.Scheme = "http", "basic"
			}
			b.doc.SecuritySchemes = append(b.doc.SecuritySchemes, ss)
		}
		// The library builds 2.0's definitions concurrently, so its map's
		// order varies from one import to the next: put them back in the
		// order of the document, as 3.x's components are.
		if low := d.GoLow(); low != nil {
			order := map[string]int{}
			if n := valueOf(low.SecurityDefinitions.ValueNode); n != nil && n.Kind == yaml.MappingNode {
				for i := 0; i+1 < len(n.Content); i += 2 {
					if _, seen := order[n.Content[i].Value]; !seen {
						order[n.Content[i].Value] = i
					}
				}
			}
			slices.SortStableFunc(b.doc.SecuritySchemes, func(x, y SecurityScheme) int { return order[x.Name] - order[y.Name] })
		}
	}
	b.docSecurity = securityOf(d.Security)
}

// pathV2 is what a 2.0 path item gives each of its operations.
type pathV2 struct {
	params     []*v2.Parameter
	extensions map[string]json.RawMessage
}

func (b *builder) operationV2(d *v2.Swagger, key, method string, op *v2.Operation, path pathV2, docSecurity []SecurityAlternative) {
	o := Operation{
		Method: strings.ToUpper(method), PathKey: key, Path: stripFragment(key),
		OperationID: op.OperationId, Summary: op.Summary, Description: op.Description,
		Tags: op.Tags, Deprecated: op.Deprecated, Servers: b.doc.Servers, Security: docSecurity,
		Extensions: mergeExtensions(path.extensions, extensions(op.Extensions)),
	}
	if o.OperationID == "" {
		o.OperationID, o.OperationIDDerived = derivedOperationID(o.Method, key), true
	}
	if len(op.Schemes) > 0 {
		o.Servers = serversV2(op.Schemes, d.Host, d.BasePath)
	}
	if low := op.GoLow(); low != nil && low.Security.ValueNode != nil {
		o.Security = securityOf(op.Security)
	}
	// Merge raw parameters first so an operation-level body or formData
	// parameter overrides a path-level one like any other.
	all := slices.DeleteFunc(slices.Concat(path.params, op.Parameters), func(p *v2.Parameter) bool { return p == nil })
	for _, p := range all {
		if msg := unresolvedOf(p.Extensions); msg != "" {
			b.dropOperation(o.Method, key, "parameter", msg)
			return
		}
	}
	all = mergeParams(all, func(p *v2.Parameter) string { return p.In + "\x00" + p.Name })
	consumes := op.Consumes
	if len(consumes) == 0 {
		consumes = d.Consumes
	}
	body, form := b.splitParamsV2(&o, all, consumes)
	o.ResponseFields = b.successResponseFieldsV2(op.Responses)
	o.RequestFields, o.RequestEnums = requestBodyFields(body)
	var at *yaml.Node
	if low := op.GoLow(); low != nil {
		at = low.Responses.KeyNode
	}
	b.addOperation(o, body, form, at)
}

// splitParamsV2 sorts an operation's merged 2.0 parameters into o's
// parameters and request body, returning the body's schema: an "in: body"
// parameter's schema, or the formData parameters as the properties of one
// object schema.
func (b *builder) splitParamsV2(o *Operation, params []*v2.Parameter, consumes []string) (*base.SchemaProxy, map[string]any) {
	var body *base.SchemaProxy
	var form map[string]any
	formReq := []string{}
	for _, p := range params {
		switch p.In {
		case "body":
			body = p.Schema
			o.RequestBody = &RequestBody{Required: p.Required != nil && *p.Required}
		case "formData":
			if form == nil {
				form = map[string]any{"type": "object", "properties": map[string]any{}}
			}
			form["properties"].(map[string]any)[p.Name] = paramSchemaV2(p)
			if p.Required != nil && *p.Required {
				formReq = append(formReq, p.Name)
			}
		default:
			o.Parameters = append(o.Parameters, Parameter{
				Name: p.Name, In: p.In, Required: p.Required != nil && *p.Required || p.In == "path",
				Description: p.Description, Schema: b.withDescription(paramSchemaV2(p), p.Description, false),
			})
		}
	}
	if form != nil {
		if len(formReq) > 0 {
			form["required"] = formReq
		}
		o.RequestBody = &RequestBody{Required: len(formReq) > 0, MediaTypes: formMedia(consumes)}
	} else if o.RequestBody != nil {
		o.RequestBody.MediaTypes = consumes
		if len(consumes) == 0 {
			o.RequestBody.MediaTypes = []string{"application/json"}
		}
	}
	return body, form
}

func formMedia(consumes []string) []string {
	var out []string
	for _, c := range consumes {
		if strings.HasPrefix(c, "multipart/form-data") || strings.HasPrefix(c, "application/x-www-form-urlencoded") {
			out = append(out, c)
		}
	}
	if len(out) == 0 {
		out = []string{"application/x-www-form-urlencoded"}
	}
	return out
}

// paramSchemaV2 builds JSON Schema from a 2.0 non-body parameter, whose
// schema keywords sit on the parameter itself.
func paramSchemaV2(p *v2.Parameter) map[string]any {
	s := itemsSchema(p.Type, p.Format, p.Items, p.Enum, p.Pattern)
	setStr(s, "description", p.Description)
	if p.Default != nil {
		s["default"] = nodeValue(p.Default)
	}
	for k, v := range map[string]*int{"minimum": p.Minimum, "maximum": p.Maximum, "minLength": p.MinLength,
		"maxLength": p.MaxLength, "minItems": p.MinItems, "maxItems": p.MaxItems} {
		if v != nil {
			s[k] = *v
		}
	}
	if p.ExclusiveMinimum != nil && *p.ExclusiveMinimum && p.Minimum != nil {
		s["exclusiveMinimum"] = s["minimum"]
		delete(s, "minimum")
	}
	if p.ExclusiveMaximum != nil && *p.ExclusiveMaximum && p.Maximum != nil {
		s["exclusiveMaximum"] = s["maximum"]
		delete(s, "maximum")
	}
	return s
}

func itemsSchema(typ, format string, items *v2.Items, enum []*yaml.Node, pattern string) map[string]any {
	s := map[string]any{}
	switch typ {
	case "file":
		s["type"], s["format"] = "string", "binary"
	case "":
	default:
		s["type"] = typ
	}
	if format != "" && typ != "file" {
		s["format"] = format
	}
	if len(enum) > 0 {
		vals := make([]any, 0, len(enum))
		for _, n := range enum {
			vals = append(vals, nodeValue(n))
		}
		s["enum"] = vals
	}
	if pattern != "" {
		if _, err := regexp.Compile(pattern); err == nil {
			s["pattern"] = pattern
		}
	}
	if typ == "array" && items != nil {
		s["items"] = itemsSchema(items.Type, items.Format, items.Items, items.Enum, items.Pattern)
	}
	return s
}

func serversV2(schemes []string, host, basePath string) []Server {
	if host == "" {
		if basePath == "" {
			return nil
		}
		return []Server{{URL: basePath}}
	}
	if len(schemes) == 0 {
		schemes = []string{"https"}
	}
	out := make([]Server, 0, len(schemes))
	for _, s := range schemes {
		out = append(out, Server{URL: s + "://" + host + basePath})
	}
	return out
}
