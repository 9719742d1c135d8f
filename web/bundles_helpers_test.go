package web

import (
	"path/filepath"
	"testing"

	"github.com/toolgate/toolgate/internal/bundle"
	"github.com/toolgate/toolgate/internal/keyring"
	"github.com/toolgate/toolgate/internal/risk"
	"github.com/toolgate/toolgate/internal/store"
	"github.com/toolgate/toolgate/internal/store/storetest"
	"github.com/toolgate/toolgate/internal/testing/httpcheck"
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

// exposeTool adds an exposed READ tool of the "orders" source.
func (a *testApp) exposeTool(name string) {
	a.t.Helper()
	storetest.MustAddTool(a.t, a.db, storetest.FixtureTool{Source: "orders", Origin: "https://api.example.com", Name: name,
		Method: "GET", Path: "/" + name, Class: risk.Read, Exposed: true})
}

func (a *testApp) publish(note string) *store.BundleRecord {
	return storetest.Publish(a.t, a.db, a.srv.pub.keys, note)
}

func (a *testApp) token(name string) string { return storetest.RuntimeToken(a.t, a.db, name) }

func (a *testApp) keySet() bundle.KeySet { return storetest.PublicKeys(a.t, a.srv.pub.keys) }

var bearer = httpcheck.Bearer
