package web

import (
	"net/http"
	"strings"

	"github.com/labstack/echo/v4"

	"github.com/toolgate/toolgate/internal/importer"
	"github.com/toolgate/toolgate/internal/store"
	"github.com/toolgate/toolgate/views"
)

// sourcesImport imports an upload (admin). A new source is stored at once;
// an existing one gets the diff preview, applied by sourcesApply. Any
// problem re-renders the form with the specific error and what was typed,
// and stores nothing.
func (s *Server) sourcesImport(c echo.Context) error {
	form := views.SourceFormVM{Name: strings.TrimSpace(c.FormValue("name")), Origin: strings.TrimSpace(c.FormValue("origin")),
		Paste: c.FormValue("document")}
	pv, up, err := s.previewUpload(c, form)
	if err == nil && pv.Source == nil {
		_, err = s.deps.Store.ImportSource(c.Request().Context(), currentUser(c).Email, store.SourceImport{
			Name: form.Name, Origin: form.Origin, Doc: up.doc, DocumentSHA256: up.digest})
		if err == nil {
			return seeOther(c, "/sources/"+form.Name+"?done=imported")
		}
	}
	if status, errs, ok := formProblem(err); ok {
		if pv != nil && pv.Source != nil || s.sourceExists(c, form.Name) {
			c.SetParamNames("name")
			c.SetParamValues(form.Name)
			return s.renderSource(c, status, form, errs)
		}
		return s.renderSources(c, status, form, errs)
	}
	if err != nil {
		return err
	}
	s.imports.put(pendingImport{source: form.Name, digest: up.digest, origin: form.Origin, doc: up.doc, at: s.deps.Store.Now()})
	return render(c, http.StatusOK, views.SourcePreviewPage(previewView(s.page(c, "Re-import "+form.Name), form.Name, up.digest, pv)))
}

func (s *Server) previewUpload(c echo.Context, form views.SourceFormVM) (*store.ImportPreview, *upload, error) {
	up, err := readSourceUpload(c)
	if err != nil {
		return nil, nil, err
	}
	pv, err := s.deps.Store.PreviewImport(c.Request().Context(), form.Name, form.Origin, up.doc)
	return pv, up, err
}

func (s *Server) sourceExists(c echo.Context, name string) bool {
	if !importer.SourceNamePattern.MatchString(name) {
		return false
	}
	_, err := s.deps.Store.SourceByName(c.Request().Context(), name)
	return err == nil
}

func previewView(p views.Page, source, digest string, pv *store.ImportPreview) views.SourcePreviewView {
	m := views.SourcePreviewView{Page: p, Source: source, Origin: pv.Origin, BaseRevision: pv.BaseRevision, Digest: digest,
		Summary: importSummary(pv.Plan)}
	for _, ch := range pv.Plan.Changes {
		if ch.Kind == importer.Unchanged {
			continue
		}
		vm := views.ImportChangeVM{Kind: string(ch.Kind), Tool: ch.Tool, Method: ch.Method, Path: ch.Path,
			Class: ch.Class.String(), Suspend: ch.Suspend}
		if ch.Op != nil && ch.Kind != importer.Removed {
			vm.Gaps = ch.Op.SchemaGaps
		}
		for _, f := range ch.Fields {
			vm.Fields = append(vm.Fields, views.ImportFieldVM{Field: f.Field, Before: f.Before, After: f.After})
		}
		if d := ch.Definition; d != nil {
			vm.Definition = &views.DefinitionDiffVM{Parts: d.Summary(), Description: diffLinesVM(d.Description),
				InputSchema: diffLinesVM(d.InputSchema), Confirm: ch.Confirm, VoidPending: ch.VoidPending != ""}
		}
		m.Changes = append(m.Changes, vm)
	}
	return m
}

func importSummary(p *importer.Plan) views.ImportSummaryVM {
	out := views.ImportSummaryVM{Added: p.Count(importer.Added), Restored: p.Count(importer.Restored),
		Changed: p.Count(importer.Changed), Removed: p.Count(importer.Removed), Unchanged: p.Count(importer.Unchanged)}
	for _, c := range p.Suspended() {
		out.Suspended = append(out.Suspended, c.Tool)
	}
	return out
}

func diffLinesVM(d importer.TextDiff) []views.DiffLineVM {
	out := make([]views.DiffLineVM, 0, len(d.Lines))
	for _, l := range d.Lines {
		out = append(out, views.DiffLineVM{Op: string(l.Op), Text: l.Text, Gap: l.Gap})
	}
	return out
}
