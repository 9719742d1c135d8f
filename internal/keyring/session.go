package keyring

import (
	"context"
	"crypto/rand"
	"fmt"

	"github.com/toolgate/toolgate/internal/store"
)

// sessionKeysName is the console_secrets row of the session cookie keys.
const sessionKeysName = "session.keys"

// sessionKeysLen is 64 bytes of HMAC key then 32 bytes of AES key, the
// layout of the data directory's session.keys file (web.LoadSessionKeys).
const sessionKeysLen = 96

// SessionKeys returns the session cookie keys every console sharing db
// uses, creating them sealed under kek on first use (the first console to
// start wins; the others read its keys). A cookie one console writes is
// then read by any other.
func SessionKeys(ctx context.Context, db *store.DB, kek KEK) ([][]byte, error) {
	aad := "toolgate console secret " + sessionKeysName
	sealed, err := db.ConsoleSecret(ctx, sessionKeysName, func() (string, error) {
		b := make([]byte, sessionKeysLen)
		if _, err := rand.Read(b); err != nil {
			return "", err
		}
		return kek.Seal(b, aad)
	})
	if err != nil {
		return nil, fmt.Errorf("session keys: %w", err)
	}
	b, err := kek.Open(sealed, aad)
	if err != nil {
		return nil, fmt.Errorf("session keys: %w", err)
	}
	if len(b) != sessionKeysLen {
		return nil, fmt.Errorf("session keys: %d bytes stored, want %d", len(b), sessionKeysLen)
	}
	return [][]byte{b[:64], b[64:]}, nil
}
