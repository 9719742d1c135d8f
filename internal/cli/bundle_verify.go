package cli

import (
	"context"
	"fmt"
	"os"
	"time"

	"github.com/toolgate/toolgate/internal/bundle"
)

// bundleVerifyCmd is `toolgate bundle verify`: what a runtime checks before
// it uses a bundle, for operators and scripts.
type bundleVerifyCmd struct {
	Key         string `name:"key" required:"" placeholder:"PUBKEY_FILE" help:"Public keys: a JWK Set (as from 'toolgate keys export' or GET /api/v1/keys) or a single JWK."`
	LastVersion int64  `name:"last-version" placeholder:"N" help:"Refuse a bundle whose version is not greater than N."`
	File        string `arg:"" name:"BUNDLE_FILE" help:"The signed bundle (JWS compact serialization) exactly as runtimes receive it."`
}

// Run verifies the bundle at the current time and prints one line.
func (c *bundleVerifyCmd) Run(ctx context.Context, env *Env) error {
	keys, err := readKeySet(c.Key)
	if err != nil {
		return Exit(2, fmt.Errorf("bundle verify: %w", err))
	}
	signed, err := os.ReadFile(c.File)
	if err != nil {
		return Exit(2, fmt.Errorf("bundle verify: reading the bundle: %w", err))
	}
	b, _, err := bundle.Verify(signed, keys, bundle.VerifyOptions{Now: time.Now(), LastVersion: c.LastVersion})
	if err != nil {
		return Exit(1, fmt.Errorf("%s: refused: %w", c.File, oneLineError{err}))
	}
	_, err = fmt.Fprintf(env.Stdout, "%s: valid: version %d, %d tools, %d sources, issued %s, expires %s\n",
		c.File, b.Version, len(b.Tools), len(b.Sources),
		b.IssuedAt.Format(time.RFC3339), b.ExpiresAt.Format(time.RFC3339))
	return err
}

// readKeySet reads a --key file: a JWK Set (as from 'toolgate keys export'
// or GET /api/v1/keys) or a single JWK.
func readKeySet(path string) (bundle.KeySet, error) {
	raw, err := os.ReadFile(path)
	if err != nil {
		return bundle.KeySet{}, fmt.Errorf("reading the key file: %w", err)
	}
	keys, err := bundle.ParseKeySet(raw)
	if err != nil {
		return bundle.KeySet{}, fmt.Errorf("%s: %w", path, err)
	}
	return keys, nil
}
