package keyring

import (
	"crypto/aes"
	"crypto/cipher"
	"crypto/rand"
	"encoding/base64"
	"errors"
	"fmt"
	"os"
	"strings"
)

// KEK is the 32-byte key-encryption key that seals private keys in the
// database. Its String and GoString never show the key.
type KEK struct {
	aead cipher.AEAD
}

// String hides the key.
func (KEK) String() string { return "KEK(…)" }

// GoString hides the key.
func (KEK) GoString() string { return "KEK(…)" }

// ErrOpen is returned when a sealed value does not open: another KEK, a
// changed ciphertext, or a value moved from another key or secret.
var ErrOpen = errors.New("sealed value does not open with this key-encryption key (another KEK, or the value was changed)")

// NewKEK builds a KEK from 32 bytes.
func NewKEK(key []byte) (KEK, error) {
	if len(key) != 32 {
		return KEK{}, fmt.Errorf("key-encryption key: %d bytes, want 32", len(key))
	}
	block, err := aes.NewCipher(key)
	if err != nil {
		return KEK{}, fmt.Errorf("key-encryption key: %w", err)
	}
	aead, err := cipher.NewGCM(block)
	if err != nil {
		return KEK{}, fmt.Errorf("key-encryption key: %w", err)
	}
	return KEK{aead: aead}, nil
}

// LoadKEK reads a KEK file: 32 raw bytes, or their base64 (standard or
// URL alphabet, padded or not) on one line. A file that group or others
// can read is refused, as the signing key files are: a KEK that may have
// been copied no longer protects anything.
func LoadKEK(path string) (KEK, error) {
	info, err := os.Stat(path)
	if err != nil {
		return KEK{}, fmt.Errorf("key-encryption key file: %w", err)
	}
	if perm := info.Mode().Perm(); perm&0o077 != 0 {
		return KEK{}, fmt.Errorf("key-encryption key file %s has mode %04o; it must be readable by its owner only (chmod 600 %s)", path, perm, path)
	}
	data, err := os.ReadFile(path)
	if err != nil {
		return KEK{}, fmt.Errorf("key-encryption key file: %w", err)
	}
	if len(data) == 32 {
		return NewKEK(data)
	}
	text := strings.TrimRight(strings.TrimSpace(string(data)), "=")
	for _, enc := range []*base64.Encoding{base64.RawStdEncoding, base64.RawURLEncoding} {
		if key, err := enc.DecodeString(text); err == nil && len(key) == 32 {
			return NewKEK(key)
		}
	}
	return KEK{}, fmt.Errorf("key-encryption key file %s: want 32 random bytes, raw or base64 (e.g. `head -c 32 /dev/urandom | base64 > %s`)", path, path)
}

// sealPrefix versions the stored form, so another algorithm can follow.
const sealPrefix = "v1."

// Seal encrypts plaintext bound to aad (what it is: a kid, a secret's
// name) and returns the stored form.
func (k KEK) Seal(plaintext []byte, aad string) (string, error) {
	if k.aead == nil {
		return "", errors.New("seal: no key-encryption key")
	}
	nonce := make([]byte, k.aead.NonceSize())
	if _, err := rand.Read(nonce); err != nil {
		return "", fmt.Errorf("seal: %w", err)
	}
	out := k.aead.Seal(nonce, nonce, plaintext, []byte(aad))
	return sealPrefix + base64.RawURLEncoding.EncodeToString(out), nil
}

// Open decrypts a value Seal returned for the same aad; ErrOpen when it
// does not open.
func (k KEK) Open(sealed, aad string) ([]byte, error) {
	if k.aead == nil {
		return nil, errors.New("open: no key-encryption key")
	}
	rest, ok := strings.CutPrefix(sealed, sealPrefix)
	if !ok {
		return nil, fmt.Errorf("open: unknown sealed format: %w", ErrOpen)
	}
	raw, err := base64.RawURLEncoding.DecodeString(rest)
	if err != nil || len(raw) < k.aead.NonceSize()+k.aead.Overhead() {
		return nil, fmt.Errorf("open: malformed sealed value: %w", ErrOpen)
	}
	n := k.aead.NonceSize()
	plain, err := k.aead.Open(nil, raw[:n], raw[n:], []byte(aad))
	if err != nil {
		return nil, fmt.Errorf("open: %w", ErrOpen)
	}
	return plain, nil
}
