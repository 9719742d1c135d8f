package webhook

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"math/rand/v2"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/toolgate/toolgate/internal/notify"
	"github.com/toolgate/toolgate/internal/store"
)

// Delivery limits (README "Webhooks").
const (
	// MaxAttempts is how often one delivery is tried before it is failed.
	MaxAttempts = 6
	// maxBackoff caps the wait between attempts, Retry-After included.
	maxBackoff = time.Hour
	// attemptTimeout bounds one request, connection to last byte.
	attemptTimeout = 10 * time.Second
	// maxResponseRead is how much of an answer is read (and dropped).
	maxResponseRead = 4 << 10
	// lease is how long a claimed delivery is this console's to send.
	lease = time.Minute
	// claimBatch is how many deliveries one pass claims.
	claimBatch = 20
	// idlePoll is how often the dispatcher looks for due deliveries when
	// nothing woke it (retries fall due; another console enqueued).
	idlePoll = 2 * time.Second
	// logRetention is how long the delivery log is kept.
	logRetention = 30 * 24 * time.Hour
)

// Opener opens a sealed secret (internal/keyring KEK.Open).
type Opener func(sealed, aad string) ([]byte, error)

// SecretAAD is the additional data a webhook's secret is sealed with.
func SecretAAD(id string) string { return "toolgate webhook secret " + id }

// Config is what a Dispatcher needs.
type Config struct {
	Store  *store.DB
	Logger *slog.Logger
	Open   Opener
	// BaseBackoff is the wait after the first failed attempt, doubling
	// after each (with jitter); 0 means 5 s.
	BaseBackoff time.Duration
	// Client sends the requests; nil means one with attemptTimeout that
	// never follows a redirect.
	Client *http.Client
	// Poll is how often Run looks for due deliveries when nothing woke
	// it; 0 means idlePoll.
	Poll time.Duration
}

// Dispatcher is the console's notify.Notifier for webhooks: Notify stores
// a delivery per webhook that receives the event and wakes Run, which
// sends due deliveries until its context ends. Pending deliveries are in
// the database, so a restart loses none, and a lease lets consoles
// sharing a database each send a delivery once.
type Dispatcher struct {
	cfg  Config
	wake chan struct{}
}

// NewDispatcher returns a Dispatcher; call Run to send.
func NewDispatcher(cfg Config) *Dispatcher {
	if cfg.BaseBackoff <= 0 {
		cfg.BaseBackoff = 5 * time.Second
	}
	if cfg.Poll <= 0 {
		cfg.Poll = idlePoll
	}
	if cfg.Client == nil {
		cfg.Client = &http.Client{Timeout: attemptTimeout,
			CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	}
	return &Dispatcher{cfg: cfg, wake: make(chan struct{}, 1)}
}

// Notify stores the event's deliveries and wakes Run. It never fails the
// caller: a store error is logged.
func (d *Dispatcher) Notify(ctx context.Context, e notify.Event) {
	body, err := json.Marshal(e)
	if err == nil {
		ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
		defer cancel()
		_, err = d.cfg.Store.EnqueueDeliveries(ctx, e.Kind, e.ID, string(body), func() string { return NewID("whd_") })
	}
	if err != nil {
		d.cfg.Logger.Warn("webhook: storing the deliveries of an event", "kind", e.Kind, "id", e.ID, "err", err)
		return
	}
	select {
	case d.wake <- struct{}{}:
	default:
	}
}

// Run sends due deliveries until ctx ends.
func (d *Dispatcher) Run(ctx context.Context) {
	t := time.NewTicker(d.cfg.Poll)
	defer t.Stop()
	prune := time.NewTicker(time.Hour)
	defer prune.Stop()
	for {
		d.sendDue(ctx)
		select {
		case <-ctx.Done():
			return
		case <-d.wake:
		case <-t.C:
		case <-prune.C:
			if err := d.cfg.Store.PruneWebhookLog(ctx, d.cfg.Store.Now().Add(-logRetention)); err != nil && ctx.Err() == nil {
				d.cfg.Logger.Warn("webhook: pruning the delivery log", "err", err)
			}
		}
	}
}

// sendDue claims and sends due deliveries until none is left.
func (d *Dispatcher) sendDue(ctx context.Context) {
	for ctx.Err() == nil {
		due, err := d.cfg.Store.ClaimDeliveries(ctx, lease, claimBatch)
		if err != nil {
			if ctx.Err() == nil {
				d.cfg.Logger.Warn("webhook: claiming deliveries", "err", err)
			}
			return
		}
		if len(due) == 0 {
			return
		}
		// The claim read each delivery's webhook (store.DeliveryTarget);
		// its secret is opened once per webhook of the batch.
		secrets := map[string][]byte{}
		claimed := d.cfg.Store.Now()
		for i, del := range due {
			// The lease must outlast every attempt begun under it, or
			// another console claims the rest and sends them twice. What
			// is left is claimed again when the lease has run out.
			if d.cfg.Store.Now().Sub(claimed)+attemptTimeout > lease {
				d.cfg.Logger.Info("webhook: batch stopped before its lease ran out", "left", len(due)-i)
				return
			}
			d.deliver(ctx, del, secrets)
		}
	}
}

// deliver makes one attempt and records its outcome. secrets holds the
// opened secrets of this batch's webhooks by id.
func (d *Dispatcher) deliver(ctx context.Context, del store.Delivery, secrets map[string][]byte) {
	a := store.Attempt{ID: NewID("wha_"), Attempt: del.Attempts + 1, At: d.cfg.Store.Now()}
	status, retryAfter, err := d.send(ctx, del, secrets)
	a.Status, a.DurationMS = status, d.cfg.Store.Now().Sub(a.At).Milliseconds()
	next := a.At
	switch {
	case err == nil && status >= 200 && status < 300:
		a.Outcome = store.DeliverySent
	case a.Attempt >= MaxAttempts || !transient(status, err):
		a.Outcome = store.DeliveryFailed
	default:
		a.Outcome = store.AttemptRetry
		next = a.At.Add(max(Backoff(d.cfg.BaseBackoff, a.Attempt, rand.Float64()), min(retryAfter, maxBackoff)))
	}
	if err != nil {
		a.Error = err.Error()
	} else if a.Outcome != store.DeliverySent {
		a.Error = http.StatusText(status)
	}
	if ferr := d.cfg.Store.FinishAttempt(context.WithoutCancel(ctx), del, a, next); ferr != nil {
		d.cfg.Logger.Warn("webhook: recording an attempt", "delivery", del.ID, "err", ferr)
	}
	if a.Outcome == store.DeliveryFailed {
		d.cfg.Logger.Warn("webhook: delivery failed", "webhook", del.WebhookID, "delivery", del.ID, "attempts", a.Attempt,
			"status", status, "err", a.Error)
	}
}

// transient reports whether an attempt may succeed when tried again: no
// answer, 429, or a 5xx. Any other 4xx will not change.
func transient(status int, err error) bool {
	return err != nil || status == http.StatusTooManyRequests || status >= 500
}

// Backoff is the wait after failed attempt n (1-based): base doubled per
// attempt, capped at an hour, with jitter drawing from its second half
// (r in [0, 1)).
func Backoff(base time.Duration, n int, r float64) time.Duration {
	d := base << min(n-1, 20)
	if d <= 0 || d > maxBackoff {
		d = maxBackoff
	}
	return d/2 + time.Duration(r*float64(d/2))
}

// send makes the request: the body in the webhook's format, signed for
// FormatJSON. It returns the status, the Retry-After it asked for, and an
// error when no answer came (or the secret cannot be opened).
func (d *Dispatcher) send(ctx context.Context, del store.Delivery, secrets map[string][]byte) (int, time.Duration, error) {
	var e notify.Event
	if err := json.Unmarshal([]byte(del.Body), &e); err != nil {
		return 0, 0, fmt.Errorf("stored event: %w", err)
	}
	body, err := Body(del.Format, del.ID, e)
	if err != nil {
		return 0, 0, err
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, del.URL, strings.NewReader(string(body)))
	if err != nil {
		return 0, 0, err
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("User-Agent", "toolgate-webhook/1")
	if del.Format == FormatJSON {
		if err := d.sign(req, del, secrets, body); err != nil {
			return 0, 0, err
		}
	}
	resp, err := d.cfg.Client.Do(req)
	if err != nil {
		return 0, 0, errors.Unwrap(err) // the url.Error's cause: no URL twice in the log
	}
	defer resp.Body.Close()
	_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, maxResponseRead))
	return resp.StatusCode, retryAfter(resp.Header.Get("Retry-After")), nil
}

// sign sets the signature headers of del's request, opening its
// webhook's secret unless secrets holds it already.
func (d *Dispatcher) sign(req *http.Request, del store.Delivery, secrets map[string][]byte, body []byte) error {
	secret, ok := secrets[del.WebhookID]
	if !ok {
		var err error
		if secret, err = d.cfg.Open(del.SecretSealed, SecretAAD(del.WebhookID)); err != nil {
			return fmt.Errorf("opening the webhook's secret: %w", err)
		}
		secrets[del.WebhookID] = secret
	}
	ts := d.cfg.Store.Now()
	sig, err := Sign(string(secret), del.ID, ts, body)
	if err != nil {
		return err
	}
	req.Header.Set(HeaderID, del.ID)
	req.Header.Set(HeaderTimestamp, strconv.FormatInt(ts.Unix(), 10))
	req.Header.Set(HeaderSignature, sig)
	return nil
}

// retryAfter reads a Retry-After header in seconds (0 when absent or an
// HTTP date, which receivers of webhooks rarely send).
func retryAfter(v string) time.Duration {
	n, err := strconv.Atoi(strings.TrimSpace(v))
	if err != nil || n < 0 {
		return 0
	}
	return time.Duration(n) * time.Second
}
