package store

import (
	"context"
	"database/sql"
	"fmt"
	"slices"

	"github.com/jmoiron/sqlx"

	"github.com/toolgate/toolgate/internal/importer"
	"github.com/toolgate/toolgate/internal/policy"
)

// sourceToolRow is what the write transaction of an import reads of each
// stored tool of the source, in one query: its id, and who acknowledged
// its schema gaps with the operation JSON the gaps are read from (only
// when acknowledged: the rest never need it).
type sourceToolRow struct {
	ID     int64  `db:"id"`
	Name   string `db:"name"`
	AckBy  string `db:"schema_gaps_ack_by"`
	OpJSON string `db:"operation_json"`
}

// sourceToolRows reads every tool of the source by name.
func sourceToolRows(ctx context.Context, tx *sqlx.Tx, sourceID int64) (map[string]sourceToolRow, error) {
	var rows []sourceToolRow
	if err := tx.SelectContext(ctx, &rows, `SELECT id, name, schema_gaps_ack_by,
		CASE WHEN schema_gaps_ack_by = '' THEN '' ELSE operation_json END AS operation_json
		FROM tools WHERE source_id = ?`, sourceID); err != nil {
		return nil, fmt.Errorf("stored tools: %w", err)
	}
	out := make(map[string]sourceToolRow, len(rows))
	for _, r := range rows {
		out[r.Name] = r
	}
	return out, nil
}

// isRefresh reports whether c updates a stored tool from the document.
func isRefresh(c importer.Change) bool {
	return c.Kind == importer.Changed || c.Kind == importer.Restored || c.Kind == importer.Unchanged
}

// refreshTools updates every stored tool the document still has from its
// columns (an override the plan does not keep is cleared, see
// importer.Build), clears gap acknowledgements the new gaps void, replaces
// their tags, and marks the removed tools.
//
// A tool whose op key changes is updated alone, in plan order, as before
// batching: one multi-row UPDATE would move keys in an order neither
// engine promises, and the unique (source_id, op_key) is checked row by
// row. The others keep their key, so their order cannot matter.
func (db *DB) refreshTools(ctx context.Context, tx *sqlx.Tx, p *importer.Plan, cols map[string][]any, stored map[string]sourceToolRow, now string) error {
	var r refreshRows
	for _, c := range p.Changes {
		if c.Kind == importer.Removed {
			r.removed = append(r.removed, c.Tool)
		}
		if !isRefresh(c) {
			continue
		}
		s, ok := stored[c.Tool]
		if !ok {
			return fmt.Errorf("%s tool %s: %w", c.Kind, c.Tool, sql.ErrNoRows)
		}
		reset, err := gapsAckVoid(s, c.Op.SchemaGaps)
		if err != nil {
			return err
		}
		if reset {
			r.unacked = append(r.unacked, []any{s.ID})
		}
		r.ids = append(r.ids, s.ID)
		r.tags = append(r.tags, tagsOf(s.ID, c.Op.Tags)...)
		row := append([]any{c.Tool, now}, cols[c.Tool]...)
		switch {
		case c.Before != nil && c.OpKey != c.Before.OpKey:
			if err := db.updateToolAlone(ctx, tx, c, row); err != nil {
				return fmt.Errorf("%s tool %s: %w", c.Kind, c.Tool, err)
			}
		case c.KeepOverride:
			r.keep = append(r.keep, row)
		default:
			r.clear = append(r.clear, row)
		}
	}
	return db.writeRefresh(ctx, tx, &r, now)
}

// refreshRows are the batched writes of refreshTools: tool rows to update
// keeping or clearing their override, tools whose gap acknowledgement is
// void, ids whose tags are replaced by tags, and the removed tools' names.
type refreshRows struct {
	keep, clear, tags, unacked [][]any
	ids                        []int64
	removed                    []string
}

func (db *DB) writeRefresh(ctx context.Context, tx *sqlx.Tx, r *refreshRows, now string) error {
	if err := db.execBatches(ctx, tx, batchSQL{head: `UPDATE tools SET schema_gaps_ack_by = '' WHERE id IN (`, row: `?`, tail: `)`}, r.unacked); err != nil {
		return fmt.Errorf("reset schema gaps acknowledgements: %w", err)
	}
	if err := db.execBatches(ctx, tx, updateToolsSQL(true), r.keep); err != nil {
		return fmt.Errorf("update tools: %w", err)
	}
	if err := db.execBatches(ctx, tx, updateToolsSQL(false), r.clear); err != nil {
		return fmt.Errorf("update tools: %w", err)
	}
	if err := db.execBatches(ctx, tx, batchSQL{head: `UPDATE tools SET removed_at = ?, updated_at = ? WHERE name IN (`, row: `?`, tail: `)`,
		fixed: []any{now, now}}, inList(r.removed)); err != nil {
		return fmt.Errorf("remove tools: %w", err)
	}
	if err := db.execBatches(ctx, tx, batchSQL{head: `DELETE FROM tool_tags WHERE tool_id IN (`, row: `?`, tail: `)`}, inList(r.ids)); err != nil {
		return fmt.Errorf("replace tags: %w", err)
	}
	return db.writeTags(ctx, tx, r.tags)
}

// toolUpdateColumns are the columns of a tool row an import sets, in the
// order of toolColumns.
const toolUpdateColumns = `op_key = ?, method = ?, path = ?, path_key = ?, operation_id = ?, summary = ?,
	deprecated = ?, operation_json = ?, detected_class = ?, reasons_json = ?, class = ?, rules_version = ?`

// updateToolsSQL updates many tools, each from one row of VALUES: name,
// updated_at, then toolColumns. VALUES columns are column1, column2, … on
// both engines; the integer ones are cast where they are bound, since
// PostgreSQL types a placeholder in VALUES as text.
func updateToolsSQL(keepOverride bool) batchSQL {
	q := `UPDATE tools SET op_key = v.column3, method = v.column4, path = v.column5, path_key = v.column6,
		operation_id = v.column7, summary = v.column8, deprecated = v.column9, operation_json = v.column10,
		detected_class = v.column11, reasons_json = v.column12, class = v.column13, rules_version = v.column14,
		removed_at = NULL, updated_at = v.column2`
	if !keepOverride {
		q += `, risk_override_reason = '', risk_override_by = ''`
	}
	return batchSQL{head: q + ` FROM (VALUES `,
		row:  `(?, ?, ?, ?, ?, ?, ?, ?, CAST(? AS INTEGER), ?, ?, ?, ?, CAST(? AS INTEGER))`,
		tail: `) AS v WHERE tools.name = v.column1`}
}

// updateToolAlone updates one tool from row (name, updated_at, then
// toolColumns).
func (db *DB) updateToolAlone(ctx context.Context, tx *sqlx.Tx, c importer.Change, row []any) error {
	q := `UPDATE tools SET ` + toolUpdateColumns + `, removed_at = NULL, updated_at = ?`
	if !c.KeepOverride {
		q += `, risk_override_reason = '', risk_override_by = ''`
	}
	args := append(append([]any{}, row[2:]...), row[1], row[0])
	_, err := tx.ExecContext(ctx, q+` WHERE name = ?`, args...)
	return err
}

// insertTools inserts the added tools with their default policies (from
// the project defaults, never exposing what R10 forbids) and tags. Ids are
// matched back by name: RETURNING's order is not promised.
func (db *DB) insertTools(ctx context.Context, tx *sqlx.Tx, sourceID int64, added []importer.Change, cols map[string][]any, d policy.ProjectDefaults, now string) error {
	if len(added) == 0 {
		return nil
	}
	rows := make([][]any, len(added))
	for i, c := range added {
		rows[i] = append(append([]any{}, cols[c.Tool]...), sourceID, c.Tool, now, now)
	}
	ids := make(map[string]int64, len(added))
	err := db.queryBatches(ctx, tx, batchSQL{head: `INSERT INTO tools (op_key, method, path, path_key, operation_id, summary,
		deprecated, operation_json, detected_class, reasons_json, class, rules_version, source_id, name, created_at,
		updated_at) VALUES `, row: `(?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`, tail: ` RETURNING id, name`}, rows,
		func(r *sqlx.Rows) error {
			var id int64
			var name string
			if err := r.Scan(&id, &name); err != nil {
				return err
			}
			ids[name] = id
			return nil
		})
	if err != nil {
		return fmt.Errorf("add tools: %w", err)
	}
	policies := make([][]any, len(added))
	var tags [][]any
	for i, c := range added {
		id, ok := ids[c.Tool]
		if !ok {
			return fmt.Errorf("add tool %s: no id returned", c.Tool)
		}
		p := policy.NewToolPolicy(c.Method, c.Class, d)
		policies[i] = []any{id, auditJSON(p), p.Exposed, now}
		tags = append(tags, tagsOf(id, c.Op.Tags)...)
	}
	if err := db.execBatches(ctx, tx, batchSQL{head: `INSERT INTO tool_policies (tool_id, policy_json, exposed, updated_at, updated_by) VALUES `,
		row: `(?, ?, ?, ?, 'import')`}, policies); err != nil {
		return fmt.Errorf("add tool policies: %w", err)
	}
	return db.writeTags(ctx, tx, tags)
}

// tagsOf is the tool_tags rows of one tool, each tag once.
func tagsOf(toolID int64, tags []string) [][]any {
	var out [][]any
	for i, t := range tags {
		if !slices.Contains(tags[:i], t) {
			out = append(out, []any{toolID, t})
		}
	}
	return out
}

// writeTags inserts tool_tags rows (tool_id, tag).
func (db *DB) writeTags(ctx context.Context, tx *sqlx.Tx, rows [][]any) error {
	if err := db.execBatches(ctx, tx, batchSQL{head: `INSERT INTO tool_tags (tool_id, tag) VALUES `, row: `(?, ?)`,
		tail: ` ON CONFLICT (tool_id, tag) DO NOTHING`}, rows); err != nil {
		return fmt.Errorf("write tags: %w", err)
	}
	return nil
}
