package cli

import (
	"context"
	"crypto/rand"
	"encoding/json"
	"fmt"
	"os"
	"time"

	"github.com/toolgate/toolgate/internal/apperr"
	"github.com/toolgate/toolgate/internal/store"
)

// keysCmd groups the signing key commands. They act on DATA_DIR/keys while
// the console is stopped (KeyDir does not lock across processes).
type keysCmd struct {
	List   keysListCmd   `cmd:"" help:"List signing keys: active, published, retired."`
	Rotate keysRotateCmd `cmd:"" help:"Create a new signing key and make it active (the old one stays published until retired)."`
	Retire keysRetireCmd `cmd:"" help:"Stop publishing a key that is not active and delete its private file."`
	Export keysExportCmd `cmd:"" help:"Write the published public keys as a JWK Set (what 'bundle verify --key' reads)."`
}

type keysListCmd struct {
	dataDirFlag `embed:""`
}

// Run prints one line per key, newest last.
func (c *keysListCmd) Run(ctx context.Context, env *Env) error {
	active, keys, err := signingKeys(c.DataDir).List()
	if err != nil {
		return err
	}
	for _, k := range keys {
		state := "published"
		switch {
		case k.KeyID == active:
			state = "active"
		case k.RetiredAt != nil:
			state = "retired " + k.RetiredAt.UTC().Format(time.RFC3339)
		}
		fmt.Fprintf(env.Stdout, "%s\tcreated %s\t%s\n", k.KeyID, k.CreatedAt.UTC().Format(time.RFC3339), state)
	}
	return nil
}

type keysRotateCmd struct {
	dataDirFlag `embed:""`
}

// Run rotates, audited as key.rotate, and prints the new kid.
func (c *keysRotateCmd) Run(ctx context.Context, env *Env) error {
	db, err := openStore(ctx, c.DataDir, c.DatabaseURL, true)
	if err != nil {
		return err
	}
	defer db.Close()
	dir := signingKeys(c.DataDir)
	var kid string
	err = db.RecordKeyChange(ctx, store.KeyChange{Actor: cliActor(), Action: store.KeyRotate,
		Apply: func() (string, any, any, error) {
			old, _, err := dir.List()
			if err != nil {
				return "", nil, nil, err
			}
			k, err := dir.Rotate(rand.Reader, time.Now())
			if err != nil {
				return "", nil, nil, err
			}
			kid = k.KeyID
			return kid, map[string]string{"active": old}, map[string]string{"active": kid}, nil
		}})
	if err != nil {
		return err
	}
	fmt.Fprintln(env.Stdout, kid)
	return nil
}

type keysRetireCmd struct {
	dataDirFlag `embed:""`
	KeyID       string `arg:"" name:"KID" help:"Key id to retire (write -- before a key id that starts with a dash)."`
}

// Run retires, audited as key.retire.
func (c *keysRetireCmd) Run(ctx context.Context, env *Env) error {
	db, err := openStore(ctx, c.DataDir, c.DatabaseURL, true)
	if err != nil {
		return err
	}
	defer db.Close()
	// Only "nothing published yet" lets the check pass: a failed read must
	// not retire the key runtimes are verifying the current bundle with.
	cur, err := db.LatestBundle(ctx)
	switch {
	case err == nil && cur.KeyID == c.KeyID:
		return Exit(1, fmt.Errorf("keys retire: the current bundle v%d is signed with %s: publish with the new key first", cur.Version, c.KeyID))
	case err != nil && apperr.CodeOf(err) != apperr.NotFound:
		return fmt.Errorf("keys retire: reading the current bundle: %w", err)
	}
	dir := signingKeys(c.DataDir)
	err = db.RecordKeyChange(ctx, store.KeyChange{Actor: cliActor(), Action: store.KeyRetire,
		Apply: func() (string, any, any, error) {
			if err := dir.Retire(c.KeyID, time.Now()); err != nil {
				return "", nil, nil, err
			}
			return c.KeyID, map[string]bool{"published": true}, map[string]bool{"published": false}, nil
		}})
	if err != nil {
		return Exit(1, fmt.Errorf("keys retire: %w", err))
	}
	fmt.Fprintf(env.Stdout, "retired %s\n", c.KeyID)
	return nil
}

type keysExportCmd struct {
	dataDirFlag `embed:""`
	Out         string `name:"out" placeholder:"FILE" help:"Write to FILE instead of standard output."`
}

// Run writes the JWK Set of every published key (the active one included).
func (c *keysExportCmd) Run(ctx context.Context, env *Env) error {
	set, err := signingKeys(c.DataDir).PublicKeys()
	if err != nil {
		return err
	}
	b, err := json.Marshal(set)
	if err != nil {
		return fmt.Errorf("keys export: %w", err)
	}
	b = append(b, '\n')
	if c.Out == "" {
		_, err = env.Stdout.Write(b)
		return err
	}
	if err := os.WriteFile(c.Out, b, 0o644); err != nil {
		return fmt.Errorf("keys export: %w", err)
	}
	return nil
}
