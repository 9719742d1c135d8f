package store

import (
	"context"
	"strings"

	"github.com/jmoiron/sqlx"
)

// ToolQuery filters, sorts and pages the tools list. Zero values mean "any".
type ToolQuery struct {
	Source string
	Class  string // READ, WRITE, DESTRUCTIVE, PRIVILEGED
	Method string
	Tag    string
	// Exposure is "exposed", "hidden", "suspended" or "".
	Exposure string
	// Text matches the tool name, path, summary or operationId.
	Text string
	// Removed lists the removed tools instead of the current ones.
	Removed bool
	// Sort is a key toolSortSQL knows ("name" when not); Desc reverses it.
	Sort    string
	Desc    bool
	Page    int // 1-based
	PerPage int
}

// toolSortSQL is the ORDER BY expression of a sort key (name, method,
// path, source, class); ok is false for any other key. The expression is
// concatenated into SQL, so the keys are a closed set here, not a map other
// packages could extend. The tool name breaks ties so pages are stable.
func toolSortSQL(key string) (expr string, ok bool) {
	switch key {
	case "name":
		return "t.name", true
	case "method":
		return "t.method", true
	case "path":
		return "t.path", true
	case "source":
		return "s.name", true
	case "class":
		return "CASE t.class WHEN 'READ' THEN 1 WHEN 'WRITE' THEN 2 WHEN 'DESTRUCTIVE' THEN 3 ELSE 4 END", true
	}
	return "", false
}

// maxPerPage bounds a tools page.
const maxPerPage = 200

// ToolPage is one page of the tools list and the number of matching tools.
type ToolPage struct {
	Tools []ToolSummary
	Total int
}

// where builds the filter clause; every value is a bound parameter.
func (q ToolQuery) where() (string, []any) {
	conds, args := []string{"t.removed_at IS NULL"}, []any{}
	if q.Removed {
		conds[0] = "t.removed_at IS NOT NULL"
	}
	add := func(cond string, a ...any) { conds, args = append(conds, cond), append(args, a...) }
	if q.Source != "" {
		add("s.name = ?", q.Source)
	}
	if q.Class != "" {
		add("t.class = ?", strings.ToUpper(q.Class))
	}
	if q.Method != "" {
		add("t.method = ?", strings.ToUpper(q.Method))
	}
	if q.Tag != "" {
		add("EXISTS (SELECT 1 FROM tool_tags g WHERE g.tool_id = t.id AND g.tag = ?)", q.Tag)
	}
	switch q.Exposure {
	case "exposed":
		add("p.exposed = 1")
	case "hidden":
		add("p.exposed = 0")
	case "suspended":
		add("p.suspended_reason <> ''")
	}
	if q.Text != "" {
		like := "%" + escapeLike(q.Text) + "%"
		// lower() on both sides: SQLite's LIKE ignores ASCII case, PostgreSQL's does not.
		add(`(lower(t.name) LIKE lower(?) ESCAPE '\' OR lower(t.path) LIKE lower(?) ESCAPE '\'
			OR lower(t.summary) LIKE lower(?) ESCAPE '\' OR lower(t.operation_id) LIKE lower(?) ESCAPE '\')`,
			like, like, like, like)
	}
	return " WHERE " + strings.Join(conds, " AND "), args
}

// Normalize fills defaults and clamps the page.
func (q ToolQuery) Normalize() ToolQuery {
	if _, ok := toolSortSQL(q.Sort); !ok {
		q.Sort = "name"
	}
	if q.PerPage <= 0 || q.PerPage > maxPerPage {
		q.PerPage = 50
	}
	if q.Page < 1 {
		q.Page = 1
	}
	return q
}

// ListTools returns one page of tools matching q. Only the page's rows are
// read and decoded; the total comes from a count over the same filter.
func (db *DB) ListTools(ctx context.Context, q ToolQuery) (*ToolPage, error) {
	q = q.Normalize()
	out := &ToolPage{}
	err := db.readTx(ctx, "list tools", func(tx *sqlx.Tx) error {
		where, args := q.where()
		var err error
		if out.Total, err = db.toolsTotal(ctx, tx, q, where, args); err != nil {
			return err
		}
		order, _ := toolSortSQL(q.Sort) // Normalize chose a known key
		dir := " ASC"
		if q.Desc {
			dir = " DESC"
		}
		var rows []toolRow
		if err := tx.SelectContext(ctx, &rows, `SELECT `+toolSummaryColumns+toolFrom+where+` ORDER BY `+order+dir+
			`, t.name`+dir+` LIMIT ? OFFSET ?`, append(args, q.PerPage, (q.Page-1)*q.PerPage)...); err != nil {
			return err
		}
		out.Tools = make([]ToolSummary, 0, len(rows))
		for _, r := range rows {
			s, err := r.summary()
			if err != nil {
				return err
			}
			out.Tools = append(out.Tools, s)
		}
		return nil
	})
	return out, err
}

// ToolFacets are the values the tools filters offer.
type ToolFacets struct {
	Sources []string
	Methods []string
	Tags    []string
}

// ListToolFacets returns the sources, methods and tags in use.
func (db *DB) ListToolFacets(ctx context.Context) (*ToolFacets, error) {
	out := &ToolFacets{}
	err := db.readTx(ctx, "tool facets", func(tx *sqlx.Tx) error {
		if err := tx.SelectContext(ctx, &out.Sources, `SELECT name FROM sources ORDER BY name`); err != nil {
			return err
		}
		if err := tx.SelectContext(ctx, &out.Methods, `SELECT DISTINCT method FROM tools ORDER BY method`); err != nil {
			return err
		}
		return tx.SelectContext(ctx, &out.Tags, `SELECT DISTINCT tag FROM tool_tags ORDER BY tag`)
	})
	return out, err
}
