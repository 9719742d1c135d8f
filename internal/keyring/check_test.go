package keyring

import (
	"context"
	"errors"
	"maps"
	"slices"
	"testing"

	"github.com/toolgate/toolgate/internal/store"
)

func TestCheckKEK(t *testing.T) { eachEngine(t, testCheckKEK) }

// The first KEK to open a database writes the check value; another KEK is
// then refused on every console, whatever else the database holds.
func testCheckKEK(t *testing.T, a, b *store.DB) {
	ctx := context.Background()
	if err := CheckKEK(ctx, a, testKEK(t, 1)); err != nil {
		t.Fatalf("first KEK on an empty database: %v", err)
	}
	if err := CheckKEK(ctx, b, testKEK(t, 2)); !errors.Is(err, ErrWrongKEK) {
		t.Errorf("another KEK on the other console: %v, want ErrWrongKEK", err)
	}
	if err := CheckKEK(ctx, b, testKEK(t, 1)); err != nil {
		t.Errorf("the same KEK on the other console: %v", err)
	}
}

func TestCheckKEKOnADatabaseWithoutACheckValue(t *testing.T) {
	eachEngine(t, testCheckKEKOnADatabaseWithoutACheckValue)
}

// A database made before the check value: another KEK, which cannot open
// the sealed signing key or session keys, is refused and writes nothing;
// the right KEK writes the check value, which refuses another KEK from
// then on.
func testCheckKEKOnADatabaseWithoutACheckValue(t *testing.T, a, b *store.DB) {
	ctx := context.Background()
	right, wrong := testKEK(t, 1), testKEK(t, 2)
	if _, _, err := (&Database{DB: a, KEK: right}).EnsureActive(ctx, "system"); err != nil {
		t.Fatal(err)
	}
	if _, err := SessionKeys(ctx, a, right); err != nil {
		t.Fatal(err)
	}
	if err := CheckKEK(ctx, b, wrong); !errors.Is(err, ErrWrongKEK) {
		t.Fatalf("another KEK on a database without a check value: %v, want ErrWrongKEK", err)
	}
	secrets, err := b.SealedConsoleSecrets(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := secrets[kekCheckName]; ok || len(secrets) != 1 {
		t.Fatalf("console secrets after a refused KEK: %v, want only the session keys", slices.Sorted(maps.Keys(secrets)))
	}
	if err := CheckKEK(ctx, b, right); err != nil {
		t.Fatalf("the right KEK: %v", err)
	}
	if secrets, _ := b.SealedConsoleSecrets(ctx); secrets[kekCheckName] == "" {
		t.Fatal("no check value written by the right KEK")
	}
	if err := CheckKEK(ctx, a, wrong); !errors.Is(err, ErrWrongKEK) {
		t.Errorf("another KEK after the check value was written: %v", err)
	}
}
