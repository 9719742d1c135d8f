package store

import (
	"context"
	"testing"
)

// The dashboard's counts and the tools list's totals are cached per publish
// generation; a write by another console on the same database (b's cache
// is warm when a writes) shows on b's next read, both engines.
func TestCachedCountsFollowOtherConsolesWrites(t *testing.T) {
	for _, engine := range Engines {
		t.Run(string(engine), func(t *testing.T) { testCachedCounts(t, engine) })
	}
}

func testCachedCounts(t *testing.T, engine Engine) {
	ctx := context.Background()
	a, b := MustOpenShared(t, engine)
	mustImport(t, a, "pets", testDoc(t, "https://pets.example.com", []testOp{
		{"GET", "/pets", "listPets", "List pets", nil},
		{"GET", "/pets/{id}", "getPet", "Get a pet", nil},
	}))
	check := func(when string, sources, reads, exposed, listed int) {
		t.Helper()
		for range 2 { // the second read comes from the cache
			f, err := b.Dashboard(ctx, DashboardQuery{})
			if err != nil {
				t.Fatal(err)
			}
			if f.Sources != sources || f.Tools["READ"] != reads || f.Exposed["READ"] != exposed {
				t.Fatalf("%s: dashboard sources %d, READ tools %d, exposed %d; want %d, %d, %d",
					when, f.Sources, f.Tools["READ"], f.Exposed["READ"], sources, reads, exposed)
			}
			page, err := b.ListTools(ctx, ToolQuery{Exposure: "exposed"})
			if err != nil {
				t.Fatal(err)
			}
			if page.Total != listed {
				t.Fatalf("%s: %d exposed tools listed, want %d", when, page.Total, listed)
			}
		}
	}
	check("after the import", 1, 2, 0, 0)
	if _, err := a.db.ExecContext(ctx, `UPDATE tool_policies SET exposed = 1`); err != nil {
		t.Fatal(err)
	}
	check("after the other console exposed both", 1, 2, 2, 2)
	mustImport(t, a, "more", testDoc(t, "https://more.example.com", []testOp{{"GET", "/x", "getX", "Get x", nil}}))
	check("after the other console imported a source", 2, 3, 2, 2)
}
