package store

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/toolgate/toolgate/internal/apperr"
)

func TestDuplicatePendingRequestRefused(t *testing.T) {
	ctx := context.Background()
	f := newCRFixture(t)
	first := f.exposeRequest(t, f.admin)
	p := f.del.Policy
	p.Exposed = true
	// Another requester, another reason: still the same change.
	_, err := f.db.CreateChangeRequest(ctx, f.adminApprover, NewChangeRequest{ToolID: f.del.ToolID, Kind: KindExposeRisky,
		Reason: "me too", Policy: p})
	var dup *DuplicateRequestError
	if !errors.As(err, &dup) || dup.ID != first.ID || apperr.CodeOf(err) != apperr.Conflict {
		t.Fatalf("second request: %v, want a Conflict naming request %d", err, first.ID)
	}
	if list, _ := f.db.ChangeRequests(ctx, ChangeRequestFilter{Pending: true}); len(list) != 1 {
		t.Fatalf("%d pending requests after a refused duplicate", len(list))
	}
	// Once the first is decided, the same change may be asked again.
	if _, err := f.db.WithdrawChangeRequest(ctx, f.admin.ID, first.ID); err != nil {
		t.Fatal(err)
	}
	if _, err := f.db.CreateChangeRequest(ctx, f.admin, NewChangeRequest{ToolID: f.del.ToolID, Kind: KindExposeRisky,
		Reason: "again", Policy: p}); err != nil {
		t.Fatalf("asking again after a withdrawal: %v", err)
	}
}

func TestStaleReasons(t *testing.T) {
	ctx := context.Background()
	f := newCRFixture(t)
	cr := f.exposeRequest(t, f.admin)
	list, _ := f.db.ChangeRequests(ctx, ChangeRequestFilter{Pending: true})
	if got, err := f.db.StaleReasons(ctx, list); err != nil || len(got) != 0 {
		t.Fatalf("a fresh request is stale: %v %v", got, err)
	}
	p := f.del.Policy
	p.TimeoutMS = 1234
	if _, err := f.db.SavePolicy(ctx, "other@example.com", f.del.ToolID, f.del.Version, p); err != nil {
		t.Fatal(err)
	}
	got, err := f.db.StaleReasons(ctx, list)
	if err != nil || !strings.Contains(got[cr.ID], "timeout_ms") {
		t.Fatalf("StaleReasons = %v, %v; want the request marked naming timeout_ms", got, err)
	}
}
