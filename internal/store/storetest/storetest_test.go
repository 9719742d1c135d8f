package storetest_test

import (
	"context"
	"errors"
	"os"
	"testing"

	"github.com/toolgate/toolgate/internal/audit"
	"github.com/toolgate/toolgate/internal/auth"
	"github.com/toolgate/toolgate/internal/risk"
	"github.com/toolgate/toolgate/internal/store"
	"github.com/toolgate/toolgate/internal/store/storetest"
	"github.com/toolgate/toolgate/internal/testing/pgtest"
)

func TestMain(m *testing.M) { os.Exit(pgtest.Run(m)) }

// TestFixturesThroughASecondConnection: the fixtures write behind the
// store's back on both engines, and the store reads what they wrote; a
// tampered audit entry breaks the chain.
func TestFixturesThroughASecondConnection(t *testing.T) {
	for _, engine := range storetest.Engines {
		t.Run(string(engine), func(t *testing.T) {
			ctx := context.Background()
			db := storetest.MustOpenEngine(t, engine)
			id := storetest.MustAddTool(t, db, storetest.FixtureTool{Source: "orders", Name: "purge_orders",
				Method: "DELETE", Path: "/orders/{id}", Class: risk.Destructive, Exposed: true})
			rec, err := db.ToolPolicyByName(ctx, "purge_orders")
			if err != nil || rec.ToolID != id || !rec.Policy.Exposed {
				t.Fatalf("the added tool reads %+v, %v; want tool %d, exposed", rec, err, id)
			}
			seeded := storetest.MustSeedTool(t, db, storetest.SeedTool{Name: "orders_get", Method: "GET",
				Path: "/orders/{id}", Class: risk.Read})
			if seeded.ToolName != "orders_get" || seeded.Class != risk.Read || seeded.Method != "GET" {
				t.Errorf("the seeded tool reads %+v", seeded)
			}
			if _, err := db.CreateUser(ctx, "test", store.NewUser{Email: "a@example.com", PasswordHash: "h",
				Roles: []auth.Role{auth.RoleAdmin}}); err != nil {
				t.Fatal(err)
			}
			storetest.Tamper(t, db, 1, "mallory@example.com")
			var be *audit.BrokenError
			if _, err := db.VerifyAudit(ctx); !errors.As(err, &be) || be.ID != 1 {
				t.Fatalf("VerifyAudit after Tamper = %v, want entry 1 broken", err)
			}
		})
	}
}

// TestFixturesRefuseAStoreOpenedElsewhere: a database storetest does not
// know the place of cannot be written behind its back; the test says so.
func TestFixturesRefuseAStoreOpenedElsewhere(t *testing.T) {
	db, err := store.Open(context.Background(), t.TempDir()+"/toolgate.db")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	ft := &fakeTB{TB: t}
	func() {
		defer func() { _ = recover() }()
		storetest.MustAddTool(ft, db, storetest.FixtureTool{Source: "s", Name: "x", Method: "GET", Path: "/x"})
	}()
	if ft.fatal == "" {
		t.Fatal("MustAddTool on a store opened by store.Open did not end the test")
	}
}

type fakeTB struct {
	testing.TB
	fatal string
}

func (f *fakeTB) Helper() {}
func (f *fakeTB) Fatal(args ...any) {
	f.fatal = "fatal"
	panic(f)
}
