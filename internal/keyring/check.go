package keyring

import (
	"context"
	"crypto/subtle"
	"errors"
	"fmt"

	"github.com/toolgate/toolgate/internal/store"
)

// The KEK check: a known value sealed under the KEK, kept in
// console_secrets, so that a command or console given another KEK file
// refuses before it writes anything (a key sealed under a second KEK next
// to the first's would leave every console unable to open one of them).
// The first open with a KEK writes it; an older database without one gets
// it at the first open whose KEK opens every sealed value already there.

const (
	kekCheckName = "kek.check"
	kekCheckAAD  = "toolgate console secret " + kekCheckName
)

// kekCheckValue is what the check value seals.
var kekCheckValue = []byte("toolgate key-encryption key check v1")

// ErrWrongKEK is returned by CheckKEK when the database's sealed values
// were sealed under another key-encryption key.
var ErrWrongKEK = errors.New("the database's secrets are sealed with another key-encryption key")

// CheckKEK makes sure kek is the key-encryption key db's sealed values
// are sealed with, writing the check value when there is none (only once
// kek opens every sealed value stored). It returns ErrWrongKEK, having
// written nothing, when kek is another key.
func CheckKEK(ctx context.Context, db *store.DB, kek KEK) error {
	sealed, err := db.ConsoleSecret(ctx, kekCheckName, func() (string, error) {
		if err := opensEverySealedValue(ctx, db, kek); err != nil {
			return "", err
		}
		return kek.Seal(kekCheckValue, kekCheckAAD)
	})
	if errors.Is(err, ErrWrongKEK) {
		return ErrWrongKEK
	}
	if err != nil {
		return fmt.Errorf("key-encryption key check: %w", err)
	}
	plain, err := kek.Open(sealed, kekCheckAAD)
	if err != nil || subtle.ConstantTimeCompare(plain, kekCheckValue) != 1 {
		return ErrWrongKEK
	}
	return nil
}

// opensEverySealedValue checks kek against what a database made before
// the check value holds: the signing keys' private halves and the sealed
// console secrets.
func opensEverySealedValue(ctx context.Context, db *store.DB, kek KEK) error {
	keys, err := db.SigningKeys(ctx)
	if err != nil {
		return err
	}
	for _, k := range keys {
		if k.Sealed == "" {
			continue // retired: nothing sealed left
		}
		if _, err := kek.Open(k.Sealed, signingKeyAAD(k.KeyID)); err != nil {
			return ErrWrongKEK
		}
	}
	secrets, err := db.SealedConsoleSecrets(ctx)
	if err != nil {
		return err
	}
	for name, sealed := range secrets {
		if _, err := kek.Open(sealed, "toolgate console secret "+name); err != nil {
			return ErrWrongKEK
		}
	}
	return nil
}
