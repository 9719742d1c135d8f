package web

import (
	"errors"
	"net/http"
	"strconv"

	"github.com/labstack/echo/v4"

	"github.com/toolgate/toolgate/internal/apperr"
	"github.com/toolgate/toolgate/internal/store"
	"github.com/toolgate/toolgate/views"
)

// sourcesApply applies a previewed re-import (admin). The form carries the
// digest of the previewed upload and the revision the diff was computed
// against; a preview that expired, was applied already, or was overtaken
// by another import is refused and nothing changes.
func (s *Server) sourcesApply(c echo.Context) error {
	name, digest := c.Param("name"), c.FormValue("digest")
	base, err := strconv.ParseInt(c.FormValue("base_revision"), 10, 64)
	if digest == "" || err != nil {
		return apperr.Invalidf("The preview form is incomplete: upload the document again.")
	}
	p, ok := s.imports.take(name, digest, s.deps.Store.Now())
	if !ok {
		return apperr.Conflictf("This preview has expired or was applied already: upload the document again to see the current diff.")
	}
	form, _ := c.FormParams()
	_, err = s.deps.Store.ImportSource(c.Request().Context(), currentUser(c).Email, store.SourceImport{
		Name: name, Origin: p.origin, Doc: p.doc, DocumentSHA256: digest, BaseRevision: base,
		ConfirmedDefinitions: form["confirm_definition"]})
	if errors.Is(err, store.ErrUnconfirmedDefinitions) {
		return s.unconfirmedPreview(c, p, base, err)
	}
	if err != nil {
		return err
	}
	return seeOther(c, "/sources/"+name+"?done=reimported")
}

// unconfirmedPreview keeps the upload and shows the same preview again
// with the refusal, so the admin can confirm without uploading again.
func (s *Server) unconfirmedPreview(c echo.Context, p pendingImport, base int64, refusal error) error {
	pv, err := s.deps.Store.PreviewImport(c.Request().Context(), p.source, p.origin, p.doc)
	if err != nil {
		return err
	}
	if pv.BaseRevision != base {
		return refusal
	}
	s.imports.put(p)
	m := previewView(s.page(c, "Re-import "+p.source), p.source, p.digest, pv)
	m.Error = apperr.MessageOf(refusal)
	return render(c, http.StatusUnprocessableEntity, views.SourcePreviewPage(m))
}
