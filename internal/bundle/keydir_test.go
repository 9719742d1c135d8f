package bundle

import (
	"bytes"
	"crypto/rand"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func TestKeyDirLifecycle(t *testing.T) {
	d := KeyDir{Path: filepath.Join(t.TempDir(), "keys")}
	if _, err := d.Active(); !errors.Is(err, ErrNoActiveKey) {
		t.Fatalf("Active on an empty dir: %v, want ErrNoActiveKey", err)
	}

	first, created, err := d.EnsureActive(rand.Reader, issued)
	if err != nil || !created {
		t.Fatalf("EnsureActive: created=%v err=%v", created, err)
	}
	assertMode(t, d.Path, 0o700)
	assertMode(t, filepath.Join(d.Path, first.KeyID+".pem"), 0o600)
	assertMode(t, filepath.Join(d.Path, "keys.json"), 0o600)

	again, created, err := d.EnsureActive(rand.Reader, issued)
	if err != nil || created || again.KeyID != first.KeyID || !bytes.Equal(again.Private, first.Private) {
		t.Fatalf("second EnsureActive: created=%v kid=%s err=%v", created, again.KeyID, err)
	}

	// A bundle signed before rotation keeps verifying with the published set.
	oldSigned := mustSign(t, mustBuild(t, smallInput()), first)
	second, err := d.Rotate(rand.Reader, issued.Add(time.Hour))
	if err != nil {
		t.Fatal(err)
	}
	if active, _ := d.Active(); active.KeyID != second.KeyID {
		t.Fatalf("active after rotate = %s, want %s", active.KeyID, second.KeyID)
	}
	pubs, err := d.PublicKeys()
	if err != nil {
		t.Fatal(err)
	}
	if got := pubs.KeyIDs(); len(got) != 2 {
		t.Fatalf("published after rotate: %v", got)
	}
	if _, _, err := Verify(oldSigned, pubs, VerifyOptions{Now: issued}); err != nil {
		t.Fatalf("old bundle after rotation: %v", err)
	}

	if err := d.Retire(second.KeyID, issued); err == nil {
		t.Error("retiring the active key succeeded")
	}
	if err := d.Retire(first.KeyID, issued.Add(2*time.Hour)); err != nil {
		t.Fatal(err)
	}
	if err := d.Retire(first.KeyID, issued.Add(2*time.Hour)); err == nil {
		t.Error("retiring twice succeeded")
	}
	pubs, _ = d.PublicKeys()
	if _, _, err := Verify(oldSigned, pubs, VerifyOptions{Now: issued}); !errors.Is(err, ErrUnknownKey) {
		t.Errorf("old bundle after retiring its key: %v, want ErrUnknownKey", err)
	}
	if _, err := os.Stat(filepath.Join(d.Path, first.KeyID+".pem")); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("retired private key still on disk: %v", err)
	}
	active, keys, err := d.List()
	if err != nil || active != second.KeyID || len(keys) != 2 || keys[0].RetiredAt == nil || keys[1].RetiredAt != nil {
		t.Errorf("List = %s, %+v, %v", active, keys, err)
	}
}

func TestKeyDirRefusesLoosePermissions(t *testing.T) {
	d := KeyDir{Path: t.TempDir()}
	k, _, err := d.EnsureActive(rand.Reader, issued)
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(d.Path, k.KeyID+".pem")
	if err := os.Chmod(path, 0o644); err != nil {
		t.Fatal(err)
	}
	_, err = d.Active()
	if err == nil || !strings.Contains(err.Error(), "chmod 600") {
		t.Fatalf("Active with a 0644 key: %v, want a refusal naming chmod 600", err)
	}
}

func TestKeyDirRefusesSwappedKeyFile(t *testing.T) {
	d := KeyDir{Path: t.TempDir()}
	k, _, err := d.EnsureActive(rand.Reader, issued)
	if err != nil {
		t.Fatal(err)
	}
	other, err := d.Rotate(rand.Reader, issued)
	if err != nil {
		t.Fatal(err)
	}
	// The file named after the active kid holds another key.
	data, err := os.ReadFile(filepath.Join(d.Path, k.KeyID+".pem"))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(d.Path, other.KeyID+".pem"), data, 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := d.Active(); err == nil {
		t.Fatal("Active loaded a key file that holds a different key")
	}
}

func assertMode(t *testing.T, path string, want fs.FileMode) {
	t.Helper()
	info, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	if got := info.Mode().Perm(); got != want {
		t.Errorf("%s mode %04o, want %04o", path, got, want)
	}
}
