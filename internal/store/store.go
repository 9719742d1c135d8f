// Package store keeps toolgate's state in SQLite (sqlx + modernc.org/sqlite)
// or PostgreSQL (sqlx + pgx's database/sql driver).
//
// Engines. Open opens the SQLite file in the data directory, the
// zero-configuration default; OpenURL opens a postgres:// database, for
// several console instances sharing one database. DB.Engine says which.
// The behaviour is the same on both; the store's SQL is written once:
//
//   - Placeholders are `?` everywhere. On PostgreSQL a thin wrapper around
//     the pgx connection (rebindConnector, postgres.go) rewrites them to
//     $1, $2, … below the store, so no call site knows the dialect (SQL
//     must therefore never contain a literal `?`), and sends Go bools as
//     0/1: booleans are INTEGER columns on both engines.
//   - Portable SQL only: INSERT … RETURNING id (no LastInsertId), ON
//     CONFLICT (no INSERT OR IGNORE), no rowid, no SQLite-only functions;
//     case-insensitive comparisons are lower(x) = lower(?) and lower(x)
//     LIKE lower(?) on both engines (SQLite's LIKE ignores ASCII case,
//     PostgreSQL's does not). Text sorts by the database's collation
//     (SQLite: bytes; PostgreSQL: the database's locale).
//   - One migration set (package migrations): a PostgreSQL overlay file
//     replaces the common file of the same name where SQL cannot be shared.
//   - Writes are serialised across every console instance: on SQLite by
//     the file's write lock (IMMEDIATE transactions), on PostgreSQL by
//     pg_advisory_xact_lock(writeLockKey), the first statement of every
//     inTx. That keeps the audit hash chain linear, bundle versions strictly
//     monotonic and approvals exactly-once, whichever instance writes. A
//     writer waits at most BusyTimeout (busy_timeout; lock_timeout) and
//     then fails as apperr.Unavailable; a PostgreSQL statement is bounded by
//     StatementTimeout. Reads are REPEATABLE READ, READ ONLY on PostgreSQL
//     (one snapshot, never waiting for the writer), deferred and
//     query_only on SQLite.
//   - A write that touches many rows (an import) sends them in multi-row
//     statements (batch.go), because on PostgreSQL each statement is a
//     round trip made while every other writer waits for the lock: INSERT
//     … VALUES (…), (…) RETURNING the natural key with the id (rows are
//     matched by key, never by position), UPDATE … FROM (VALUES …) (whose
//     columns are column1, column2, … on both engines), and IN lists, in
//     chunks within SQLite's 32,766 bind parameters (PostgreSQL allows
//     65,535). Its audit entries are queued and sealed in Go, then
//     inserted the same way (auditQueue): the same chain as one at a time.
//
// Every exported method runs in its own transaction: DB.readTx (read-only,
// on the read pool) when it only reads, DB.inTx (the write lock) when it
// writes. Either begins, defers a rollback, calls
// unexported helpers that take the *sqlx.Tx, and (inTx) commits. Heavy work
// (planning an import, building and signing a bundle) happens from a
// read-only snapshot before the write transaction, which re-reads a cheap
// stamp of what the work depended on and refuses a stale result with a
// Conflict (importStamp; a publish compares the publish generation). A
// method that changes state records an audit entry in the same transaction (appendAudit), so a change and its audit record exist together
// or not at all. "Not found" is an apperr.NotFound error, never (nil, nil),
// and constraint violations of either engine become apperr.Conflict in one
// place (mapError).
//
// People rules the store enforces itself, so no handler can forget them
// (R10): a change request is decided by an enabled approver other than the
// requester, and independent of them. Giving the approver role, re-enabling
// an approver and resetting an approver's password need an approver (or
// the operator on the host, OperatorActor), except while no account has
// ever held the role (the first admin's bootstrap); and an approver who
// controls the requester, is controlled by them, or shares a controller
// with them through the acts of DB.ApproverIndependence (7 days by
// default) cannot approve their requests (approval.Independence decides
// over the acts the store loads from account_acts; see
// users_independence.go). A password an admin set opens one session
// (users_password.go). With single sign-on (DB.SSOProvider set) roles come
// from the provider's groups: accounts it manages are created and updated
// only by SignInSSO, and no console user can give the approver role
// (users_sso.go).
package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"math"
	"net/url"
	"strings"
	"sync/atomic"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jmoiron/sqlx"
	"modernc.org/sqlite"
	sqlite3 "modernc.org/sqlite/lib"

	"github.com/toolgate/toolgate/internal/apperr"
	"github.com/toolgate/toolgate/internal/audit"
)

// DB is the toolgate database. It holds two pools on the same database: db
// for writes (every transaction takes the write lock at BEGIN: SQLite's, or
// the PostgreSQL advisory lock) and rdb for reads (read-only transactions
// that never take it). A reader sees the last committed state and never
// waits for a writer (SQLite's WAL mode; PostgreSQL's MVCC), so a page view
// cannot fail or queue because an import is running.
type DB struct {
	db  *sqlx.DB
	rdb *sqlx.DB
	// migrations is goose's pool on PostgreSQL (nil on SQLite, where goose
	// uses db).
	migrations *sql.DB
	engine     Engine
	// listenConfig is how ListenChanges connects (PostgreSQL only; nil on
	// SQLite): a session of its own, outside the pools (changes.go).
	listenConfig *pgx.ConnConfig
	// Now is the clock used for timestamps and expiry; tests replace it.
	Now func() time.Time
	// local counts this process's commits that in-memory caches follow
	// (served.go).
	local localChanges
	// counts caches scan-sized counts per publish generation
	// (counts_cache.go).
	counts countsCache
	// outcomes caches settled hours of call outcomes (pictures_cache.go).
	outcomes outcomesCache
	// reads counts the read transactions begun (ReadTransactions).
	reads atomic.Uint64
	// calls wakes the waiters on call decisions (call_grants.go).
	calls callSignal
	// afterPublishBuild, when set (tests), runs between building a bundle
	// and storing it.
	afterPublishBuild func()
	// batchParams, when set (tests), lowers the bind parameters a batched
	// statement may carry (maxBindParams), so a small import is written in
	// many statements (batch.go).
	batchParams int
	// ApproverIndependence is how long an account the requester created,
	// promoted, re-enabled or reset cannot approve their requests (R10);
	// Open sets DefaultApproverIndependence.
	ApproverIndependence time.Duration
	// SSOProvider names the identity provider when the console runs with
	// single sign-on (roles from its groups); then no console user can give
	// the approver role (users_sso.go). "" for local accounts only.
	SSOProvider string
}

// BusyTimeout bounds how long a write waits for another writer before it
// fails with apperr.Unavailable (503 "try again").
const BusyTimeout = 5 * time.Second

// Pool sizes. Readers are cheap and concurrent in WAL mode; writers are
// serialised by SQLite anyway, so a few connections suffice. Idle counts
// equal the open counts so a burst never closes and reopens the file.
const (
	readConns  = 8
	writeConns = 4
)

// DSN returns the modernc SQLite data source name for the database file at
// path: WAL so readers never block the writer, a busy timeout instead of
// immediate SQLITE_BUSY, foreign keys enforced, and IMMEDIATE transactions.
// The last one matters for the audit chain: a method reads the last hash and
// then writes, and a deferred transaction that tries to upgrade its read
// lock while another connection writes fails at once with SQLITE_BUSY
// (busy_timeout does not apply to upgrades). Taking the write lock at BEGIN
// makes concurrent writers queue instead.
func DSN(path string) string {
	u := url.URL{Scheme: "file", Opaque: path}
	return u.String() + fmt.Sprintf("?_pragma=journal_mode(WAL)&_pragma=busy_timeout(%d)&_pragma=foreign_keys(1)&_txlock=immediate", BusyTimeout.Milliseconds())
}

// readDSN is the DSN of the read pool: deferred transactions (the default)
// on connections that refuse to write, so a read path that tried to write by
// mistake fails loudly instead of taking the write lock.
func readDSN(path string) string {
	u := url.URL{Scheme: "file", Opaque: path}
	return u.String() + fmt.Sprintf("?_pragma=journal_mode(WAL)&_pragma=busy_timeout(%d)&_pragma=foreign_keys(1)&_pragma=query_only(1)", BusyTimeout.Milliseconds())
}

// Open opens (creating if needed) the database file at path. It does not
// migrate; call Migrate.
func Open(ctx context.Context, path string) (*DB, error) {
	w, err := openPool(ctx, DSN(path), writeConns)
	if err != nil {
		return nil, fmt.Errorf("open database %s: %w", path, err)
	}
	r, err := openPool(ctx, readDSN(path), readConns)
	if err != nil {
		_ = w.Close()
		return nil, fmt.Errorf("open database %s: %w", path, err)
	}
	return &DB{db: w, rdb: r, engine: SQLite, Now: time.Now, ApproverIndependence: DefaultApproverIndependence}, nil
}

func openPool(ctx context.Context, dsn string, conns int) (*sqlx.DB, error) {
	db, err := sqlx.Open("sqlite", dsn)
	if err != nil {
		return nil, err
	}
	db.SetMaxOpenConns(conns)
	db.SetMaxIdleConns(conns)
	db.SetConnMaxIdleTime(0)
	if err := db.PingContext(ctx); err != nil {
		_ = db.Close()
		return nil, err
	}
	return db, nil
}

// Close closes the database.
func (db *DB) Close() error {
	err := errors.Join(db.rdb.Close(), db.db.Close())
	if db.migrations != nil {
		err = errors.Join(err, db.migrations.Close())
	}
	return err
}

// Ping checks that the database answers.
func (db *DB) Ping(ctx context.Context) error {
	if err := db.db.PingContext(ctx); err != nil {
		return fmt.Errorf("ping database: %w", err)
	}
	return nil
}

// readTx runs fn in a deferred, read-only transaction on the read pool: a
// consistent snapshot that never takes the write lock and never waits for a
// writer. Every method that only reads uses it.
func (db *DB) readTx(ctx context.Context, op string, fn func(tx *sqlx.Tx) error) error {
	db.reads.Add(1)
	opts := &sql.TxOptions{ReadOnly: true}
	if db.engine == Postgres {
		// One snapshot for the whole transaction, as SQLite's deferred
		// read transaction gives.
		opts.Isolation = sql.LevelRepeatableRead
	}
	tx, err := db.rdb.BeginTxx(ctx, opts)
	if err != nil {
		return fmt.Errorf("%s: begin: %w", op, mapError(err))
	}
	defer func() { _ = tx.Rollback() }()
	if err := fn(tx); err != nil {
		return fmt.Errorf("%s: %w", op, mapError(err))
	}
	return nil
}

// inTx runs fn in a write transaction (IMMEDIATE: it takes the write lock at
// BEGIN) and commits when fn returns nil. It is, with readTx, the one place
// where database errors are translated (mapError). Keep fn short: compute
// before calling inTx, write inside it.
func (db *DB) inTx(ctx context.Context, op string, fn func(tx *sqlx.Tx) error) error {
	tx, err := db.db.BeginTxx(ctx, nil)
	if err != nil {
		return fmt.Errorf("%s: begin: %w", op, mapError(err))
	}
	defer func() { _ = tx.Rollback() }()
	if db.engine == Postgres {
		// The single writer across every console instance; waits at most
		// lock_timeout (BusyTimeout), then 55P03 → Unavailable.
		if _, err := tx.ExecContext(ctx, `SELECT pg_advisory_xact_lock(?)`, writeLockKey); err != nil {
			return fmt.Errorf("%s: write lock: %w", op, mapError(err))
		}
	}
	if err := fn(tx); err != nil {
		return fmt.Errorf("%s: %w", op, mapError(err))
	}
	if err := tx.Commit(); err != nil {
		return fmt.Errorf("%s: commit: %w", op, mapError(err))
	}
	return nil
}

// mapError turns constraint violations into apperr.Conflict and a write
// that waited BusyTimeout for the lock into apperr.Unavailable (SQLite
// here, PostgreSQL in mapPgError); other errors pass through unchanged (and
// are internal).
func mapError(err error) error {
	if mapped, ok := mapPgError(err); ok {
		return mapped
	}
	var se *sqlite.Error
	if !errors.As(err, &se) {
		return err
	}
	switch se.Code() & 0xff {
	case sqlite3.SQLITE_CONSTRAINT:
		return &conflictError{app: apperr.Conflictf("That conflicts with existing data."), cause: err}
	case sqlite3.SQLITE_BUSY, sqlite3.SQLITE_LOCKED:
		return &conflictError{app: apperr.Unavailablef("The database is busy with another change. Please try again in a moment."), cause: err}
	}
	return err
}

// conflictError is an apperr error (Conflict or Unavailable) that keeps the
// SQLite error for logs.
type conflictError struct {
	app   *apperr.Error
	cause error
}

func (e *conflictError) Error() string   { return e.app.Message + ": " + e.cause.Error() }
func (e *conflictError) Unwrap() []error { return []error{e.app, e.cause} }

// notFound converts sql.ErrNoRows into an apperr.NotFound naming what.
func notFound(err error, what string) error {
	if errors.Is(err, sql.ErrNoRows) {
		return apperr.NotFoundf("%s was not found.", what)
	}
	return err
}

// sqlLimit is a LIMIT argument: n, or no limit when n < 0 (SQLite takes
// LIMIT -1 for that, PostgreSQL refuses it).
func sqlLimit(n int) int64 {
	if n < 0 {
		return math.MaxInt64
	}
	return int64(n)
}

// escapeLike escapes LIKE's wildcards and its escape character, so text
// typed into a filter matches literally in a `LIKE ? ESCAPE '\'` clause.
func escapeLike(s string) string {
	return strings.NewReplacer(`\`, `\\`, `%`, `\%`, `_`, `\_`).Replace(s)
}

func formatTime(t time.Time) string { return t.UTC().Format(audit.TimeLayout) }

func parseTime(s string) (time.Time, error) {
	t, err := time.Parse(audit.TimeLayout, s)
	if err != nil {
		return time.Time{}, fmt.Errorf("parse stored time %q: %w", s, err)
	}
	return t, nil
}
