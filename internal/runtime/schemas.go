package runtime

import (
	"fmt"
	"slices"
	"strings"

	"github.com/toolgate/toolgate/internal/bundle"
)

// The bundle schemas a runtime reads (Options.BundleSchemas) and what
// follows from them during a rolling upgrade (bundle doc.go, "Rolling
// upgrade").

// schemasHeader is the HeaderBundleSchemas value for schemas (nil: every
// schema this release reads). A runtime that reads only v1 sends none,
// exactly as a runtime from before v2 does.
func schemasHeader(schemas []string) string {
	if schemas == nil {
		schemas = bundle.KnownSchemas()
	}
	if slices.Equal(schemas, []string{bundle.SchemaV1}) {
		return ""
	}
	return strings.Join(schemas, ", ")
}

// lastVersion is the version a fetched bundle must be newer than. A
// runtime that reads v2 and runs the v1 form of version N (fetched before
// it was upgraded, or from a console that served it that form) takes the
// v2 form of N too: the same version, with the tools the v1 form left
// out. acceptableForm then refuses any other bundle of version N.
func (r *Runtime) lastVersion(cur *snapshot) int64 {
	if cur == nil {
		return 0
	}
	if cur.bundle.Schema == bundle.SchemaV1 && bundle.Reads(r.opts.BundleSchemas, bundle.SchemaV2) {
		return cur.bundle.Version - 1
	}
	return cur.bundle.Version
}

// acceptableForm refuses a bundle of the version in force unless it is
// that version's v2 form replacing its v1 form (lastVersion).
func acceptableForm(b *bundle.Bundle, cur *snapshot) bool {
	return cur == nil || b.Version != cur.bundle.Version ||
		cur.bundle.Schema == bundle.SchemaV1 && b.Schema == bundle.SchemaV2
}

// validateSchemas refuses a schema list this release cannot read: one it
// does not know, or an empty one (nil is every schema).
func validateSchemas(schemas []string) error {
	if schemas != nil && len(schemas) == 0 {
		return fmt.Errorf("bundle schemas: the list is empty (want some of %s)", strings.Join(bundle.KnownSchemas(), ", "))
	}
	for _, s := range schemas {
		if !slices.Contains(bundle.KnownSchemas(), s) {
			return fmt.Errorf("bundle schemas: %q is not one this release reads (%s)", s, strings.Join(bundle.KnownSchemas(), ", "))
		}
	}
	return nil
}
