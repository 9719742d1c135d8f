package store

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jmoiron/sqlx"
)

// Change signals for long polling (the runtime API's waiters): a bundle
// published or rolled back, or a signing key created, rotated, imported or
// retired. Two channels, like localChanges (served.go): Changed fires for
// commits made through this *DB; ListenChanges, on PostgreSQL, for commits
// of any process on the database, by LISTEN/NOTIFY. The NOTIFY is sent
// inside the writing transaction, so PostgreSQL delivers it exactly when
// the change commits and never for one rolled back.

// changesChannel is the PostgreSQL notification channel.
const changesChannel = "toolgate_changes"

// What a notification's payload names.
const (
	changeBundle = "bundle"
	changeKeys   = "keys"
)

// changeSignal is a broadcast: wait returns a channel closed at the next
// fire. One channel serves every waiter, so a waiter costs no more than
// its select.
type changeSignal struct {
	mu sync.Mutex
	ch chan struct{}
}

func (c *changeSignal) wait() <-chan struct{} {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.ch == nil {
		c.ch = make(chan struct{})
	}
	return c.ch
}

func (c *changeSignal) fire() {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.ch != nil {
		close(c.ch)
		c.ch = nil
	}
}

// Changed returns a channel closed once a bundle or signing key change is
// committed through this DB after the call. Take it before reading the
// state it guards, so a change in between is not missed.
func (db *DB) Changed() <-chan struct{} { return db.local.signal.wait() }

// bundlesChanged notes a committed publish or rollback.
func (db *DB) bundlesChanged() {
	db.local.bundles.Add(1)
	db.local.signal.fire()
}

// keyChangeTx is inTx for a signing key change: it notifies other
// consoles in the transaction and this process's waiters once committed.
func (db *DB) keyChangeTx(ctx context.Context, op string, fn func(tx *sqlx.Tx) error) error {
	err := db.inTx(ctx, op, func(tx *sqlx.Tx) error {
		if err := fn(tx); err != nil {
			return err
		}
		return db.notifyChange(ctx, tx, changeKeys)
	})
	if err == nil {
		db.local.signal.fire()
	}
	return err
}

// notifyChange queues a notification for the consoles listening on
// PostgreSQL, delivered at commit; nothing on SQLite, where only one
// console runs and another process's commit is found by polling.
func (db *DB) notifyChange(ctx context.Context, tx *sqlx.Tx, what string) error {
	if db.engine != Postgres {
		return nil
	}
	if _, err := tx.ExecContext(ctx, `SELECT pg_notify('`+changesChannel+`', '`+what+`')`); err != nil {
		return fmt.Errorf("notify %s change: %w", what, err)
	}
	return nil
}

// ErrNoListen is ListenChanges's answer on SQLite: there is no channel
// between processes, and the caller keeps polling.
var ErrNoListen = errors.New("listening for other processes' changes needs PostgreSQL")

// listenRetry bounds the wait before reconnecting a lost listening session.
const listenRetry = 5 * time.Second

// ListenChanges calls changed for every bundle or key change any process
// commits on this PostgreSQL database, and once each time its session is
// (re)established (a change may have been missed while it was not), until
// ctx ends; then it returns nil. It holds one connection of its own,
// outside the pools. On SQLite it returns ErrNoListen at once.
func (db *DB) ListenChanges(ctx context.Context, changed func(), onError func(error)) error {
	if db.listenConfig == nil {
		return ErrNoListen
	}
	for delay := 100 * time.Millisecond; ctx.Err() == nil; delay = min(2*delay, listenRetry) {
		err := db.listenOnce(ctx, changed, func() { delay = 100 * time.Millisecond })
		if ctx.Err() != nil {
			break
		}
		onError(err)
		select {
		case <-ctx.Done():
		case <-time.After(delay):
		}
	}
	return nil
}

// listenOnce is one listening session: it returns when the session fails
// or ctx ends.
func (db *DB) listenOnce(ctx context.Context, changed, connected func()) error {
	conn, err := pgx.ConnectConfig(ctx, db.listenConfig.Copy())
	if err != nil {
		return fmt.Errorf("listen for changes: %w", redactErr(err, db.listenConfig.ConnString()))
	}
	defer conn.Close(context.WithoutCancel(ctx))
	if _, err := conn.Exec(ctx, "LISTEN "+changesChannel); err != nil {
		return fmt.Errorf("listen for changes: %w", err)
	}
	connected()
	changed()
	for {
		if _, err := conn.WaitForNotification(ctx); err != nil {
			return fmt.Errorf("listen for changes: %w", err)
		}
		changed()
	}
}
