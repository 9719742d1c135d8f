package store

import (
	"context"
	"strings"
	"time"

	"github.com/jmoiron/sqlx"

	"github.com/toolgate/toolgate/internal/audit"
)

// AuditFilter selects audit entries for the audit page and its export.
// Empty fields do not filter; From is inclusive, To exclusive.
type AuditFilter struct {
	Actor   string // exact, case-insensitive
	Action  string // exact ("policy.edit"), or a prefix ending in "." ("change_request.")
	Subject string // exact ("tool:orders_delete", "user:3")
	From    time.Time
	To      time.Time
	// Limit and Offset page the result, newest first; Limit 0 means 50.
	Limit  int
	Offset int
}

// where returns the SQL condition and its arguments.
func (f AuditFilter) where() (string, []any) {
	var conds []string
	var args []any
	if f.Actor != "" {
		conds, args = append(conds, "lower(actor) = lower(?)"), append(args, f.Actor)
	}
	switch {
	case strings.HasSuffix(f.Action, "."):
		// Action names contain "_", a LIKE wildcard.
		conds, args = append(conds, `action LIKE ? ESCAPE '\'`), append(args, escapeLike(f.Action)+"%")
	case f.Action != "":
		conds, args = append(conds, "action = ?"), append(args, f.Action)
	}
	if f.Subject != "" {
		conds, args = append(conds, "subject = ?"), append(args, f.Subject)
	}
	if !f.From.IsZero() {
		conds, args = append(conds, "at >= ?"), append(args, formatTime(f.From))
	}
	if !f.To.IsZero() {
		conds, args = append(conds, "at < ?"), append(args, formatTime(f.To))
	}
	if len(conds) == 0 {
		return "", nil
	}
	return " WHERE " + strings.Join(conds, " AND "), args
}

// QueryAudit returns one page of entries matching f, newest first, and how
// many match in all.
func (db *DB) QueryAudit(ctx context.Context, f AuditFilter) ([]audit.Entry, int, error) {
	if f.Limit <= 0 {
		f.Limit = 50
	}
	where, args := f.where()
	var out []audit.Entry
	var total int
	err := db.readTx(ctx, "query audit", func(tx *sqlx.Tx) error {
		if err := tx.GetContext(ctx, &total, `SELECT count(*) FROM audit_log`+where, args...); err != nil {
			return err
		}
		var err error
		out, err = auditRows(ctx, tx, `SELECT * FROM audit_log`+where+` ORDER BY id DESC LIMIT ? OFFSET ?`,
			append(args, f.Limit, f.Offset)...)
		return err
	})
	return out, total, err
}

// EachAudit calls fn for every entry matching f, oldest first, ignoring
// Limit and Offset. It reads in batches, each in its own short transaction,
// so a slow reader (a download) never holds the database while fn writes.
func (db *DB) EachAudit(ctx context.Context, f AuditFilter, fn func(audit.Entry) error) error {
	const batch = 500
	where, args := f.where()
	if where == "" {
		where = " WHERE id > ?"
	} else {
		where += " AND id > ?"
	}
	var after int64
	for {
		var page []audit.Entry
		err := db.readTx(ctx, "export audit", func(tx *sqlx.Tx) error {
			var err error
			page, err = auditRows(ctx, tx, `SELECT * FROM audit_log`+where+` ORDER BY id LIMIT ?`, append(args, after, batch)...)
			return err
		})
		if err != nil {
			return err
		}
		for _, e := range page {
			if err := fn(e); err != nil {
				return err
			}
		}
		if len(page) < batch {
			return nil
		}
		after = page[len(page)-1].ID
	}
}

// AuditActions returns the distinct actions in the log, for the filter.
func (db *DB) AuditActions(ctx context.Context) ([]string, error) {
	var out []string
	err := db.readTx(ctx, "audit actions", func(tx *sqlx.Tx) error {
		return tx.SelectContext(ctx, &out, `SELECT DISTINCT action FROM audit_log ORDER BY action`)
	})
	return out, err
}

func auditRows(ctx context.Context, tx *sqlx.Tx, q string, args ...any) ([]audit.Entry, error) {
	var rows []auditRow
	if err := tx.SelectContext(ctx, &rows, q, args...); err != nil {
		return nil, err
	}
	out := make([]audit.Entry, 0, len(rows))
	for _, r := range rows {
		e, err := r.entry()
		if err != nil {
			return nil, err
		}
		out = append(out, e)
	}
	return out, nil
}
