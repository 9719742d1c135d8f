package runtimeapi

import (
	"github.com/toolgate/toolgate/internal/bundle"
	"github.com/toolgate/toolgate/internal/store"
)

// Which form of a version a runtime gets (bundle doc.go, "Rolling
// upgrade"): a runtime lists the bundle schemas it reads in
// headerBundleSchemas; one that lists toolgate.bundle/v2 gets the version
// as published, every other — one that sends no header, as every runtime
// from before v2 — gets its toolgate.bundle/v1 form when the version is v2
// (the version without the tools whose policy has groups or conditions).
// A v1 version is one form for all.
const headerBundleSchemas = "X-Toolgate-Bundle-Schemas"

// varyBundle is the Vary of every bundle answer, 304s included (STYLE
// habit 17): a cache in front of the console must not hand one form to a
// runtime that asked for the other. Prefer too (RFC 7240 §2): a wait
// asked for changes when the answer comes and its Preference-Applied.
const varyBundle = headerBundleSchemas + ", " + headerPrefer

var fastVary = []string{varyBundle}

// formFor returns the form of b a runtime sending this headerBundleSchemas
// value reads: b itself, or its v1 form.
func (b *servedBundle) formFor(schemas string) *servedBundle {
	if b.v1Form == nil || bundle.ReadsV2(schemas) {
		return b
	}
	return b.v1Form
}

// servedV1Form is the served form of a version's downgrade (nil when the
// version has none).
func servedV1Form(d *store.BundleDowngrade, versionText string) *servedBundle {
	if d == nil {
		return nil
	}
	f := &servedBundle{version: d.Version, versionText: versionText, etag: d.ETag, signed: []byte(d.Signed)}
	f.etagHeader = []string{d.ETag}
	f.etagBytes, f.versionBytes = []byte(d.ETag), []byte(versionText)
	return f
}

// recordForm is formFor for a version read from the store
// (GET /api/v1/bundles/{version}): its ETag and signed bytes.
func recordForm(rec *store.BundleRecord, schemas string) (etag string, signed []byte) {
	if d := rec.Downgrade; d != nil && !bundle.ReadsV2(schemas) {
		return d.ETag, []byte(d.Signed)
	}
	return rec.ETag, []byte(rec.Signed)
}
