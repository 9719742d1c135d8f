package store

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/stdlib"
	"github.com/jmoiron/sqlx"

	"github.com/toolgate/toolgate/internal/apperr"
)

// writeLockKey is the pg_advisory_xact_lock key every PostgreSQL write
// transaction takes first: the whole database's single writer, across all
// console instances (the analogue of SQLite's write lock). Any constant
// works as long as every toolgate version uses the same one.
const writeLockKey int64 = 0x746f6f6c67617465 // "toolgate"

// StatementTimeout bounds one PostgreSQL statement. Heavy work (planning an
// import, building a bundle) happens outside transactions, so a statement
// that runs this long is stuck; it fails as apperr.Unavailable.
const StatementTimeout = 60 * time.Second

// Pool sizes on PostgreSQL: every connection is a server process, and all
// console instances share the server's max_connections (100 by default),
// so each instance stays well below it. Writers are serialised by the
// advisory lock, so a few suffice.
const (
	pgReadConns  = 8
	pgWriteConns = 4
)

// openPostgres opens the database at a postgres:// URL: a write pool whose
// transactions begin with the advisory write lock (inTx), a read pool whose
// sessions are read-only by default (the analogue of SQLite's query_only),
// and, for goose, a plain pool without the placeholder rewrite.
func openPostgres(ctx context.Context, rawURL string) (*DB, error) {
	cfg, err := pgx.ParseConfig(rawURL)
	if err != nil {
		return nil, fmt.Errorf("open database %s: %w", RedactURL(rawURL), redactErr(err, rawURL))
	}
	params := map[string]string{
		"application_name":                    "toolgate",
		"lock_timeout":                        fmt.Sprint(BusyTimeout.Milliseconds()),
		"statement_timeout":                   fmt.Sprint(StatementTimeout.Milliseconds()),
		"idle_in_transaction_session_timeout": fmt.Sprint(StatementTimeout.Milliseconds()),
	}
	for k, v := range params {
		cfg.RuntimeParams[k] = v
	}
	rcfg := cfg.Copy()
	rcfg.RuntimeParams["default_transaction_read_only"] = "on"
	w, r, m := pgPool(cfg, pgWriteConns), pgPool(rcfg, pgReadConns), sql.OpenDB(stdlib.GetConnector(*cfg.Copy()))
	m.SetMaxOpenConns(2)
	db := &DB{db: w, rdb: r, migrations: m, engine: Postgres, listenConfig: cfg.Copy(), Now: time.Now,
		ApproverIndependence: DefaultApproverIndependence}
	if err := db.Ping(ctx); err != nil {
		_ = db.Close()
		return nil, fmt.Errorf("open database %s: %w", RedactURL(rawURL), redactErr(err, rawURL))
	}
	return db, nil
}

func pgPool(cfg *pgx.ConnConfig, conns int) *sqlx.DB {
	db := sqlx.NewDb(sql.OpenDB(rebindConnector{stdlib.GetConnector(*cfg)}), "pgx")
	db.SetMaxOpenConns(conns)
	db.SetMaxIdleConns(conns)
	db.SetConnMaxIdleTime(5 * time.Minute)
	return db
}

// rebindConnector makes the store's SQL, written with SQLite's `?`
// placeholders, run on PostgreSQL: every query is rewritten to `$1, $2, …`
// (sqlx.Rebind: every `?` is a placeholder, so SQL must not contain a
// literal `?`) and Go bool arguments are sent as 0/1, because booleans are
// INTEGER columns on both engines.
type rebindConnector struct{ driver.Connector }

// Connect wraps the pgx connection.
func (c rebindConnector) Connect(ctx context.Context) (driver.Conn, error) {
	conn, err := c.Connector.Connect(ctx)
	if err != nil {
		return nil, err
	}
	return &rebindConn{Conn: conn.(*stdlib.Conn)}, nil
}

// rebindConn is a pgx stdlib connection whose queries are rebound; every
// other method (transactions, ping, session reset) is pgx's own.
type rebindConn struct{ *stdlib.Conn }

// QueryContext rebinds query (database/sql has passed every argument
// through CheckNamedValue).
func (c *rebindConn) QueryContext(ctx context.Context, query string, args []driver.NamedValue) (driver.Rows, error) {
	return c.Conn.QueryContext(ctx, sqlx.Rebind(sqlx.DOLLAR, query), args)
}

// ExecContext rebinds query.
func (c *rebindConn) ExecContext(ctx context.Context, query string, args []driver.NamedValue) (driver.Result, error) {
	return c.Conn.ExecContext(ctx, sqlx.Rebind(sqlx.DOLLAR, query), args)
}

// PrepareContext rebinds query.
func (c *rebindConn) PrepareContext(ctx context.Context, query string) (driver.Stmt, error) {
	return c.Conn.PrepareContext(ctx, sqlx.Rebind(sqlx.DOLLAR, query))
}

// Prepare rebinds query.
func (c *rebindConn) Prepare(query string) (driver.Stmt, error) {
	return c.Conn.Prepare(sqlx.Rebind(sqlx.DOLLAR, query))
}

// CheckNamedValue sends a Go bool as 0/1 (INTEGER boolean columns).
func (c *rebindConn) CheckNamedValue(nv *driver.NamedValue) error {
	if b, ok := nv.Value.(bool); ok {
		nv.Value = boolInt(b)
	}
	return c.Conn.CheckNamedValue(nv)
}

// unprepared returns the arguments of a batch of rows so that pgx runs it
// without preparing it: a batch's text depends on its number of rows, so
// it is seldom repeated, and preparing it would cost a second round trip
// and keep a prepared statement on the server and in pgx's cache for every
// batch size on every connection. Parameter types then follow the Go
// values (string → text, int64 → bigint) and the target columns cast
// them. A batch of one row has a fixed text and stays prepared (it is an
// audited write's audit entry, say); on SQLite args are returned as they
// are.
func (db *DB) unprepared(rows int, args []any) []any {
	if db.engine != Postgres || rows < 2 {
		return args
	}
	return append([]any{pgx.QueryExecModeExec}, args...)
}

func boolInt(b bool) int64 {
	if b {
		return 1
	}
	return 0
}

// mapPgError is mapError for PostgreSQL: integrity violations (class 23:
// unique, foreign key, check, not null, and the append-only triggers)
// become apperr.Conflict, like SQLite's constraint errors; a serialization
// failure, a deadlock, a lock wait past lock_timeout and a statement past
// statement_timeout become apperr.Unavailable ("try again"), like SQLite's
// busy timeout.
func mapPgError(err error) (error, bool) {
	var pe *pgconn.PgError
	if !errors.As(err, &pe) {
		return err, false
	}
	switch {
	case len(pe.Code) == 5 && pe.Code[:2] == "23":
		return &conflictError{app: apperr.Conflictf("That conflicts with existing data."), cause: err}, true
	case pe.Code == "40001", pe.Code == "40P01", pe.Code == "55P03", pe.Code == "57014":
		return &conflictError{app: apperr.Unavailablef("The database is busy with another change. Please try again in a moment."), cause: err}, true
	}
	return err, true
}
