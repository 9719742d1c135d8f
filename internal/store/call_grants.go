package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"sync"

	"github.com/jmoiron/sqlx"

	"github.com/toolgate/toolgate/internal/apperr"
	"github.com/toolgate/toolgate/internal/approval"
	"github.com/toolgate/toolgate/internal/audit"
	"github.com/toolgate/toolgate/internal/callgate"
)

// ConsumeGrant spends the grant of request id with this nonce for a runtime instance:
// once, fleet-wide (R16). The UPDATE only matches an approved request
// whose grant is unspent and unexpired, under the write lock every
// console shares, so of two consoles racing exactly one succeeds. A grant
// already spent is apperr.Conflict; one expired, or unknown to this
// console, apperr.Gone.
func (db *DB) ConsumeGrant(ctx context.Context, id, nonce, instance string) (*CallRequest, error) {
	var out *CallRequest
	err := db.inTx(ctx, "consume call grant", func(tx *sqlx.Tx) error {
		now := formatTime(db.Now())
		res, err := tx.ExecContext(ctx, `UPDATE call_requests SET state = 'consumed', consumed_at = ?, consumed_by = ?
			WHERE id = ? AND grant_nonce = ? AND state = 'approved' AND consumed_at IS NULL AND grant_not_after > ?`,
			now, instance, id, nonce, now)
		if err != nil {
			return err
		}
		n, err := res.RowsAffected()
		if err != nil {
			return fmt.Errorf("rows affected: %w", err)
		}
		var row callRequestRow
		if err := tx.GetContext(ctx, &row, `SELECT `+callRequestColumns+` FROM call_requests WHERE id = ? AND grant_nonce = ?`, id, nonce); err != nil {
			return goneIfMissing(err)
		}
		if out, err = row.request(); err != nil {
			return err
		}
		if n == 0 {
			return spendRefusal(out, db)
		}
		return db.appendAudit(ctx, tx, audit.Entry{Actor: principalName(out.Principal), Action: "call_grant.consume",
			Subject: SubjectTool(out.Tool), After: auditJSON(map[string]any{"request": out.ID, "instance": instance})})
	})
	if err != nil {
		return nil, err
	}
	db.calls.decided()
	return out, nil
}

func goneIfMissing(err error) error {
	if errors.Is(err, sql.ErrNoRows) {
		return apperr.Errorf(apperr.Gone, "This console issued no such grant: ask for the call again.")
	}
	return err
}

// spendRefusal says why a grant could not be spent (approval's sentence).
func spendRefusal(cr *CallRequest, db *DB) error {
	from := cr.StateAt(db.Now())
	r := approval.CallTransition(from, callgate.Consumed)
	if r == nil { // cannot happen: the UPDATE would have matched
		return apperr.Conflictf("The grant could not be used.")
	}
	if from == callgate.Consumed {
		return apperr.Conflictf("The grant was already used: a grant allows exactly one call.")
	}
	return apperr.Errorf(apperr.Gone, "The grant can no longer be used (the call request is %s): ask for the call again.", from)
}

// ExpireCallRequests closes the requests past their time: pending ones
// past their expiry, and approved ones whose grant passed its not_after
// unspent, become expired. It returns how many; the runtime API's
// background loop calls it.
func (db *DB) ExpireCallRequests(ctx context.Context) (int64, error) {
	var n int64
	err := db.inTx(ctx, "expire call requests", func(tx *sqlx.Tx) error {
		now := formatTime(db.Now())
		res, err := tx.ExecContext(ctx, `UPDATE call_requests SET state = 'expired'
			WHERE (state = 'pending' AND expires_at <= ?) OR (state = 'approved' AND grant_not_after <= ?)`, now, now)
		if err != nil {
			return err
		}
		n, err = res.RowsAffected()
		return err
	})
	if n > 0 {
		db.calls.decided()
	}
	return n, err
}

// callSignal wakes the waiters on call decisions made through this
// process's store (the runtime API's long poll): Changed returns a
// channel closed at the next decision.
type callSignal struct {
	mu sync.Mutex
	ch chan struct{}
}

func (s *callSignal) changed() <-chan struct{} {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.ch == nil {
		s.ch = make(chan struct{})
	}
	return s.ch
}

func (s *callSignal) decided() {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.ch != nil {
		close(s.ch)
		s.ch = nil
	}
}

// CallDecisions returns a channel closed when this process next decides a
// call request, spends a grant or expires requests. Decisions made by
// another console are not signalled: a waiter reads the row again too.
func (db *DB) CallDecisions() <-chan struct{} { return db.calls.changed() }
