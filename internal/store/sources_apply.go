package store

import (
	"context"
	"fmt"

	"github.com/jmoiron/sqlx"

	"github.com/toolgate/toolgate/internal/audit"
	"github.com/toolgate/toolgate/internal/importer"
	"github.com/toolgate/toolgate/internal/risk"
)

// writeSource inserts the source row or updates it for a re-import,
// bumping its revision.
func (db *DB) writeSource(ctx context.Context, tx *sqlx.Tx, actor string, in SourceImport, cur *Source) (int64, error) {
	d := in.Doc
	args := []any{d.Title, d.Version, d.SpecVersion, in.Origin, d.BasePath, auditJSON(nonNil(d.SecuritySchemes)),
		auditJSON(nonNil(d.Warnings)), auditJSON(nonNil(d.Skipped)), in.DocumentSHA256, formatTime(db.Now()), actor}
	if cur == nil {
		var id int64
		if err := tx.GetContext(ctx, &id, `INSERT INTO sources (title, api_version, spec_version, origin, base_path,
			security_schemes_json, warnings_json, skipped_json, document_sha256, imported_at, imported_by, name)
			VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) RETURNING id`, append(args, in.Name)...); err != nil {
			return 0, fmt.Errorf("insert source: %w", err)
		}
		return id, nil
	}
	_, err := tx.ExecContext(ctx, `UPDATE sources SET title = ?, api_version = ?, spec_version = ?, origin = ?,
		base_path = ?, security_schemes_json = ?, warnings_json = ?, skipped_json = ?, document_sha256 = ?,
		imported_at = ?, imported_by = ?, revision = revision + 1 WHERE id = ?`, append(args, cur.ID)...)
	if err != nil {
		return 0, fmt.Errorf("update source: %w", err)
	}
	return cur.ID, nil
}

// nonNil keeps empty lists as [] rather than null in stored JSON.
func nonNil[T any](s []T) []T {
	if s == nil {
		return []T{}
	}
	return s
}

// applyPlan writes every change, in a few statements per kind of change
// rather than a few per tool (on PostgreSQL each is a round trip while the
// write lock is held): the stored tools are read once, the tools the
// document still has are updated and the removed ones marked (updates
// first: a moved operation frees its old op key before a new operation may
// take it), then what each change records (audit entries, void requests)
// follows in plan order, the suspensions are written together, and the
// added tools are inserted last. Audit entries go to q, flushed by the caller.
// planned holds every tool's columns, encoded before the transaction
// (planColumns).
func (db *DB) applyPlan(ctx context.Context, tx *sqlx.Tx, q *auditQueue, actor string, sourceID int64, p *importer.Plan, planned *plannedColumns) error {
	rec, err := projectDefaults(ctx, tx)
	if err != nil {
		return err
	}
	if err := db.storeBlobs(ctx, tx, planned.blobs); err != nil {
		return err
	}
	now := formatTime(db.Now())
	stored, err := sourceToolRows(ctx, tx, sourceID)
	if err != nil {
		return err
	}
	if err := db.refreshTools(ctx, tx, p, planned.tools, stored, now); err != nil {
		return err
	}
	reqs, err := readDefinitionVoids(ctx, tx, sourceID, p)
	if err != nil {
		return err
	}
	var suspend []suspension
	for _, c := range p.Changes {
		if c.Kind == importer.Changed {
			q.add(audit.Entry{Actor: actor, Action: "tool.reimport_change", Subject: SubjectTool(c.Tool),
				Before: auditJSON(map[string]any{"op": c.Before.OpKey, "class": c.Before.Class}),
				After:  auditJSON(map[string]any{"op": c.OpKey, "class": c.Class, "fields": c.Fields, "definition": c.Definition})})
		}
		if err := db.applyDefinition(ctx, tx, q, actor, c, stored[c.Tool].ID, reqs); err != nil {
			return fmt.Errorf("%s tool %s: %w", c.Kind, c.Tool, err)
		}
		if c.Suspend != "" {
			suspend = append(suspend, suspension{tool: c.Tool, reason: c.Suspend})
			q.add(suspendAudit(actor, c.Tool, c.Suspend))
		}
	}
	if err := db.suspendTools(ctx, tx, actor, suspend); err != nil {
		return err
	}
	return db.insertTools(ctx, tx, sourceID, p.Of(importer.Added), planned.tools, rec.Defaults, now)
}

// plannedColumns is every tool row a plan writes, encoded before the write
// transaction so JSON encoding of large schemas stays out of the time the
// write lock is held: the columns by tool name, and the shared schemas
// (schema_blobs) they refer to.
type plannedColumns struct {
	tools map[string][]any
	blobs map[string]string
}

// planColumns encodes the columns of every tool the plan writes.
func planColumns(p *importer.Plan) (*plannedColumns, error) {
	out := &plannedColumns{tools: make(map[string][]any, len(p.Changes)), blobs: map[string]string{}}
	for _, c := range p.Changes {
		if c.Kind == importer.Removed {
			continue
		}
		cols, err := toolColumns(c, out.blobs)
		if err != nil {
			return nil, fmt.Errorf("tool %s: %w", c.Tool, err)
		}
		out.tools[c.Tool] = cols
	}
	return out, nil
}

// toolColumns are the values of a tool row taken from the document; the
// schemas its operation sets apart are added to blobs.
func toolColumns(c importer.Change, blobs map[string]string) ([]any, error) {
	opJSON, err := packOperation(c.Op, blobs)
	if err != nil {
		return nil, err
	}
	return []any{c.OpKey, c.Op.Method, c.Op.Path, c.Op.PathKey, c.Op.OperationID, c.Op.Summary, c.Op.Deprecated,
		opJSON, c.Assessment.Class.String(), auditJSON(nonNil(c.Assessment.Reasons)), c.Class.String(),
		risk.RulesVersion}, nil
}
