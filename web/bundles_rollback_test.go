package web

import (
	"context"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/toolgate/toolgate/internal/bundle"
)

// TestRollbackAfterRugPullLeavesToolOut is the rug pull followed by a
// rollback, through the forms a person uses: an approved DESTRUCTIVE tool
// is rewritten by a re-import (its approval becomes void, it is
// suspended), and rolling back to the version before signs the rest of
// that version but not the tool. The confirmation says so before, and the
// Bundles page after, each with the way to file a new request (R14).
func TestRollbackAfterRugPullLeavesToolOut(t *testing.T) {
	ctx := context.Background()
	a := newPublishApp(t)
	admin := a.sessionCookie("admin")
	wantStatus(t, a.upload("/sources", map[string]string{"name": "pets"}, uploadFile{"pets.yaml", petsDoc("")}), 303)
	wantStatus(t, a.requestAction("deletePet", "expose", url.Values{}).ResponseRecorder, 303)
	a.approveAll()
	if _, err := a.db.BulkTools(ctx, "t", "expose", []string{"listPets"}, true); err != nil {
		t.Fatal(err)
	}
	if b := a.publishForm(); bundleTool(b, "deletePet") == nil || bundleTool(b, "listPets") == nil {
		t.Fatalf("v1 has %d tools: want deletePet and listPets", len(b.Tools))
	}
	_, digest := a.reimport(strings.Replace(petsDoc(""), "summary: Delete a pet", "summary: "+rugPull, 1))
	wantStatus(t, a.applyImport(digest, "1", "listPets").ResponseRecorder, 303)
	if b := a.publishForm(); bundleTool(b, "deletePet") != nil {
		t.Fatal("v2 carries the rewritten tool")
	}

	rec := a.do(request{method: "GET", path: "/bundles", cookie: admin})
	wantHTML(t, rec.Body.String(), in(`[data-testid="rollback-link"]`, hasAttr("href", "/bundles/1/rollback")))
	const why = "DESTRUCTIVE and exposed without an approved change request"
	rec = a.do(request{method: "GET", path: "/bundles/1/rollback", cookie: admin})
	wantStatus(t, rec, 200)
	wantHTML(t, rec.Body.String(),
		in(`[data-testid="rollback-withheld"] [data-testid="withheld-tool"]`, hasText("deletePet"), hasText(why)),
		in(`[data-testid="rollback-withheld"] a`, hasAttr("href", "/tools/deletePet/policy")),
		in(`[data-testid="rollback-form"]`, hasAttr("action", "/bundles/1/rollback")))
	if latest, _ := a.db.LatestBundle(ctx); latest.Version != 2 {
		t.Fatalf("the confirmation published v%d", latest.Version)
	}

	wantStatus(t, a.do(request{method: "POST", path: "/bundles/1/rollback", cookie: admin, csrf: true,
		form: url.Values{"confirm": {"yes"}}}), 303)
	latest, err := a.db.LatestBundle(ctx)
	if err != nil || latest.RollbackOf != 1 {
		t.Fatalf("after rollback: %+v, %v", latest, err)
	}
	b, _, err := bundle.Verify([]byte(latest.Signed), a.keySet(), bundle.VerifyOptions{Now: time.Now()})
	if err != nil {
		t.Fatal(err)
	}
	if bundleTool(b, "deletePet") != nil || bundleTool(b, "listPets") == nil {
		t.Fatalf("the rollback signed %d tools: deletePet must be left out, listPets shipped", len(b.Tools))
	}
	rec = a.do(request{method: "GET", path: "/bundles?done=rolledback", cookie: a.sessionCookie("viewer")})
	wantHTML(t, rec.Body.String(),
		in(`[data-testid="current-withheld"] [data-testid="withheld-tool"]`, hasText("deletePet"), hasText(why)),
		in(`[data-testid="current-withheld"] a`, hasAttr("href", "/tools/deletePet/policy")),
		in(`[data-testid="history-withheld"]`, hasText("1 left out")))
}
