package storetest

import (
	"context"
	"testing"

	"github.com/toolgate/toolgate/internal/bundle"
	"github.com/toolgate/toolgate/internal/policy"
	"github.com/toolgate/toolgate/internal/risk"
	"github.com/toolgate/toolgate/internal/store"
)

// Keys is the part of a keyring (internal/keyring, which imports this
// package's tests) the helpers below use.
type Keys interface {
	Active(ctx context.Context) (bundle.SigningKey, error)
	PublicKeys(ctx context.Context) (bundle.KeySet, error)
}

// Publish publishes the next bundle as "test", signed with keys' active
// key.
func Publish(tb testing.TB, db *store.DB, keys Keys, note string) *store.BundleRecord {
	tb.Helper()
	k, err := keys.Active(context.Background())
	if err != nil {
		tb.Fatal(err)
	}
	rec, err := db.Publish(context.Background(), store.PublishRequest{Actor: "test", Note: note, Key: k})
	if err != nil {
		tb.Fatal(err)
	}
	return rec
}

// RuntimeToken creates a runtime token named name and returns its secret.
func RuntimeToken(tb testing.TB, db *store.DB, name string) string {
	tb.Helper()
	_, secret, err := db.CreateRuntimeToken(context.Background(), "test", name)
	if err != nil {
		tb.Fatal(err)
	}
	return secret
}

// PublicKeys is keys' public JWK Set, as runtimes pin it.
func PublicKeys(tb testing.TB, keys Keys) bundle.KeySet {
	tb.Helper()
	ks, err := keys.PublicKeys(context.Background())
	if err != nil {
		tb.Fatal(err)
	}
	return ks
}

// AddV2Tools adds two exposed tools of the "orders" source whose policies
// need bundle format v2: support_orders (scoped to the support group) and
// refund (with a deny condition). A v2 version's v1 form leaves both out.
func AddV2Tools(tb testing.TB, db *store.DB) {
	tb.Helper()
	MustAddTool(tb, db, FixtureTool{Source: "orders", Origin: "https://api.example.com", Name: "support_orders",
		Method: "GET", Path: "/support_orders", Class: risk.Read, Exposed: true,
		Policy: &policy.Policy{Exposed: true, Groups: []string{"support"}}})
	MustAddTool(tb, db, FixtureTool{Source: "orders", Origin: "https://api.example.com", Name: "refund",
		Method: "POST", Path: "/refund", Class: risk.Write, Exposed: true,
		Policy: &policy.Policy{Exposed: true, Conditions: []policy.Condition{{Effect: policy.ConditionDeny, Expr: "false", Message: "never"}}}})
}
