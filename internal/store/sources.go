package store

import (
	"context"
	"errors"
	"time"

	"github.com/jmoiron/sqlx"

	"github.com/toolgate/toolgate/internal/apperr"
	"github.com/toolgate/toolgate/internal/audit"
	"github.com/toolgate/toolgate/internal/importer"
	"github.com/toolgate/toolgate/internal/openapi"
	"github.com/toolgate/toolgate/internal/risk"
)

// Source is one imported API description with counts of its tools.
type Source struct {
	ID             int64
	Name           string
	Title          string
	APIVersion     string
	SpecVersion    string
	Origin         string
	BasePath       string
	Warnings       []string
	Skipped        []openapi.Skipped
	DocumentSHA256 string
	Revision       int64
	ImportedAt     time.Time
	ImportedBy     string
	// Counts has the tools in the document by class in force; Removed and
	// Exposed count the kept-but-removed and the exposed tools.
	Counts  map[risk.Class]int
	Removed int
	Exposed int
}

// Total is the number of tools in the current document.
func (s *Source) Total() int {
	n := 0
	for _, c := range s.Counts {
		n += c
	}
	return n
}

// SubjectSource is the audit subject of the source called name.
func SubjectSource(name string) string { return "source:" + name }

// SourceImport is one import of an API description into a source.
type SourceImport struct {
	Name string
	// Origin overrides the stored origin and the document's own server;
	// it is required when neither exists.
	Origin         string
	Doc            *openapi.Document
	DocumentSHA256 string
	// BaseRevision is the revision the caller showed the diff against: 0
	// for a source that does not exist yet. If the source moved on since,
	// the import is a Conflict, so nobody applies a diff they did not see.
	BaseRevision int64
	// ConfirmedDefinitions names the exposed READ/WRITE tools whose new
	// definition the person importing confirmed (importer.Plan.ToConfirm);
	// an import that changes one not named here is refused (R13).
	ConfirmedDefinitions []string
}

// ImportPreview is what importing a document would do, without doing it.
type ImportPreview struct {
	Source *Source // nil for a new source
	Plan   *importer.Plan
	// BaseRevision goes back into SourceImport when the diff is applied.
	BaseRevision int64
	Origin       string
}

// ImportResult is what an applied import did.
type ImportResult struct {
	Source *Source
	Plan   *importer.Plan
}

// PreviewImport plans importing doc into the source called name (new or
// existing) without changing anything.
func (db *DB) PreviewImport(ctx context.Context, name, origin string, doc *openapi.Document) (*ImportPreview, error) {
	var out *ImportPreview
	err := db.readTx(ctx, "preview import", func(tx *sqlx.Tx) error {
		var err error
		out, err = planImport(ctx, tx, SourceImport{Name: name, Origin: origin, Doc: doc})
		return err
	})
	return out, err
}

// ImportSource creates or re-imports a source: tools are added with
// default policies from the project defaults, restored, changed, removed
// (kept with removed_at, unexposed) or suspended as the plan says, and the
// import is audited as "source.import" with counts before and after, plus
// one entry per changed or suspended tool.
//
// The plan (classification, naming, diffing, encoding every operation) is
// built from a read-only snapshot before the write transaction, which only
// writes: a 1,000-operation import holds the write lock for its inserts,
// not for its computing. The write transaction first re-reads a stamp of
// everything the plan depended on; if another import, policy edit or
// approval changed it meanwhile, the import is a Conflict and nothing is
// written.
func (db *DB) ImportSource(ctx context.Context, actor string, in SourceImport) (*ImportResult, error) {
	var pv *ImportPreview
	var stamp string
	err := db.readTx(ctx, "plan import", func(tx *sqlx.Tx) error {
		var err error
		if pv, err = planImport(ctx, tx, in); err != nil {
			return err
		}
		stamp, err = importStamp(ctx, tx, in.Name)
		return err
	})
	if err != nil {
		return nil, err
	}
	if pv.BaseRevision != in.BaseRevision {
		return nil, apperr.Conflictf("The source %s was imported again (revision %d) after this diff was shown against revision %d. Upload the document again to see the current diff.",
			in.Name, pv.BaseRevision, in.BaseRevision)
	}
	if err := unconfirmed(pv.Plan, in.ConfirmedDefinitions); err != nil {
		return nil, err
	}
	in.Origin = pv.Origin
	cols, err := planColumns(pv.Plan)
	if err != nil {
		return nil, err
	}
	var out *ImportResult
	err = db.inTx(ctx, "import source", func(tx *sqlx.Tx) error {
		now, err := importStamp(ctx, tx, in.Name)
		if err != nil {
			return err
		}
		if now != stamp {
			return apperr.Conflictf("The source %s or the project's tools changed while this import was being prepared. Import the document again.", in.Name)
		}
		src, err := db.writeSource(ctx, tx, actor, in, pv.Source)
		if err != nil {
			return err
		}
		q := db.auditQueue()
		if err := db.applyPlan(ctx, tx, q, actor, src, pv.Plan, cols); err != nil {
			return err
		}
		after, err := sourceByName(ctx, tx, in.Name)
		if err != nil {
			return err
		}
		q.add(audit.Entry{Actor: actor, Action: "source.import", Subject: SubjectSource(in.Name),
			Before: auditJSON(sourceAudit(pv.Source, nil)), After: auditJSON(sourceAudit(after, pv.Plan))})
		if err := q.flush(ctx, tx); err != nil {
			return err
		}
		out = &ImportResult{Source: after, Plan: pv.Plan}
		return nil
	})
	return out, err
}

// planImport validates the import and builds its plan against the stored
// tools and the project's tool names.
func planImport(ctx context.Context, tx *sqlx.Tx, in SourceImport) (*ImportPreview, error) {
	if !importer.SourceNamePattern.MatchString(in.Name) {
		return nil, apperr.Invalidf("The source name %q must be 1 to 40 lower-case letters, digits, '-' or '_', starting with a letter or digit.", in.Name)
	}
	if in.Doc == nil {
		return nil, apperr.Invalidf("There is no document to import.")
	}
	pv := &ImportPreview{}
	src, err := sourceByName(ctx, tx, in.Name)
	switch {
	case apperr.CodeOf(err) == apperr.NotFound:
	case err != nil:
		return nil, err
	default:
		pv.Source, pv.BaseRevision = src, src.Revision
	}
	if pv.Origin, err = chooseOrigin(in, pv.Source); err != nil {
		return nil, err
	}
	var stored []importer.Stored
	if src != nil {
		if stored, err = storedTools(ctx, tx, src.ID); err != nil {
			return nil, err
		}
	}
	names, err := projectToolNames(ctx, tx)
	if err != nil {
		return nil, err
	}
	pv.Plan = importer.Build(in.Name, in.Doc, stored, func(n string) bool { return names[n] })
	if err := pinDefinitions(ctx, tx, pv, in); err != nil {
		return nil, err
	}
	return pv, nil
}

// chooseOrigin picks the origin: the one given, else the stored one, else
// the document's absolute server. One of them must exist and be valid.
func chooseOrigin(in SourceImport, cur *Source) (string, error) {
	origin := in.Origin
	if origin == "" && cur != nil {
		origin = cur.Origin
	}
	if origin == "" {
		origin = in.Doc.Origin
	}
	if origin == "" {
		return "", apperr.Invalidf("The document names no absolute server URL: give the origin (scheme://host[:port]) the API is served from.")
	}
	o, err := importer.NormalizeOrigin(origin)
	if err != nil {
		return "", errors.Join(apperr.Invalidf("Origin: %s.", err.Error()), err)
	}
	return o, nil
}

// sourceAudit is the part of a source recorded in the audit log: identity,
// revision and counts, plus what the plan did (after only).
func sourceAudit(s *Source, p *importer.Plan) any {
	if s == nil {
		return nil
	}
	counts := map[string]int{}
	for c, n := range s.Counts {
		counts[c.String()] = n
	}
	out := map[string]any{"title": s.Title, "origin": s.Origin, "revision": s.Revision, "sha256": s.DocumentSHA256,
		"tools": s.Total(), "by_class": counts, "removed": s.Removed, "exposed": s.Exposed}
	if p != nil {
		names := func(k importer.Kind) []string {
			var out []string
			for _, c := range p.Of(k) {
				out = append(out, c.Tool)
			}
			return out
		}
		out["added"], out["restored"] = names(importer.Added), names(importer.Restored)
		out["changed"], out["removed_now"] = names(importer.Changed), names(importer.Removed)
		var suspended, redefined []string
		for _, c := range p.Suspended() {
			suspended = append(suspended, c.Tool)
		}
		for _, c := range p.Changes {
			if c.Definition != nil {
				redefined = append(redefined, c.Tool)
			}
		}
		out["suspended"], out["definition_changed"] = suspended, redefined
	}
	return out
}
