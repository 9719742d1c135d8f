package store

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/jmoiron/sqlx"

	"github.com/toolgate/toolgate/internal/audit"
)

// auditRow is the audit_log row as stored.
type auditRow struct {
	ID       int64  `db:"id"`
	At       string `db:"at"`
	Actor    string `db:"actor"`
	Action   string `db:"action"`
	Subject  string `db:"subject"`
	Before   string `db:"before_json"`
	After    string `db:"after_json"`
	PrevHash string `db:"prev_hash"`
	Hash     string `db:"hash"`
}

func (r auditRow) entry() (audit.Entry, error) {
	at, err := parseTime(r.At)
	if err != nil {
		return audit.Entry{}, err
	}
	return audit.Entry{ID: r.ID, At: at, Actor: r.Actor, Action: r.Action, Subject: r.Subject,
		Before: r.Before, After: r.After, PrevHash: r.PrevHash, Hash: r.Hash}, nil
}

// auditJSON encodes v for Before/After. Nil encodes as "" (no state).
func auditJSON(v any) string {
	if v == nil {
		return ""
	}
	b, err := json.Marshal(v)
	if err != nil {
		// Callers pass plain structs and maps of strings: cannot fail.
		panic(fmt.Sprintf("store: audit json: %v", err))
	}
	return string(b)
}

// appendAudit seals e onto the end of the chain and inserts it. Call it from
// every store method that changes state, inside that method's transaction:
// the write lock inTx holds (IMMEDIATE transactions on SQLite, see DSN; the
// advisory lock on PostgreSQL) guarantees nobody appends in between the
// read of the last hash and the insert. At and ID are set here.
func (db *DB) appendAudit(ctx context.Context, tx *sqlx.Tx, e audit.Entry) error {
	q := db.auditQueue()
	q.add(e)
	return q.flush(ctx, tx)
}

// auditQueue holds audit entries of one write transaction until flush
// seals them onto the end of the chain and inserts them in multi-row
// statements. A transaction that appends many entries (an import: one per
// changed or suspended tool) queues them and flushes once, instead of a
// read of the last hash and an insert per entry; the chain is the same as
// appending each in turn. Nothing else may append in the same transaction
// while entries are queued (flush first), or the order would change.
type auditQueue struct {
	db      *DB
	entries []audit.Entry
}

func (db *DB) auditQueue() *auditQueue { return &auditQueue{db: db} }

// add queues e, stamped with the time it happened.
func (q *auditQueue) add(e audit.Entry) {
	e.At = q.db.Now().UTC()
	q.entries = append(q.entries, e)
}

// flush seals the queued entries in order after the last stored one and
// inserts them; the queue is then empty.
func (q *auditQueue) flush(ctx context.Context, tx *sqlx.Tx) error {
	if len(q.entries) == 0 {
		return nil
	}
	prev, err := lastAudit(ctx, tx)
	if err != nil {
		return err
	}
	rows := make([][]any, len(q.entries))
	for i, e := range q.entries {
		e.ID = 1
		if prev != nil {
			e.ID = prev.ID + 1
		}
		e = audit.Seal(e, prev)
		rows[i] = []any{e.ID, formatTime(e.At), e.Actor, e.Action, e.Subject, e.Before, e.After, e.PrevHash, e.Hash}
		prev = &e
	}
	b := batchSQL{head: `INSERT INTO audit_log (id, at, actor, action, subject, before_json, after_json, prev_hash, hash) VALUES `,
		row: `(?, ?, ?, ?, ?, ?, ?, ?, ?)`}
	if err := q.db.execBatches(ctx, tx, b, rows); err != nil {
		return fmt.Errorf("append audit: insert: %w", err)
	}
	q.entries = q.entries[:0]
	return nil
}

// lastAudit is the last entry of the chain, nil when the log is empty.
func lastAudit(ctx context.Context, tx *sqlx.Tx) (*audit.Entry, error) {
	var last auditRow
	err := tx.GetContext(ctx, &last, `SELECT * FROM audit_log ORDER BY id DESC LIMIT 1`)
	switch {
	case errors.Is(err, sql.ErrNoRows):
		return nil, nil
	case err != nil:
		return nil, fmt.Errorf("append audit: last entry: %w", err)
	}
	p, err := last.entry()
	if err != nil {
		return nil, fmt.Errorf("append audit: %w", err)
	}
	return &p, nil
}

// AuditEntries returns the whole audit log in id order.
func (db *DB) AuditEntries(ctx context.Context) ([]audit.Entry, error) {
	var out []audit.Entry
	err := db.readTx(ctx, "audit entries", func(tx *sqlx.Tx) error {
		var err error
		out, err = auditRows(ctx, tx, `SELECT * FROM audit_log ORDER BY id`)
		return err
	})
	return out, err
}

// VerifyAudit checks the whole chain; a broken chain is an *audit.BrokenError.
func (db *DB) VerifyAudit(ctx context.Context) (int, error) {
	entries, err := db.AuditEntries(ctx)
	if err != nil {
		return 0, err
	}
	return len(entries), audit.Verify(entries)
}
