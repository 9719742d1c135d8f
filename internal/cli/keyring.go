//go:build !runtimeonly

package cli

import (
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/toolgate/toolgate/internal/auth"
	"github.com/toolgate/toolgate/internal/bundle"
	"github.com/toolgate/toolgate/internal/keyring"
	"github.com/toolgate/toolgate/internal/store"
	"github.com/toolgate/toolgate/web"
)

// kekFlag is the --key-encryption-key-file of the commands that use the
// signing keys; with it they act on the keys in the database.
type kekFlag struct {
	KEKFile string `name:"key-encryption-key-file" env:"TOOLGATE_KEK_FILE" placeholder:"FILE" help:"Key-encryption key file: use the signing keys kept in the database (as 'serve' with the same flag)."`
}

// consoleState is what a console shares with other consoles on the same
// database when it is given a KEK file, or keeps in its data directory
// otherwise: the signing keys, the session cookie keys and the sign-in
// throttle's buckets.
type consoleState struct {
	Keys        keyring.Keyring
	SessionKeys [][]byte
	// Throttle is nil for the in-memory default.
	Throttle *auth.Throttle
	Shared   bool
	// WebhookKEK seals webhook secrets: the shared KEK, or a key of the
	// data directory (webhooks.kek).
	WebhookKEK keyring.KEK
}

// openKeyring returns the signing keys: in the database, sealed under the
// KEK, when kekFile is given (required on PostgreSQL, which several
// consoles may share); in dataDir/keys otherwise. With a KEK, a
// database without keys next to a key directory that has some is refused
// (a new key would silently replace the one runtimes trust): import first.
func openKeyring(ctx context.Context, db *store.DB, dataDir, kekFile string) (keyring.Keyring, error) {
	if kekFile == "" && db.Engine() == store.Postgres {
		return nil, Exit(2, errors.New("a PostgreSQL database is shared by consoles: give each of them, and this command, the same --key-encryption-key-file (TOOLGATE_KEK_FILE) so signing and session keys live in the database, sealed (see README, Running at scale)"))
	}
	if kekFile == "" {
		return &keyring.Files{Dir: signingKeys(dataDir), DB: db}, nil
	}
	kek, err := keyring.LoadKEK(kekFile)
	if err != nil {
		return nil, Exit(2, err)
	}
	if err := checkKEK(ctx, db, kek, kekFile); err != nil {
		return nil, err
	}
	k := &keyring.Database{DB: db, KEK: kek}
	if _, keys, err := k.List(ctx); err != nil {
		return nil, err
	} else if len(keys) == 0 {
		if _, files, err := signingKeys(dataDir).List(); err == nil && len(files) > 0 {
			return nil, Exit(1, fmt.Errorf("the database holds no signing key but %s does: run `toolgate keys import --key-encryption-key-file %s` first, so runtimes keep the key they trust", signingKeys(dataDir).Path, kekFile))
		}
	}
	return k, nil
}

// checkKEK refuses a KEK the database's secrets are not sealed with
// (keyring.CheckKEK), before anything is written with it.
func checkKEK(ctx context.Context, db *store.DB, kek keyring.KEK, kekFile string) error {
	err := keyring.CheckKEK(ctx, db, kek)
	if errors.Is(err, keyring.ErrWrongKEK) {
		return Exit(2, fmt.Errorf("the key-encryption key in %s (--key-encryption-key-file, TOOLGATE_KEK_FILE) is not the one this database's secrets are sealed with: give this command the KEK file every console of this database uses; nothing was changed", kekFile))
	}
	return err
}

// openConsoleState builds what serve shares (or keeps locally).
func openConsoleState(ctx context.Context, db *store.DB, dataDir, kekFile string) (consoleState, error) {
	keys, err := openKeyring(ctx, db, dataDir, kekFile)
	if err != nil {
		return consoleState{}, err
	}
	dbKeys, shared := keys.(*keyring.Database)
	if !shared {
		sk, err := web.LoadSessionKeys(dataDir)
		if err != nil {
			return consoleState{}, err
		}
		kek, err := localKEK(filepath.Join(dataDir, "webhooks.kek"))
		return consoleState{Keys: keys, SessionKeys: sk, WebhookKEK: kek}, err
	}
	sk, err := keyring.SessionKeys(ctx, db, dbKeys.KEK)
	if err != nil {
		return consoleState{}, err
	}
	cfg := auth.DefaultThrottle()
	buckets, err := db.LoginThrottle(cfg)
	if err != nil {
		return consoleState{}, err
	}
	return consoleState{Keys: keys, SessionKeys: sk, Throttle: auth.NewSharedThrottle(cfg, buckets), Shared: true,
		WebhookKEK: dbKeys.KEK}, nil
}

// localKEK loads the data directory's key for webhook secrets, creating
// it (32 random bytes, 0600) on first use.
func localKEK(path string) (keyring.KEK, error) {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err == nil {
		var b [32]byte
		_, _ = rand.Read(b[:])
		_, werr := f.Write(b[:])
		if cerr := f.Close(); werr == nil {
			werr = cerr
		}
		if werr != nil {
			return keyring.KEK{}, fmt.Errorf("webhook key %s: %w", path, werr)
		}
	} else if !errors.Is(err, os.ErrExist) {
		return keyring.KEK{}, fmt.Errorf("webhook key: %w", err)
	}
	return keyring.LoadKEK(path)
}

// activeKeyOrExit is the active signing key, or a one-line instruction when
// there is none yet.
func activeKeyOrExit(ctx context.Context, keys keyring.Keyring) (bundle.SigningKey, error) {
	key, err := keys.Active(ctx)
	if errors.Is(err, bundle.ErrNoActiveKey) {
		return key, Exit(1, errors.New("publish: no signing key yet: run `toolgate keys rotate` or start `toolgate serve` once"))
	}
	return key, err
}
