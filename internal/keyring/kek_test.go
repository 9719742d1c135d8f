package keyring

import (
	"bytes"
	"encoding/base64"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func testKEK(t testing.TB, fill byte) KEK {
	t.Helper()
	k, err := NewKEK(bytes.Repeat([]byte{fill}, 32))
	if err != nil {
		t.Fatal(err)
	}
	return k
}

func TestSealOpen(t *testing.T) {
	kek, other := testKEK(t, 1), testKEK(t, 2)
	secret := []byte("0123456789abcdef0123456789abcdef")
	sealed, err := kek.Seal(secret, "toolgate signing key A")
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(sealed, base64.RawURLEncoding.EncodeToString(secret)) || bytes.Contains([]byte(sealed), secret) {
		t.Fatal("the sealed form shows the secret")
	}
	again, _ := kek.Seal(secret, "toolgate signing key A")
	if again == sealed {
		t.Error("two seals of the same secret are equal: the nonce is not fresh")
	}
	got, err := kek.Open(sealed, "toolgate signing key A")
	if err != nil || !bytes.Equal(got, secret) {
		t.Fatalf("open: %q, %v", got, err)
	}
	raw, _ := base64.RawURLEncoding.DecodeString(strings.TrimPrefix(sealed, sealPrefix))
	raw[len(raw)/2] ^= 1
	tampered := sealPrefix + base64.RawURLEncoding.EncodeToString(raw)
	for name, tc := range map[string]struct {
		kek         KEK
		sealed, aad string
	}{
		"wrong KEK":            {other, sealed, "toolgate signing key A"},
		"tampered ciphertext":  {kek, tampered, "toolgate signing key A"},
		"moved to another key": {kek, sealed, "toolgate signing key B"},
		"truncated":            {kek, sealed[:20], "toolgate signing key A"},
		"unknown format":       {kek, "v2." + strings.TrimPrefix(sealed, sealPrefix), "toolgate signing key A"},
	} {
		t.Run(name, func(t *testing.T) {
			if got, err := tc.kek.Open(tc.sealed, tc.aad); !errors.Is(err, ErrOpen) || got != nil {
				t.Errorf("opened: %q, %v; want ErrOpen", got, err)
			}
		})
	}
}

func TestLoadKEK(t *testing.T) {
	dir := t.TempDir()
	key := bytes.Repeat([]byte{7}, 32)
	write := func(name string, data []byte, mode os.FileMode) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, data, mode); err != nil {
			t.Fatal(err)
		}
		if err := os.Chmod(p, mode); err != nil {
			t.Fatal(err)
		}
		return p
	}
	ref := testKEK(t, 7)
	sealed, _ := ref.Seal([]byte("x"), "a")
	for _, tc := range []struct {
		name    string
		data    []byte
		mode    os.FileMode
		wantErr string
	}{
		{"raw", key, 0o600, ""},
		{"base64 line", []byte(base64.StdEncoding.EncodeToString(key) + "\n"), 0o400, ""},
		{"base64url", []byte(base64.RawURLEncoding.EncodeToString(key)), 0o600, ""},
		{"group readable", key, 0o640, "readable by its owner only"},
		{"too short", []byte(base64.StdEncoding.EncodeToString(key[:16])), 0o600, "want 32 random bytes"},
		{"text", []byte("correct horse battery staple"), 0o600, "want 32 random bytes"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			k, err := LoadKEK(write(strings.ReplaceAll(tc.name, " ", "-"), tc.data, tc.mode))
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("err %v, want %q", err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if _, err := k.Open(sealed, "a"); err != nil {
				t.Errorf("the loaded KEK is not the key in the file: %v", err)
			}
		})
	}
	if _, err := LoadKEK(filepath.Join(dir, "missing")); err == nil {
		t.Error("a missing file loaded")
	}
	if s := ref.String() + ref.GoString(); strings.Contains(s, "\x07") {
		t.Error("String shows the key")
	}
}
