// Package webhook delivers notify events to the webhooks an admin
// configured (README "Webhooks"): a generic JSON body signed as Standard
// Webhooks specifies (webhook-id, webhook-timestamp, webhook-signature
// "v1,<base64 HMAC-SHA256>" over "id.timestamp.body"), or a
// Slack-compatible incoming-webhook body. Deliveries are stored and sent by
// a Dispatcher with retries (dispatcher.go); this file holds the pure
// parts: formats, bodies, signatures and the URL rule.
package webhook

import (
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/toolgate/toolgate/internal/notify"
)

// Formats of a webhook's body.
const (
	// FormatJSON is the signed generic body (Payload).
	FormatJSON = "json"
	// FormatSlack is a Slack incoming-webhook body ({"text": …}); Slack
	// checks no signature, the URL is the secret.
	FormatSlack = "slack"
)

// Formats lists the formats in the order the console offers them.
var Formats = []string{FormatJSON, FormatSlack}

// Events are the event kinds a webhook may receive.
var Events = []string{notify.CallRequest, notify.ChangeRequest}

// SecretPrefix starts every signing secret, as Standard Webhooks does: the
// rest is the base64 of the HMAC key.
const SecretPrefix = "whsec_"

// Headers of a signed delivery.
const (
	HeaderID        = "webhook-id"
	HeaderTimestamp = "webhook-timestamp"
	HeaderSignature = "webhook-signature"
)

// Tolerance is how far a receiver should accept a timestamp from its own
// clock (replay window), as Standard Webhooks recommends.
const Tolerance = 5 * time.Minute

// NewSecret returns a fresh signing secret: SecretPrefix and the base64
// of 32 random bytes.
func NewSecret() string {
	var b [32]byte
	_, _ = rand.Read(b[:]) // never fails (crypto/rand)
	return SecretPrefix + base64.StdEncoding.EncodeToString(b[:])
}

// NewID returns a random id for a webhook, delivery or attempt.
func NewID(prefix string) string {
	var b [12]byte
	_, _ = rand.Read(b[:])
	return prefix + hex.EncodeToString(b[:])
}

// secretKey is the HMAC key of a secret.
func secretKey(secret string) ([]byte, error) {
	key, err := base64.StdEncoding.DecodeString(strings.TrimPrefix(secret, SecretPrefix))
	if err != nil || len(key) == 0 {
		return nil, errors.New("webhook secret: not " + SecretPrefix + " and base64")
	}
	return key, nil
}

// Sign is the webhook-signature value of a delivery: "v1," and the base64
// HMAC-SHA256 under the secret's key of id "." timestamp "." body.
func Sign(secret, id string, ts time.Time, body []byte) (string, error) {
	key, err := secretKey(secret)
	if err != nil {
		return "", err
	}
	mac := hmac.New(sha256.New, key)
	mac.Write([]byte(id + "." + strconv.FormatInt(ts.Unix(), 10) + "."))
	mac.Write(body)
	return "v1," + base64.StdEncoding.EncodeToString(mac.Sum(nil)), nil
}

// Verify is what a receiver does (README "Webhooks"): the timestamp within
// Tolerance of now, and one of the space-separated signatures equal (in
// constant time) to Sign's.
func Verify(secret, id, timestamp, signatures string, body []byte, now time.Time) error {
	sec, err := strconv.ParseInt(timestamp, 10, 64)
	if err != nil {
		return errors.New("webhook-timestamp is not a number of seconds")
	}
	ts := time.Unix(sec, 0)
	if d := now.Sub(ts); d > Tolerance || d < -Tolerance {
		return fmt.Errorf("webhook-timestamp is %s from now: outside the %s window", d.Round(time.Second), Tolerance)
	}
	want, err := Sign(secret, id, ts, body)
	if err != nil {
		return err
	}
	for _, sig := range strings.Fields(signatures) {
		if hmac.Equal([]byte(sig), []byte(want)) {
			return nil
		}
	}
	return errors.New("no webhook-signature matches")
}

// Payload is the generic JSON body: the event with its delivery id and type.
type Payload struct {
	ID   string       `json:"id"`
	Type string       `json:"type"`
	Data notify.Event `json:"data"`
}

// slackBody is a Slack incoming-webhook message.
type slackBody struct {
	Text string `json:"text"`
}

// Body is the request body of a delivery in format.
func Body(format, deliveryID string, e notify.Event) ([]byte, error) {
	switch format {
	case FormatJSON:
		return json.Marshal(Payload{ID: deliveryID, Type: "toolgate." + e.Kind + ".created", Data: e})
	case FormatSlack:
		return json.Marshal(slackBody{Text: slackText(e)})
	}
	return nil, fmt.Errorf("webhook format %q: want %s", format, strings.Join(Formats, " or "))
}

// slackText is the message: what waits, for which tool, and the link, in
// Slack's mrkdwn (<url|text>; &, < and > escaped as Slack asks).
func slackText(e notify.Event) string {
	what := "Call request"
	if e.Kind == notify.ChangeRequest {
		what = "Change request"
	}
	esc := strings.NewReplacer("&", "&amp;", "<", "&lt;", ">", "&gt;")
	text := fmt.Sprintf("%s waiting for a decision: *%s* (%s) from %s: %s", what, esc.Replace(e.Tool),
		esc.Replace(e.RiskClass), esc.Replace(e.Who), esc.Replace(e.Summary))
	if e.URL != "" {
		text += fmt.Sprintf(" <%s|Open in toolgate>", strings.NewReplacer("|", "%7C", ">", "%3E").Replace(e.URL))
	}
	return text
}

// CheckURL is the rule for a webhook URL: absolute http or https with a
// host, no user info; plain http only to a loopback host unless
// allowInsecure (deliveries carry links to requests, and a JSON body is
// signed but not secret).
func CheckURL(raw string, allowInsecure bool) error {
	u, err := url.Parse(strings.TrimSpace(raw))
	switch {
	case err != nil || u.Host == "" || !u.IsAbs():
		return errors.New("enter an absolute URL such as https://hooks.example.com/toolgate")
	case u.Scheme != "https" && u.Scheme != "http":
		return fmt.Errorf("the scheme must be https (or http to a loopback host), not %q", u.Scheme)
	case u.User != nil:
		return errors.New("the URL must not carry a user name or password")
	case u.Scheme == "http" && !allowInsecure && !loopback(u.Hostname()):
		return errors.New("use https: plain http is only allowed to a loopback host (127.0.0.1, ::1, localhost)")
	case len(raw) > 2048:
		return errors.New("the URL may be at most 2048 characters long")
	}
	return nil
}

func loopback(host string) bool {
	if host == "localhost" {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// CheckEvents checks a webhook's event kinds: at least one, each known.
func CheckEvents(kinds []string) error {
	if len(kinds) == 0 {
		return errors.New("choose at least one kind of request")
	}
	for _, k := range kinds {
		if !slices.Contains(Events, k) {
			return fmt.Errorf("%q is not an event: want %s", k, strings.Join(Events, ", "))
		}
	}
	return nil
}
