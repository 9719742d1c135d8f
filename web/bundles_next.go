package web

import (
	"context"
	"net/http"
	"sync"

	"github.com/labstack/echo/v4"

	"github.com/toolgate/toolgate/internal/apperr"
	"github.com/toolgate/toolgate/internal/auth"
	"github.com/toolgate/toolgate/internal/store"
	"github.com/toolgate/toolgate/views"
)

// previewCache holds the preview of the next bundle and the publish
// generation it was built from. Building and diffing a thousand-tool bundle
// takes hundreds of milliseconds; the state it depends on changes rarely.
// Every view costs one read of the generation (store.PublishGeneration,
// bumped by triggers on every table the bundle is built from, whichever
// process writes), and a rebuild only when it moved. The mutex makes
// viewers arriving together wait for one build instead of starting their
// own.
type previewCache struct {
	mu  sync.Mutex
	gen int64
	p   *store.Preview
	err error // a "cannot publish" answer (Invalid, Conflict) is cached too
	ok  bool
	// builds counts rebuilds (tests).
	builds int
}

// get returns the preview for the current state.
func (pc *previewCache) get(ctx context.Context, db *store.DB) (*store.Preview, error) {
	gen, err := db.PublishGeneration(ctx)
	if err != nil {
		return nil, err
	}
	pc.mu.Lock()
	defer pc.mu.Unlock()
	if pc.ok && pc.gen == gen {
		return pc.p, pc.err
	}
	p, err := db.PreviewPublish(ctx)
	if code := apperr.CodeOf(err); err != nil && code != apperr.Invalid && code != apperr.Conflict {
		return nil, err
	}
	pc.builds++
	// The generation read first: if the state moved meanwhile, the next
	// view rebuilds (never the other way round).
	pc.gen, pc.p, pc.err, pc.ok = gen, p, err, true
	return p, err
}

// bundlesNext is GET /bundles/next: what publishing now would do. The
// Bundles page loads it with HTMX after rendering (a fragment); without
// JavaScript the page links here and it is a page of its own.
func (s *Server) bundlesNext(c echo.Context) error {
	n, err := s.nextBundleView(c, "")
	if err != nil {
		return err
	}
	if isHTMX(c) {
		return render(c, http.StatusOK, views.NextBundle(n))
	}
	return render(c, http.StatusOK, views.NextBundlePage(views.NextBundlePageView{Page: s.page(c, "Next bundle"), Next: n}))
}

// nextBundleView is the preview as the views show it, note being what the
// publish form shows typed.
func (s *Server) nextBundleView(c echo.Context, note string) (views.NextBundleView, error) {
	n := views.NextBundleView{CanPublish: currentUser(c).Has(auth.RoleAdmin), CSRF: csrfToken(c), Note: note}
	p, err := s.pub.preview.get(c.Request().Context(), s.deps.Store)
	switch code := apperr.CodeOf(err); {
	case code == apperr.Invalid || code == apperr.Conflict:
		n.Problem = apperr.MessageOf(err)
	case err != nil:
		return n, err
	default:
		n.ToolCount = len(p.Next.Tools)
		n.Changes = changesView(p.Changes)
		n.Withheld = withheldRows(p.Withheld)
		if n.Reach, err = s.reachRows(c.Request().Context(), p.Changes); err != nil {
			return n, err
		}
	}
	return n, nil
}
