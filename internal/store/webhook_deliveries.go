package store

import (
	"context"
	"time"

	"github.com/jmoiron/sqlx"
)

// Webhook delivery states and attempt outcomes.
const (
	DeliveryPending = "pending"
	DeliverySent    = "sent"
	DeliveryFailed  = "failed"
	// AttemptRetry: the attempt failed and another is scheduled.
	AttemptRetry = "retry"
)

// Delivery is one event to send to one webhook.
type Delivery struct {
	ID        string `db:"id"`
	WebhookID string `db:"webhook_id"`
	Kind      string `db:"kind"`
	Subject   string `db:"subject"`
	// Body is the notify.Event as JSON.
	Body     string `db:"body"`
	Attempts int    `db:"attempts"`
	// DeliveryTarget is where it goes, read with it when it is claimed.
	DeliveryTarget
}

// DeliveryTarget is the part of a webhook a delivery needs to be sent:
// ClaimDeliveries reads it in the claiming statement, so a dispatcher
// pass reads no webhook row of its own, and a webhook deleted before the
// claim (its deliveries go with it) is never sent to.
type DeliveryTarget struct {
	URL          string `db:"url"`
	Format       string `db:"format"`
	SecretSealed string `db:"secret_sealed"`
}

// Attempt is one try of a delivery, as the delivery log shows it.
type Attempt struct {
	ID         string    `db:"id"`
	DeliveryID string    `db:"delivery_id"`
	WebhookID  string    `db:"webhook_id"`
	Kind       string    `db:"kind"`
	Subject    string    `db:"subject"`
	Attempt    int       `db:"attempt"`
	AtRaw      string    `db:"at"`
	At         time.Time `db:"-"`
	Status     int       `db:"status"`
	Error      string    `db:"error"`
	DurationMS int64     `db:"duration_ms"`
	// Outcome is DeliverySent, AttemptRetry or DeliveryFailed.
	Outcome string `db:"outcome"`
}

// EnqueueDeliveries stores one pending delivery of the event (kind,
// subject, body) for every webhook that receives kind, due now, with ids
// from newID; it returns how many.
func (db *DB) EnqueueDeliveries(ctx context.Context, kind, subject, body string, newID func() string) (int, error) {
	hooks, err := db.Webhooks(ctx)
	if err != nil {
		return 0, err
	}
	n := 0
	now := formatTime(db.Now())
	err = db.inTx(ctx, "enqueue webhook deliveries", func(tx *sqlx.Tx) error {
		for _, w := range hooks {
			if !receives(&w, kind) {
				continue
			}
			if _, err := tx.ExecContext(ctx, `INSERT INTO webhook_deliveries (id, webhook_id, kind, subject, body, state, next_at, created_at)
				VALUES (?, ?, ?, ?, ?, ?, ?, ?)`, newID(), w.ID, kind, subject, body, DeliveryPending, now, now); err != nil {
				return err
			}
			n++
		}
		return nil
	})
	return n, err
}

func receives(w *Webhook, kind string) bool {
	for _, k := range w.Events() {
		if k == kind {
			return true
		}
	}
	return false
}

// ClaimDeliveries leases up to limit pending deliveries that are due and
// not leased by another console, for lease: the claimer sends them and
// records the outcome (FinishAttempt) before the lease ends, or another
// console may claim them again. Each comes with its DeliveryTarget,
// joined in the same statement: one read per claim, not one per delivery.
func (db *DB) ClaimDeliveries(ctx context.Context, lease time.Duration, limit int) ([]Delivery, error) {
	now := db.Now()
	var out []Delivery
	err := db.inTx(ctx, "claim webhook deliveries", func(tx *sqlx.Tx) error {
		var due []Delivery
		if err := tx.SelectContext(ctx, &due, `SELECT d.id, d.webhook_id, d.kind, d.subject, d.body, d.attempts,
				w.url, w.format, w.secret_sealed
			FROM webhook_deliveries d JOIN webhooks w ON w.id = d.webhook_id
			WHERE d.state = ? AND d.next_at <= ? AND d.lease_until < ? ORDER BY d.next_at LIMIT ?`,
			DeliveryPending, formatTime(now), formatTime(now), limit); err != nil {
			return err
		}
		for _, d := range due {
			res, err := tx.ExecContext(ctx, `UPDATE webhook_deliveries SET lease_until = ? WHERE id = ? AND lease_until < ?`,
				formatTime(now.Add(lease)), d.ID, formatTime(now))
			if err != nil {
				return err
			}
			if n, _ := res.RowsAffected(); n == 1 {
				out = append(out, d)
			}
		}
		return nil
	})
	return out, err
}

// FinishAttempt logs attempt a of delivery d and moves the delivery on:
// sent or failed for good, or (AttemptRetry) pending again at next.
func (db *DB) FinishAttempt(ctx context.Context, d Delivery, a Attempt, next time.Time) error {
	state := a.Outcome
	if state == AttemptRetry {
		state = DeliveryPending
	}
	return db.inTx(ctx, "finish webhook attempt", func(tx *sqlx.Tx) error {
		if _, err := tx.ExecContext(ctx, `INSERT INTO webhook_attempts (id, delivery_id, webhook_id, kind, subject, attempt, at,
			status, error, duration_ms, outcome) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`, a.ID, d.ID, d.WebhookID, d.Kind, d.Subject,
			a.Attempt, formatTime(a.At), a.Status, a.Error, a.DurationMS, a.Outcome); err != nil {
			return err
		}
		_, err := tx.ExecContext(ctx, `UPDATE webhook_deliveries SET state = ?, attempts = ?, next_at = ?, lease_until = '' WHERE id = ?`,
			state, a.Attempt, formatTime(next), d.ID)
		return err
	})
}

// WebhookAttempts is the delivery log of a webhook, newest first.
func (db *DB) WebhookAttempts(ctx context.Context, webhookID string, limit int) ([]Attempt, error) {
	var out []Attempt
	err := db.readTx(ctx, "webhook attempts", func(tx *sqlx.Tx) error {
		return tx.SelectContext(ctx, &out, `SELECT id, delivery_id, webhook_id, kind, subject, attempt, at, status, error,
			duration_ms, outcome FROM webhook_attempts WHERE webhook_id = ? ORDER BY at DESC, id LIMIT ?`, webhookID, limit)
	})
	if err != nil {
		return nil, err
	}
	for i := range out {
		if out[i].At, err = parseTime(out[i].AtRaw); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// PruneWebhookLog deletes attempts logged before cutoff and deliveries
// finished (sent or failed) before it.
func (db *DB) PruneWebhookLog(ctx context.Context, cutoff time.Time) error {
	c := formatTime(cutoff)
	return db.inTx(ctx, "prune webhook log", func(tx *sqlx.Tx) error {
		if _, err := tx.ExecContext(ctx, `DELETE FROM webhook_attempts WHERE at < ?`, c); err != nil {
			return err
		}
		_, err := tx.ExecContext(ctx, `DELETE FROM webhook_deliveries WHERE state <> ? AND created_at < ?
			AND id NOT IN (SELECT delivery_id FROM webhook_attempts)`, DeliveryPending, c)
		return err
	})
}
