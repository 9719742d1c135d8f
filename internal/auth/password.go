// Package auth holds the sign-in rules that do not depend on HTTP or SQL:
// password hashing, roles, and throttling of failed sign-ins.
package auth

import (
	"crypto/rand"
	"crypto/subtle"
	"encoding/base64"
	"errors"
	"fmt"
	"strings"

	"golang.org/x/crypto/argon2"
)

// Argon2id parameters: OWASP's recommended minimum (19 MiB, 2 passes, 1
// lane). Memory-hard, so guessing on GPUs is expensive, and ~30 ms per hash
// on one core keeps sign-in and tests quick. They are encoded in every hash,
// so raising them later keeps old hashes verifiable.
const (
	argonMemoryKiB = 19 * 1024
	argonTime      = 2
	argonThreads   = 1
	argonKeyLen    = 32
	argonSaltLen   = 16
)

// MinPasswordLen is the shortest password toolgate accepts. Length is the
// only composition rule (NIST SP 800-63B).
const MinPasswordLen = 12

// MaxPasswordLen bounds the work one sign-in attempt can cause.
const MaxPasswordLen = 256

// ErrMismatch is returned by CheckPassword when the password is wrong.
var ErrMismatch = errors.New("password does not match")

// CheckPasswordPolicy returns a user-facing reason when password is not
// acceptable for a new or changed password, or "" when it is.
func CheckPasswordPolicy(password string) string {
	switch {
	case len(password) < MinPasswordLen:
		return fmt.Sprintf("The password must be at least %d characters long.", MinPasswordLen)
	case len(password) > MaxPasswordLen:
		return fmt.Sprintf("The password must be at most %d characters long.", MaxPasswordLen)
	}
	return ""
}

// HashPassword returns a PHC-formatted argon2id hash of password with a
// random salt.
func HashPassword(password string) (string, error) {
	salt := make([]byte, argonSaltLen)
	if _, err := rand.Read(salt); err != nil {
		return "", fmt.Errorf("hash password: salt: %w", err)
	}
	key := argon2.IDKey([]byte(password), salt, argonTime, argonMemoryKiB, argonThreads, argonKeyLen)
	b64 := base64.RawStdEncoding
	return fmt.Sprintf("$argon2id$v=%d$m=%d,t=%d,p=%d$%s$%s",
		argon2.Version, argonMemoryKiB, argonTime, argonThreads, b64.EncodeToString(salt), b64.EncodeToString(key)), nil
}

// CheckPassword returns nil when password matches encoded, ErrMismatch when
// it does not, and another error when encoded is not a hash this package
// wrote.
func CheckPassword(encoded, password string) error {
	parts := strings.Split(encoded, "$")
	if len(parts) != 6 || parts[1] != "argon2id" {
		return errors.New("check password: not an argon2id hash")
	}
	var version int
	if _, err := fmt.Sscanf(parts[2], "v=%d", &version); err != nil || version != argon2.Version {
		return fmt.Errorf("check password: unsupported argon2 version %q", parts[2])
	}
	var mem, iter uint32
	var threads uint8
	if _, err := fmt.Sscanf(parts[3], "m=%d,t=%d,p=%d", &mem, &iter, &threads); err != nil {
		return fmt.Errorf("check password: parameters %q: %w", parts[3], err)
	}
	b64 := base64.RawStdEncoding
	salt, err := b64.DecodeString(parts[4])
	if err != nil {
		return fmt.Errorf("check password: salt: %w", err)
	}
	want, err := b64.DecodeString(parts[5])
	if err != nil || len(want) == 0 {
		return fmt.Errorf("check password: key: %w", err)
	}
	got := argon2.IDKey([]byte(password), salt, iter, mem, threads, uint32(len(want)))
	if subtle.ConstantTimeCompare(got, want) != 1 {
		return ErrMismatch
	}
	return nil
}

// GeneratePassword returns a random password of 24 URL-safe characters
// (144 bits), for `toolgate user add` without a password on stdin.
func GeneratePassword() (string, error) {
	b := make([]byte, 18)
	if _, err := rand.Read(b); err != nil {
		return "", fmt.Errorf("generate password: %w", err)
	}
	return base64.RawURLEncoding.EncodeToString(b), nil
}
