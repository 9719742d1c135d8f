package web

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/toolgate/toolgate/internal/bundle"
	"github.com/toolgate/toolgate/internal/keyring"
	"github.com/toolgate/toolgate/internal/risk"
	"github.com/toolgate/toolgate/internal/store"
	"github.com/toolgate/toolgate/internal/store/storetest"
)

// newPublishApp is newTestApp with a signing key directory, as serve has.
func newPublishApp(t *testing.T, opts ...func(*Deps)) *testApp {
	t.Helper()
	db := storetest.MustOpen(t)
	withKeys := func(d *Deps) {
		d.Keys = &keyring.Files{Dir: bundle.KeyDir{Path: filepath.Join(t.TempDir(), "keys")}, DB: db}
	}
	return newTestAppWith(t, db, true, append([]func(*Deps){withKeys}, opts...)...)
}

// bearer is the header of a runtime's fetch: its token and more
// key/value pairs.
func bearer(token string, more ...string) map[string]string {
	h := map[string]string{"Authorization": "Bearer " + token}
	for i := 0; i+1 < len(more); i += 2 {
		h[more[i]] = more[i+1]
	}
	return h
}

// exposeTool adds an exposed READ tool of the "orders" source.
func (a *testApp) exposeTool(name string) {
	a.t.Helper()
	storetest.MustAddTool(a.t, a.db, storetest.FixtureTool{Source: "orders", Origin: "https://api.example.com", Name: name,
		Method: "GET", Path: "/" + name, Class: risk.Read, Exposed: true})
}

func (a *testApp) publish(note string) *store.BundleRecord {
	a.t.Helper()
	k, err := a.srv.pub.keys.Active(context.Background())
	if err != nil {
		a.t.Fatal(err)
	}
	rec, err := a.db.Publish(context.Background(), store.PublishRequest{Actor: "test", Note: note, Key: k})
	if err != nil {
		a.t.Fatal(err)
	}
	return rec
}

func (a *testApp) token(name string) string {
	a.t.Helper()
	_, secret, err := a.db.CreateRuntimeToken(context.Background(), "test", name)
	if err != nil {
		a.t.Fatal(err)
	}
	return secret
}

func (a *testApp) keySet() bundle.KeySet {
	a.t.Helper()
	ks, err := a.srv.pub.keys.PublicKeys(context.Background())
	if err != nil {
		a.t.Fatal(err)
	}
	return ks
}
