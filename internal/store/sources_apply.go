package store

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"

	"github.com/jmoiron/sqlx"

	"github.com/toolgate/toolgate/internal/audit"
	"github.com/toolgate/toolgate/internal/importer"
	"github.com/toolgate/toolgate/internal/policy"
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

// applyPlan writes every change. Updates go first: a moved operation frees
// its old op key before a new operation may take it.
// cols holds every tool's columns, encoded before the transaction
// (planColumns).
func (db *DB) applyPlan(ctx context.Context, tx *sqlx.Tx, actor string, sourceID int64, p *importer.Plan, planned *plannedColumns) error {
	rec, err := projectDefaults(ctx, tx)
	if err != nil {
		return err
	}
	if err := storeBlobs(ctx, tx, planned.blobs); err != nil {
		return err
	}
	cols := planned.tools
	for _, c := range p.Changes {
		switch c.Kind {
		case importer.Changed, importer.Restored, importer.Unchanged:
			err = db.updateTool(ctx, tx, c, cols[c.Tool])
		case importer.Removed:
			_, err = tx.ExecContext(ctx, `UPDATE tools SET removed_at = ?, updated_at = ? WHERE name = ?`,
				formatTime(db.Now()), formatTime(db.Now()), c.Tool)
		}
		if err == nil && c.Kind == importer.Changed {
			err = db.appendAudit(ctx, tx, audit.Entry{Actor: actor, Action: "tool.reimport_change", Subject: SubjectTool(c.Tool),
				Before: auditJSON(map[string]any{"op": c.Before.OpKey, "class": c.Before.Class}),
				After:  auditJSON(map[string]any{"op": c.OpKey, "class": c.Class, "fields": c.Fields, "definition": c.Definition})})
		}
		if err == nil {
			err = db.applyDefinition(ctx, tx, actor, c)
		}
		if err == nil && c.Suspend != "" {
			err = db.suspendTool(ctx, tx, actor, c.Tool, c.Suspend)
		}
		if err != nil {
			return fmt.Errorf("%s tool %s: %w", c.Kind, c.Tool, err)
		}
	}
	for _, c := range p.Of(importer.Added) {
		if err := db.insertTool(ctx, tx, sourceID, c, cols[c.Tool], policy.NewToolPolicy(c.Method, c.Class, rec.Defaults)); err != nil {
			return fmt.Errorf("add tool %s: %w", c.Tool, err)
		}
	}
	return nil
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

func (db *DB) insertTool(ctx context.Context, tx *sqlx.Tx, sourceID int64, c importer.Change, cols []any, p policy.Policy) error {
	now := formatTime(db.Now())
	var id int64
	if err := tx.GetContext(ctx, &id, `INSERT INTO tools (op_key, method, path, path_key, operation_id, summary,
		deprecated, operation_json, detected_class, reasons_json, class, rules_version, source_id, name, created_at,
		updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) RETURNING id`,
		append(cols, sourceID, c.Tool, now, now)...); err != nil {
		return err
	}
	if _, err := tx.ExecContext(ctx, `INSERT INTO tool_policies (tool_id, policy_json, exposed, updated_at, updated_by)
		VALUES (?, ?, ?, ?, 'import')`, id, auditJSON(p), p.Exposed, now); err != nil {
		return err
	}
	return writeTags(ctx, tx, id, c.Op.Tags)
}

// updateTool refreshes a stored tool from the document. An override the
// plan does not keep is cleared (see importer.Build).
func (db *DB) updateTool(ctx context.Context, tx *sqlx.Tx, c importer.Change, cols []any) error {
	if err := resetGapsAck(ctx, tx, c.Tool, c.Op.SchemaGaps); err != nil {
		return err
	}
	q := `UPDATE tools SET op_key = ?, method = ?, path = ?, path_key = ?, operation_id = ?, summary = ?,
		deprecated = ?, operation_json = ?, detected_class = ?, reasons_json = ?, class = ?, rules_version = ?,
		removed_at = NULL, updated_at = ?`
	if !c.KeepOverride {
		q += `, risk_override_reason = '', risk_override_by = ''`
	}
	if _, err := tx.ExecContext(ctx, q+` WHERE name = ?`, append(cols, formatTime(db.Now()), c.Tool)...); err != nil {
		return err
	}
	var id int64
	if err := tx.GetContext(ctx, &id, `SELECT id FROM tools WHERE name = ?`, c.Tool); err != nil {
		return err
	}
	if _, err := tx.ExecContext(ctx, `DELETE FROM tool_tags WHERE tool_id = ?`, id); err != nil {
		return err
	}
	return writeTags(ctx, tx, id, c.Op.Tags)
}

func writeTags(ctx context.Context, tx *sqlx.Tx, toolID int64, tags []string) error {
	for _, t := range tags {
		if _, err := tx.ExecContext(ctx, `INSERT INTO tool_tags (tool_id, tag) VALUES (?, ?) ON CONFLICT (tool_id, tag) DO NOTHING`, toolID, t); err != nil {
			return err
		}
	}
	return nil
}

// suspendTool turns exposure off with a reason the tool page shows, bumps
// the policy version (an open editor must reload) and audits it.
func (db *DB) suspendTool(ctx context.Context, tx *sqlx.Tx, actor, name, reason string) error {
	var row struct {
		ID     int64  `db:"id"`
		Policy string `db:"policy_json"`
	}
	if err := tx.GetContext(ctx, &row, `SELECT t.id, p.policy_json FROM tools t JOIN tool_policies p ON p.tool_id = t.id
		WHERE t.name = ?`, name); err != nil {
		return err
	}
	var before policy.Policy
	if err := json.Unmarshal([]byte(row.Policy), &before); err != nil {
		return fmt.Errorf("decode policy: %w", err)
	}
	after := before
	after.Exposed = false
	if _, err := tx.ExecContext(ctx, `UPDATE tool_policies SET policy_json = ?, exposed = 0, suspended_reason = ?,
		version = version + 1, updated_at = ?, updated_by = ? WHERE tool_id = ?`,
		auditJSON(after), reason, formatTime(db.Now()), actor, row.ID); err != nil {
		return err
	}
	return db.appendAudit(ctx, tx, audit.Entry{Actor: actor, Action: "tool.suspend", Subject: SubjectTool(name),
		Before: auditJSON(map[string]any{"exposed": true}), After: auditJSON(map[string]any{"exposed": false, "reason": reason})})
}

// storedTools returns every tool of a source, removed ones included.
func storedTools(ctx context.Context, tx *sqlx.Tx, sourceID int64) ([]importer.Stored, error) {
	out, _, err := loadStored(ctx, tx, `WHERE t.source_id = ? ORDER BY t.id`, sourceID)
	if err != nil {
		return nil, fmt.Errorf("stored tools: %w", err)
	}
	return out, nil
}

// loadStored reads the tools that where selects as the importer sees them
// (operation JSON with its shared schemas expanded), with the rules
// version that classified each.
func loadStored(ctx context.Context, tx *sqlx.Tx, where string, args ...any) ([]importer.Stored, []int, error) {
	var rows []struct {
		Name       string  `db:"name"`
		OpKey      string  `db:"op_key"`
		OpJSON     string  `db:"operation_json"`
		Detected   string  `db:"detected_class"`
		Class      string  `db:"class"`
		OverrideBy string  `db:"risk_override_by"`
		RemovedAt  *string `db:"removed_at"`
		Exposed    bool    `db:"exposed"`
		Version    int     `db:"rules_version"`
	}
	if err := tx.SelectContext(ctx, &rows, `SELECT t.name, t.op_key, t.operation_json, t.detected_class, t.class,
		t.risk_override_by, t.removed_at, COALESCE(p.exposed, 0) AS exposed, t.rules_version
		FROM tools t LEFT JOIN tool_policies p ON p.tool_id = t.id `+where, args...); err != nil {
		return nil, nil, err
	}
	out := make([]importer.Stored, len(rows))
	versions := make([]int, len(rows))
	blobs := newBlobReader(tx)
	for i, r := range rows {
		s := importer.Stored{Name: r.Name, OpKey: r.OpKey, Overridden: r.OverrideBy != "", Removed: r.RemovedAt != nil, Exposed: r.Exposed}
		opJSON, err := blobs.unpack(ctx, r.OpJSON)
		if err != nil {
			return nil, nil, fmt.Errorf("stored tool %s: %w", r.Name, err)
		}
		if err = json.Unmarshal([]byte(opJSON), &s.Op); err != nil {
			return nil, nil, fmt.Errorf("stored tool %s: %w", r.Name, err)
		}
		if s.DetectedClass, err = risk.ParseClass(r.Detected); err != nil {
			return nil, nil, err
		}
		if s.Class, err = risk.ParseClass(r.Class); err != nil {
			return nil, nil, err
		}
		out[i], versions[i] = s, r.Version
	}
	return out, versions, nil
}

// importStamp digests everything planImport read that can change without
// an import of this source bumping its revision: the source row, the
// class, override, removal and exposure of its tools, and the set of tool
// names in the project (tools are never deleted, so count and highest id
// change whenever a name is added). It reads no operation JSON, so it is
// cheap enough to run again inside the write transaction.
func importStamp(ctx context.Context, tx *sqlx.Tx, source string) (string, error) {
	h := sha256.New()
	var names struct {
		N   int64 `db:"n"`
		Max int64 `db:"max_id"`
	}
	if err := tx.GetContext(ctx, &names, `SELECT COUNT(*) AS n, COALESCE(MAX(id), 0) AS max_id FROM tools`); err != nil {
		return "", fmt.Errorf("import stamp: %w", err)
	}
	fmt.Fprintf(h, "names %d %d\n", names.N, names.Max)
	var srcRows []struct {
		ID       int64  `db:"id"`
		Revision int64  `db:"revision"`
		Origin   string `db:"origin"`
	}
	if err := tx.SelectContext(ctx, &srcRows, `SELECT id, revision, origin FROM sources WHERE name = ?`, source); err != nil {
		return "", fmt.Errorf("import stamp: %w", err)
	}
	for _, r := range srcRows {
		fmt.Fprintf(h, "source %d %d %q\n", r.ID, r.Revision, r.Origin)
		var tools []struct {
			ID         int64  `db:"id"`
			Name       string `db:"name"`
			OpKey      string `db:"op_key"`
			Detected   string `db:"detected_class"`
			Class      string `db:"class"`
			OverrideBy string `db:"risk_override_by"`
			RemovedAt  string `db:"removed_at"`
			Exposed    bool   `db:"exposed"`
			Version    int64  `db:"version"`
		}
		if err := tx.SelectContext(ctx, &tools, `SELECT t.id, t.name, t.op_key, t.detected_class, t.class, t.risk_override_by,
			COALESCE(t.removed_at, '') AS removed_at, COALESCE(p.exposed, 0) AS exposed, COALESCE(p.version, 0) AS version
			FROM tools t LEFT JOIN tool_policies p ON p.tool_id = t.id WHERE t.source_id = ? ORDER BY t.id`, r.ID); err != nil {
			return "", fmt.Errorf("import stamp: %w", err)
		}
		for _, t := range tools {
			fmt.Fprintf(h, "%d %q %q %q %q %q %q %t %d\n", t.ID, t.Name, t.OpKey, t.Detected, t.Class, t.OverrideBy, t.RemovedAt, t.Exposed, t.Version)
		}
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}

// projectToolNames is every tool name in the project, removed tools too:
// a name, once given, stays with its operation.
func projectToolNames(ctx context.Context, tx *sqlx.Tx) (map[string]bool, error) {
	var names []string
	if err := tx.SelectContext(ctx, &names, `SELECT name FROM tools`); err != nil {
		return nil, fmt.Errorf("tool names: %w", err)
	}
	out := make(map[string]bool, len(names))
	for _, n := range names {
		out[n] = true
	}
	return out, nil
}
