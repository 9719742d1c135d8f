package web

import (
	"bytes"
	"context"
	"log/slog"
	"path/filepath"
	"testing"

	"github.com/toolgate/toolgate/internal/bundle"
	"github.com/toolgate/toolgate/internal/keyring"
	"github.com/toolgate/toolgate/internal/risk"
	"github.com/toolgate/toolgate/internal/store"
	"github.com/toolgate/toolgate/internal/store/storetest"
)

// newPublishApp is newTestApp with a signing key directory, as serve has.
func newPublishApp(t *testing.T) *testApp {
	t.Helper()
	a := newTestApp(t, true)
	keys := &keyring.Files{Dir: bundle.KeyDir{Path: filepath.Join(t.TempDir(), "keys")}, DB: a.db}
	srv, err := New(context.Background(), Deps{Store: a.db, Logger: slog.New(slog.NewTextHandler(a.log, nil)),
		Config: testConfig(), SessionKeys: [][]byte{bytes.Repeat([]byte{1}, 64), bytes.Repeat([]byte{2}, 32)}, Keys: keys})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { srv.Close(context.Background()) })
	a.srv = srv
	return a
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
