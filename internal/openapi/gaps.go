package openapi

import (
	"github.com/pb33f/go-yaml"
	"github.com/pb33f/libopenapi/orderedmap"
)

// unresolvedOf returns the warning the ref checker left in place of a $ref
// it did not follow (see unresolvedKey), or "".
func unresolvedOf(ext *orderedmap.Map[string, *yaml.Node]) string {
	if ext == nil {
		return ""
	}
	if n := ext.GetOrZero(unresolvedKey); n != nil {
		return n.Value
	}
	return ""
}

// dropOperation reports an operation that cannot be imported because an
// object it needs (a parameter, its request body) is an unresolved $ref.
func (b *builder) dropOperation(method, pathKey, what, why string) {
	b.warnf("%s %s: not imported: its %s is %s", method, pathKey, what, why)
}

// overBudget records the schema-budget refusal once the input schemas built
// so far pass Options.MaxTotalSchemaBytes; the walk stops at b.err.
func (b *builder) overBudget(o *Operation, at *yaml.Node) {
	b.schemaBytes += int64(len(o.InputSchema))
	if limit := b.opts.maxTotalSchemaBytes(); b.schemaBytes > limit && b.err == nil {
		line, col := 0, 0
		if at != nil {
			line, col = at.Line, at.Column
		}
		b.err = importErr(KindSchemaBudget, b.file, line, col,
			"the input schemas expand to more than %d bytes by %s %s (%d operations in): refused", limit, o.Method, o.PathKey, len(b.doc.Operations)+1)
	}
}
