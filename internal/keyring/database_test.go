package keyring

import (
	"context"
	"crypto/rand"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/toolgate/toolgate/internal/apperr"
	"github.com/toolgate/toolgate/internal/bundle"
	"github.com/toolgate/toolgate/internal/store"
	"github.com/toolgate/toolgate/internal/store/storetest"
)

// eachEngine runs test on SQLite and PostgreSQL, with two handles on one
// database (two consoles).
func eachEngine(t *testing.T, test func(t *testing.T, a, b *store.DB)) {
	for _, engine := range storetest.Engines {
		t.Run(string(engine), func(t *testing.T) {
			a, b := storetest.MustOpenShared(t, engine)
			test(t, a, b)
		})
	}
}

func TestDatabaseKeyringAcrossConsoles(t *testing.T) {
	eachEngine(t, testDatabaseKeyringAcrossConsoles)
}

func testDatabaseKeyringAcrossConsoles(t *testing.T, a, b *store.DB) {
	ctx := context.Background()
	kek := testKEK(t, 9)
	ka, kb := &Database{DB: a, KEK: kek}, &Database{DB: b, KEK: kek}

	// Two consoles starting at once on an empty database make one key.
	var wg sync.WaitGroup
	created := make([]bool, 2)
	kids := make([]string, 2)
	for i, k := range []*Database{ka, kb} {
		wg.Add(1)
		go func() {
			defer wg.Done()
			var err error
			if kids[i], created[i], err = k.EnsureActive(ctx, "system"); err != nil {
				t.Error(err)
			}
		}()
	}
	wg.Wait()
	if created[0] == created[1] || kids[0] != kids[1] || kids[0] == "" {
		t.Fatalf("two starts: created %v, kids %v; want one key made and both using it", created, kids)
	}

	// A rotation on A is what B signs with at its next publish.
	kid, err := ka.Rotate(ctx, "admin@x")
	if err != nil {
		t.Fatal(err)
	}
	signer, err := kb.Active(ctx)
	if err != nil || signer.KeyID != kid {
		t.Fatalf("B signs with %v (%v) after A rotated to %s", signer, err, kid)
	}
	set, err := ka.PublicKeys(ctx)
	if err != nil || len(set.Keys) != 2 {
		t.Fatalf("published keys after a rotation: %v, %v", set.KeyIDs(), err)
	}
	pub, ok := set.Lookup(kid)
	if !ok || !pub.Key.Equal(signer.Private.Public()) {
		t.Fatal("the key B signs with is not the one A publishes")
	}

	// Retire: not the active key, then the old one on B, seen on A.
	if err := kb.Retire(ctx, "admin@x", kid); apperr.CodeOf(err) != apperr.Conflict {
		t.Errorf("retiring the active key: %v", err)
	}
	if err := kb.Retire(ctx, "admin@x", kids[0]); err != nil {
		t.Fatal(err)
	}
	active, keys, err := ka.List(ctx)
	if err != nil || active != kid || len(keys) != 2 || keys[0].RetiredAt == nil {
		t.Fatalf("A lists %s %+v (%v) after B retired %s", active, keys, err, kids[0])
	}
	if err := ka.Retire(ctx, "admin@x", "nope"); apperr.CodeOf(err) != apperr.NotFound {
		t.Errorf("retiring an unknown key: %v", err)
	}

	// B read the active key, then A rotated and retired it before B
	// stored its bundle: the store refuses a bundle runtimes could not
	// verify, and B's next publish uses the new key.
	old, err := kb.Active(ctx)
	if err != nil {
		t.Fatal(err)
	}
	newer, err := ka.Rotate(ctx, "admin@x")
	if err != nil {
		t.Fatal(err)
	}
	if err := ka.Retire(ctx, "admin@x", old.KeyID); err != nil {
		t.Fatal(err)
	}
	if _, err := b.Publish(ctx, store.PublishRequest{Actor: "admin@x", Key: old}); apperr.CodeOf(err) != apperr.Conflict {
		t.Errorf("a bundle signed with a key retired meanwhile: %v; want a conflict", err)
	}
	cur, err := kb.Active(ctx)
	if err != nil || cur.KeyID != newer {
		t.Fatalf("B's next key: %v %v; want %s", cur, err, newer)
	}
	if rec, err := b.Publish(ctx, store.PublishRequest{Actor: "admin@x", Key: cur}); err != nil || rec.KeyID != newer {
		t.Errorf("publish with the current key: %v", err)
	}
	// The key of the current bundle cannot be retired, from either console.
	if _, err := kb.Rotate(ctx, "admin@x"); err != nil {
		t.Fatal(err)
	}
	if err := ka.Retire(ctx, "admin@x", newer); apperr.CodeOf(err) != apperr.Conflict {
		t.Errorf("retiring the key of the current bundle: %v", err)
	}
}

func TestDatabaseKeyringRefusesAWrongKEK(t *testing.T) {
	eachEngine(t, testDatabaseKeyringRefusesAWrongKEK)
}

func testDatabaseKeyringRefusesAWrongKEK(t *testing.T, a, b *store.DB) {
	ctx := context.Background()
	if _, _, err := (&Database{DB: a, KEK: testKEK(t, 1)}).EnsureActive(ctx, "system"); err != nil {
		t.Fatal(err)
	}
	wrong := &Database{DB: b, KEK: testKEK(t, 2)}
	if _, _, err := wrong.EnsureActive(ctx, "system"); !errors.Is(err, ErrOpen) {
		t.Errorf("a console with another KEK starts: %v", err)
	}
	if _, err := wrong.Active(ctx); !errors.Is(err, ErrOpen) {
		t.Errorf("a console with another KEK gets a signing key: %v", err)
	}
	if _, err := SessionKeys(ctx, a, testKEK(t, 1)); err != nil {
		t.Fatal(err)
	}
	if _, err := SessionKeys(ctx, b, testKEK(t, 2)); !errors.Is(err, ErrOpen) {
		t.Errorf("session keys opened with another KEK: %v", err)
	}
}

func TestSessionKeysShared(t *testing.T) { eachEngine(t, testSessionKeysShared) }

func testSessionKeysShared(t *testing.T, a, b *store.DB) {
	ctx := context.Background()
	kek := testKEK(t, 3)
	ka, err := SessionKeys(ctx, a, kek)
	if err != nil {
		t.Fatal(err)
	}
	kb, err := SessionKeys(ctx, b, kek)
	if err != nil {
		t.Fatal(err)
	}
	if len(ka) != 2 || len(ka[0]) != 64 || len(ka[1]) != 32 || string(ka[0]) != string(kb[0]) || string(ka[1]) != string(kb[1]) {
		t.Error("two consoles got different session keys")
	}
}

// Moving a key directory in: the active key stays active and signs the
// same, a retired key comes as history, a second import changes nothing,
// and no private key byte reaches the audit log.
func TestImportFromKeyDir(t *testing.T) { eachEngine(t, testImportFromKeyDir) }

func testImportFromKeyDir(t *testing.T, a, b *store.DB) {
	ctx := context.Background()
	dir := bundle.KeyDir{Path: filepath.Join(t.TempDir(), "keys")}
	now := time.Now()
	first, err := dir.Rotate(rand.Reader, now)
	if err != nil {
		t.Fatal(err)
	}
	second, err := dir.Rotate(rand.Reader, now)
	if err != nil {
		t.Fatal(err)
	}
	third, err := dir.Rotate(rand.Reader, now)
	if err != nil {
		t.Fatal(err)
	}
	if err := dir.Retire(first.KeyID, now); err != nil {
		t.Fatal(err)
	}
	k := &Database{DB: a, KEK: testKEK(t, 4)}
	done, err := k.Import(ctx, "operator@host", dir)
	if err != nil || len(done) != 3 {
		t.Fatalf("import: %v, %v", done, err)
	}
	active, err := k.Active(ctx)
	if err != nil || active.KeyID != third.KeyID || !active.Private.Equal(third.Private) {
		t.Fatalf("active after import: %v, %v; want %s", active, err, third.KeyID)
	}
	set, _ := k.PublicKeys(ctx)
	if got := strings.Join(set.KeyIDs(), ","); strings.Contains(got, first.KeyID) || !strings.Contains(got, second.KeyID) {
		t.Errorf("published after import: %s", got)
	}
	if again, err := k.Import(ctx, "operator@host", dir); err != nil || len(again) != 0 {
		t.Errorf("second import: %v, %v", again, err)
	}
	entries, err := a.AuditEntries(ctx)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		text := e.Before + e.After + e.Subject
		for _, sk := range []bundle.SigningKey{second, third} {
			seed := sk.Private.Seed()
			for _, enc := range []string{hex.EncodeToString(seed), base64.StdEncoding.EncodeToString(seed),
				base64.RawURLEncoding.EncodeToString(seed), base64.RawStdEncoding.EncodeToString(seed)} {
				if strings.Contains(text, enc) {
					t.Fatalf("audit entry %s carries a private key", e.Action)
				}
			}
			if strings.Contains(text, "v1.") {
				t.Fatalf("audit entry %s carries a sealed key", e.Action)
			}
		}
	}
	if _, err := k.Import(ctx, "operator@host", bundle.KeyDir{Path: t.TempDir()}); apperr.CodeOf(err) != apperr.Invalid {
		t.Errorf("importing an empty directory: %v", err)
	}
}
