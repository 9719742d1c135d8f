package store

import (
	"context"
	"testing"

	"github.com/jmoiron/sqlx"

	"github.com/toolgate/toolgate/internal/auth"
	"github.com/toolgate/toolgate/internal/risk"
)

// TestImportStampSeesWhatThePlanRead: ImportSource plans outside the write
// transaction and refuses when importStamp changed meanwhile. The stamp must
// move for every change that can alter a plan (exposure, class, another
// import, a new tool name anywhere) and stay put for unrelated writes.
func TestImportStampSeesWhatThePlanRead(t *testing.T) {
	ctx := context.Background()
	stamp := func(t *testing.T, db *DB) string {
		t.Helper()
		var s string
		if err := db.readTx(ctx, "stamp", func(tx *sqlx.Tx) error {
			var err error
			s, err = importStamp(ctx, tx, "pets")
			return err
		}); err != nil {
			t.Fatal(err)
		}
		return s
	}
	cases := []struct {
		name    string
		change  func(t *testing.T, db *DB)
		changes bool
	}{
		{"policy saved (exposed)", func(t *testing.T, db *DB) {
			tool := mustTool(t, db, "listPets")
			p := tool.Policy
			p.Exposed = true
			if _, err := db.SavePolicy(ctx, "a", tool.ID, tool.PolicyVersion, p); err != nil {
				t.Fatal(err)
			}
		}, true},
		{"class raised", func(t *testing.T, db *DB) {
			if err := db.RaiseToolClass(ctx, "a", "getPet", risk.Write, "writes a log"); err != nil {
				t.Fatal(err)
			}
		}, true},
		{"source re-imported", func(t *testing.T, db *DB) {
			mustImport(t, db, "pets", testDoc(t, "https://pets.example.com", petOps[:2]))
		}, true},
		{"another source takes a tool name", func(t *testing.T, db *DB) {
			mustImport(t, db, "shop", testDoc(t, "https://shop.example.com", []testOp{{"GET", "/orders", "listOrders", "List", nil}}))
		}, true},
		{"unrelated write", func(t *testing.T, db *DB) {
			mustUser(t, db, "x@example.com", auth.RoleViewer)
		}, false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			db := MustOpen(t)
			mustImport(t, db, "pets", testDoc(t, "https://pets.example.com", petOps))
			before := stamp(t, db)
			tc.change(t, db)
			if after := stamp(t, db); (after != before) != tc.changes {
				t.Fatalf("stamp changed = %v, want %v", after != before, tc.changes)
			}
		})
	}
}
