package store

import (
	"cmp"
	"context"
	"database/sql"
	"errors"
	"fmt"
	"slices"
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

// CallExpiryActor is the audit actor of a call request closed because
// its time passed: no person decided it.
const CallExpiryActor = "system:call-expiry"

// ExpireCallRequests closes the requests past their time: pending ones
// past their expiry, and approved ones whose grant passed its not_after
// unspent, become expired, each with the audit entry
// "call_request.expire". It returns how many; the runtime API's
// background loop of every console calls it. One UPDATE both changes and
// returns the rows, under the write lock consoles share, so of two
// consoles racing each request is closed, and audited, by one of them.
func (db *DB) ExpireCallRequests(ctx context.Context) (int64, error) {
	var n int64
	err := db.inTx(ctx, "expire call requests", func(tx *sqlx.Tx) error {
		now := formatTime(db.Now())
		var rows []callRequestRow
		if err := tx.SelectContext(ctx, &rows, `UPDATE call_requests SET state = 'expired'
			WHERE (state = 'pending' AND expires_at <= ?) OR (state = 'approved' AND grant_not_after <= ?)
			RETURNING `+callRequestColumns, now, now); err != nil {
			return err
		}
		// RETURNING has no order: the chain gets the oldest request first.
		slices.SortFunc(rows, func(a, b callRequestRow) int {
			return cmp.Or(cmp.Compare(a.CreatedAt, b.CreatedAt), cmp.Compare(a.ID, b.ID))
		})
		q := db.auditQueue()
		for _, r := range rows {
			cr, err := r.request()
			if err != nil {
				return err
			}
			q.add(callExpiryEntry(cr))
		}
		n = int64(len(rows))
		return q.flush(ctx, tx)
	})
	if n > 0 {
		db.calls.decided()
	}
	return n, err
}

// callExpiryEntry is the audit entry of cr's expiry: what expired (a
// request waiting for a decision, or an approved one's unspent grant) and
// when its time ended.
func callExpiryEntry(cr *CallRequest) audit.Entry {
	more := map[string]any{"was": callgate.Pending, "expires_at": cr.ExpiresAt}
	if cr.GrantNonce != "" { // only an approval sets a grant
		more = map[string]any{"was": callgate.Approved, "grant_not_after": cr.GrantNotAfter}
	}
	return callDecisionEntry(cr, CallExpiryActor, "expire", "", more)
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
