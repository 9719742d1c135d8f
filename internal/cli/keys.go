//go:build !runtimeonly

package cli

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"time"

	"github.com/toolgate/toolgate/internal/apperr"
	"github.com/toolgate/toolgate/internal/keyring"
)

// keysCmd groups the signing key commands. Without a KEK file they act on
// DATA_DIR/keys while the console is stopped (KeyDir does not lock across
// processes); with --key-encryption-key-file they act on the keys in the
// database, safely while consoles run (each change is one transaction).
type keysCmd struct {
	List   keysListCmd   `cmd:"" help:"List signing keys: active, published, retired."`
	Rotate keysRotateCmd `cmd:"" help:"Create a new signing key and make it active (the old one stays published until retired)."`
	Retire keysRetireCmd `cmd:"" help:"Stop publishing a key that is not active and delete its private half (file or sealed row)."`
	Export keysExportCmd `cmd:"" help:"Write the published public keys as a JWK Set (what 'bundle verify --key' reads)."`
	Import keysImportCmd `cmd:"" help:"Move the signing keys of DATA_DIR/keys into the database, sealed with the key-encryption key (for running several consoles)."`
}

type keysListCmd struct {
	dataDirFlag `embed:""`
	kekFlag     `embed:""`
}

// Run prints one line per key, newest last.
func (c *keysListCmd) Run(ctx context.Context, env *Env) error {
	kr, closeDB, err := openKeysOf(ctx, c.DataDir, c.DatabaseURL, c.KEKFile)
	if err != nil {
		return err
	}
	defer closeDB()
	active, keys, err := kr.List(ctx)
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
	kekFlag     `embed:""`
}

// Run rotates, audited as key.rotate, and prints the new kid.
func (c *keysRotateCmd) Run(ctx context.Context, env *Env) error {
	kr, closeDB, err := openKeysOf(ctx, c.DataDir, c.DatabaseURL, c.KEKFile)
	if err != nil {
		return err
	}
	defer closeDB()
	kid, err := kr.Rotate(ctx, cliActor())
	if err != nil {
		return err
	}
	fmt.Fprintln(env.Stdout, kid)
	return nil
}

type keysRetireCmd struct {
	dataDirFlag `embed:""`
	kekFlag     `embed:""`
	KeyID       string `arg:"" name:"KID" help:"Key id to retire (write -- before a key id that starts with a dash)."`
}

// Run retires, audited as key.retire. The key of the current bundle is
// refused: runtimes fetching it would find no key to verify it with.
func (c *keysRetireCmd) Run(ctx context.Context, env *Env) error {
	kr, closeDB, err := openKeysOf(ctx, c.DataDir, c.DatabaseURL, c.KEKFile)
	if err != nil {
		return err
	}
	defer closeDB()
	if err := kr.Retire(ctx, cliActor(), c.KeyID); err != nil {
		if code := apperr.CodeOf(err); code == apperr.Conflict || code == apperr.NotFound {
			return Exit(1, fmt.Errorf("keys retire: %s", apperr.MessageOf(err)))
		}
		return Exit(1, fmt.Errorf("keys retire: %w", err))
	}
	fmt.Fprintf(env.Stdout, "retired %s\n", c.KeyID)
	return nil
}

type keysExportCmd struct {
	dataDirFlag `embed:""`
	kekFlag     `embed:""`
	Out         string `name:"out" placeholder:"FILE" help:"Write to FILE instead of standard output."`
}

// Run writes the JWK Set of every published key (the active one included).
func (c *keysExportCmd) Run(ctx context.Context, env *Env) error {
	kr, closeDB, err := openKeysOf(ctx, c.DataDir, c.DatabaseURL, c.KEKFile)
	if err != nil {
		return err
	}
	defer closeDB()
	set, err := kr.PublicKeys(ctx)
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

// openKeysOf opens (and migrates) the database and the keyring the flags
// select; closeDB closes the database.
func openKeysOf(ctx context.Context, dataDir, databaseURL, kekFile string) (keyring.Keyring, func(), error) {
	db, err := openStore(ctx, dataDir, databaseURL, true)
	if err != nil {
		return nil, nil, err
	}
	kr, err := openKeyring(ctx, db, dataDir, kekFile)
	if err != nil {
		_ = db.Close()
		return nil, nil, err
	}
	return kr, func() { _ = db.Close() }, nil
}

type keysImportCmd struct {
	dataDirFlag `embed:""`
	KEKFile     string `name:"key-encryption-key-file" env:"TOOLGATE_KEK_FILE" required:"" placeholder:"FILE" help:"Key-encryption key file the keys are sealed with (the one every console is given)."`
}

// Run copies DATA_DIR/keys into the database, each key audited as
// key.import, and prints the kids imported. The files stay: delete
// DATA_DIR/keys once every console runs with the KEK.
func (c *keysImportCmd) Run(ctx context.Context, env *Env) error {
	kek, err := keyring.LoadKEK(c.KEKFile)
	if err != nil {
		return Exit(2, err)
	}
	db, err := openStore(ctx, c.DataDir, c.DatabaseURL, true)
	if err != nil {
		return err
	}
	defer db.Close()
	if err := checkKEK(ctx, db, kek, c.KEKFile); err != nil {
		return err
	}
	done, err := (&keyring.Database{DB: db, KEK: kek}).Import(ctx, cliActor(), signingKeys(c.DataDir))
	for _, kid := range done {
		fmt.Fprintf(env.Stdout, "imported %s\n", kid)
	}
	if err != nil {
		return Exit(1, fmt.Errorf("keys import: %w", err))
	}
	if len(done) == 0 {
		fmt.Fprintln(env.Stdout, "nothing to import: every key is in the database already")
	}
	return nil
}
