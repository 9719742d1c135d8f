package store

import (
	"context"
	"strings"

	"github.com/jmoiron/sqlx"
)

// Limits of one batched statement. Each statement is a network round trip
// on PostgreSQL, so a write that touches many rows (an import) sends them
// in multi-row statements rather than one statement per row; these bound
// how many rows one statement carries.
const (
	// maxBindParams is the most `?` one statement may carry on both
	// engines: SQLite's SQLITE_MAX_VARIABLE_NUMBER (32,766 since 3.32) is
	// the lower of the two (PostgreSQL's protocol allows 65,535).
	maxBindParams = 32766
	// maxBatchBytes bounds the text and blob arguments of one statement.
	// Past a few hundred kilobytes a statement gets slower on SQLite, not
	// faster (asana-oas.yaml, 247 operations with large schemas, imported
	// in about 0.7× the CPU time with 256 KiB statements than with 4 MiB
	// ones),
	// while on PostgreSQL a few more round trips of that size cost little.
	maxBatchBytes = 256 << 10
)

// batchSQL is one statement repeated over rows: head, then one row
// template per row joined by ", ", then tail. For a multi-row insert head
// ends with "VALUES " and row is "(?, ?, …)"; for an IN list head ends with
// "IN (", row is "?" and tail starts with ")". fixed are the arguments of
// head's own placeholders, sent before every chunk's row arguments.
type batchSQL struct {
	head  string
	row   string
	tail  string
	fixed []any
}

// chunks splits rows into the row lists of successive statements, each
// within maxBindParams (or db.batchParams, which tests lower to force many
// statements) and, unless it holds a single row, maxBatchBytes.
func (db *DB) chunks(b batchSQL, rows [][]any) [][][]any {
	limit := maxBindParams
	if db.batchParams > 0 {
		limit = db.batchParams
	}
	per := strings.Count(b.row, "?")
	budget := max(1, (limit-len(b.fixed))/max(per, 1))
	var out [][][]any
	start, size := 0, 0
	for i, r := range rows {
		n := argBytes(r)
		if i > start && (i-start >= budget || size+n > maxBatchBytes) {
			out = append(out, rows[start:i])
			start, size = i, 0
		}
		size += n
	}
	if start < len(rows) {
		out = append(out, rows[start:])
	}
	return out
}

// argBytes is the size of the string and []byte arguments of one row.
func argBytes(row []any) int {
	n := 0
	for _, v := range row {
		switch v := v.(type) {
		case string:
			n += len(v)
		case []byte:
			n += len(v)
		}
	}
	return n
}

// statement is the SQL and arguments of one chunk.
func (b batchSQL) statement(chunk [][]any) (string, []any) {
	var q strings.Builder
	args := append([]any(nil), b.fixed...)
	q.WriteString(b.head)
	for i, r := range chunk {
		if i > 0 {
			q.WriteString(", ")
		}
		q.WriteString(b.row)
		args = append(args, r...)
	}
	q.WriteString(b.tail)
	return q.String(), args
}

// execBatches runs b over rows in as few statements as the limits allow.
func (db *DB) execBatches(ctx context.Context, tx *sqlx.Tx, b batchSQL, rows [][]any) error {
	for _, chunk := range db.chunks(b, rows) {
		q, args := b.statement(chunk)
		if _, err := tx.ExecContext(ctx, q, db.unprepared(len(chunk), args)...); err != nil {
			return err
		}
	}
	return nil
}

// queryBatches runs b (whose tail has a RETURNING clause) over rows and
// calls scan for every row returned. Callers match returned rows to their
// input by a key they return, never by position: neither engine promises
// that RETURNING follows the order of VALUES.
func (db *DB) queryBatches(ctx context.Context, tx *sqlx.Tx, b batchSQL, rows [][]any, scan func(*sqlx.Rows) error) error {
	for _, chunk := range db.chunks(b, rows) {
		q, args := b.statement(chunk)
		if err := queryEach(ctx, tx, q, db.unprepared(len(chunk), args), scan); err != nil {
			return err
		}
	}
	return nil
}

func queryEach(ctx context.Context, tx *sqlx.Tx, q string, args []any, scan func(*sqlx.Rows) error) error {
	rows, err := tx.QueryxContext(ctx, q, args...)
	if err != nil {
		return err
	}
	defer func() { _ = rows.Close() }()
	for rows.Next() {
		if err := scan(rows); err != nil {
			return err
		}
	}
	if err := rows.Err(); err != nil {
		return err
	}
	return rows.Close()
}

// inList is the rows of an IN (…) list of values.
func inList[T any](values []T) [][]any {
	out := make([][]any, len(values))
	for i, v := range values {
		out[i] = []any{v}
	}
	return out
}
