package store

import (
	"context"
	"strings"
	"time"

	"github.com/jmoiron/sqlx"

	"github.com/toolgate/toolgate/internal/apperr"
	"github.com/toolgate/toolgate/internal/audit"
)

// Webhook is a configured receiver of notify events (internal/webhook).
// SecretSealed is the signing secret as internal/keyring sealed it; the
// store never sees it in the clear.
type Webhook struct {
	ID           string    `db:"id"`
	Name         string    `db:"name"`
	URL          string    `db:"url"`
	Format       string    `db:"format"`
	EventsText   string    `db:"events"`
	SecretSealed string    `db:"secret_sealed"`
	CreatedAtRaw string    `db:"created_at"`
	CreatedBy    string    `db:"created_by"`
	CreatedAt    time.Time `db:"-"`
}

// Events are the notify kinds the webhook receives.
func (w *Webhook) Events() []string { return strings.Split(w.EventsText, ",") }

func (w *Webhook) auditView() map[string]any {
	return map[string]any{"name": w.Name, "url": w.URL, "format": w.Format, "events": w.Events()}
}

func subjectWebhook(id string) string { return "webhook:" + id }

// CreateWebhook stores w (ID, Name, URL, Format, EventsText and
// SecretSealed set by the caller, who checked them) as created by actor
// ("webhook.create"). A name in use is a Conflict.
func (db *DB) CreateWebhook(ctx context.Context, actor string, w Webhook) (*Webhook, error) {
	w.CreatedAt, w.CreatedBy = db.Now(), actor
	err := db.inTx(ctx, "create webhook", func(tx *sqlx.Tx) error {
		if _, err := tx.ExecContext(ctx, `INSERT INTO webhooks (id, name, url, format, events, secret_sealed, created_at, created_by)
			VALUES (?, ?, ?, ?, ?, ?, ?, ?)`, w.ID, w.Name, w.URL, w.Format, w.EventsText, w.SecretSealed,
			formatTime(w.CreatedAt), actor); err != nil {
			return err
		}
		return db.appendAudit(ctx, tx, audit.Entry{Actor: actor, Action: "webhook.create", Subject: subjectWebhook(w.ID),
			After: auditJSON(w.auditView())})
	})
	if apperr.CodeOf(err) == apperr.Conflict {
		return nil, apperr.Conflictf("A webhook named %q exists already.", w.Name)
	}
	return &w, err
}

// Webhooks lists every webhook by name.
func (db *DB) Webhooks(ctx context.Context) ([]Webhook, error) {
	var out []Webhook
	err := db.readTx(ctx, "webhooks", func(tx *sqlx.Tx) error {
		return tx.SelectContext(ctx, &out, `SELECT id, name, url, format, events, secret_sealed, created_at, created_by
			FROM webhooks ORDER BY name`)
	})
	return out, parseWebhookTimes(out, err)
}

// Webhook returns the webhook with id (NotFound when there is none).
func (db *DB) Webhook(ctx context.Context, id string) (*Webhook, error) {
	var w []Webhook
	err := db.readTx(ctx, "webhook", func(tx *sqlx.Tx) error {
		return tx.SelectContext(ctx, &w, `SELECT id, name, url, format, events, secret_sealed, created_at, created_by
			FROM webhooks WHERE id = ?`, id)
	})
	if err = parseWebhookTimes(w, err); err != nil {
		return nil, err
	}
	if len(w) == 0 {
		return nil, apperr.NotFoundf("There is no such webhook.")
	}
	return &w[0], nil
}

func parseWebhookTimes(ws []Webhook, err error) error {
	if err != nil {
		return err
	}
	for i := range ws {
		if ws[i].CreatedAt, err = parseTime(ws[i].CreatedAtRaw); err != nil {
			return err
		}
	}
	return nil
}

// DeleteWebhook deletes a webhook with its deliveries and their log
// ("webhook.delete").
func (db *DB) DeleteWebhook(ctx context.Context, actor, id string) error {
	w, err := db.Webhook(ctx, id)
	if err != nil {
		return err
	}
	return db.inTx(ctx, "delete webhook", func(tx *sqlx.Tx) error {
		for _, q := range []string{`DELETE FROM webhook_attempts WHERE webhook_id = ?`,
			`DELETE FROM webhook_deliveries WHERE webhook_id = ?`, `DELETE FROM webhooks WHERE id = ?`} {
			if _, err := tx.ExecContext(ctx, q, id); err != nil {
				return err
			}
		}
		return db.appendAudit(ctx, tx, audit.Entry{Actor: actor, Action: "webhook.delete", Subject: subjectWebhook(id),
			Before: auditJSON(w.auditView())})
	})
}
