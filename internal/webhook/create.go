package webhook

import (
	"context"
	"regexp"
	"slices"
	"strings"

	"github.com/toolgate/toolgate/internal/apperr"
	"github.com/toolgate/toolgate/internal/store"
)

// Sealer seals a secret for the store (internal/keyring KEK.Seal).
type Sealer func(plaintext []byte, aad string) (string, error)

// New is what an admin enters to add a webhook.
type New struct {
	Name, URL, Format string
	Events            []string
}

// FieldError is a refusal of one field of New, for the form.
type FieldError struct {
	Field, Message string
}

// nameRE is a webhook's name: short and printable.
var nameRE = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9 _.-]{0,63}$`)

// Check lists what is wrong with n, field by field; none means it may be
// stored. allowInsecure lets plain http reach hosts beyond loopback.
func (n New) Check(allowInsecure bool) []FieldError {
	var out []FieldError
	if !nameRE.MatchString(n.Name) {
		out = append(out, FieldError{"name", "Name the webhook with 1 to 64 letters, digits, spaces, '.', '_' or '-'."})
	}
	if err := CheckURL(n.URL, allowInsecure); err != nil {
		out = append(out, FieldError{"url", "URL: " + err.Error() + "."})
	}
	if !slices.Contains(Formats, n.Format) {
		out = append(out, FieldError{"format", "Choose a format: " + strings.Join(Formats, " or ") + "."})
	}
	if err := CheckEvents(n.Events); err != nil {
		out = append(out, FieldError{"events", "Events: " + err.Error() + "."})
	}
	return out
}

// Create stores a checked webhook with a fresh signing secret, sealed, and
// returns it with the secret in the clear: shown this once, never again.
func Create(ctx context.Context, db *store.DB, seal Sealer, actor string, n New) (*store.Webhook, string, error) {
	id, secret := NewID("wh_"), NewSecret()
	sealed, err := seal([]byte(secret), SecretAAD(id))
	if err != nil {
		return nil, "", apperr.Errorf(apperr.Internal, "sealing the webhook's secret: %v", err)
	}
	w, err := db.CreateWebhook(ctx, actor, store.Webhook{ID: id, Name: strings.TrimSpace(n.Name), URL: strings.TrimSpace(n.URL),
		Format: n.Format, EventsText: strings.Join(n.Events, ","), SecretSealed: sealed})
	if err != nil {
		return nil, "", err
	}
	return w, secret, nil
}
