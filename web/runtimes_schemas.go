package web

import (
	"strings"

	"github.com/labstack/echo/v4"

	"github.com/toolgate/toolgate/internal/bundle"
	"github.com/toolgate/toolgate/views"
)

// schemasText is how the Runtimes page names the bundle schemas a runtime
// said it reads (headerBundleSchemas as recorded): the majors, "v1, v2";
// a runtime that sent none reads v1 (every runtime from before v2).
// v1Only says it gets a v2 version's v1 form.
func schemasText(header string) (text string, v1Only bool) {
	if strings.TrimSpace(header) == "" {
		return "v1 (sent none)", true
	}
	var majors []string
	for s := range strings.SplitSeq(header, ",") {
		s = strings.TrimSpace(s)
		if major, ok := strings.CutPrefix(s, "toolgate.bundle/"); ok {
			s = major
		}
		majors = append(majors, s)
	}
	return strings.Join(majors, ", "), !bundle.ReadsV2(header)
}

// v1FormOf notes on m what the current version's v1 form leaves out, when
// it has one.
func (s *Server) v1FormOf(c echo.Context, m *views.RuntimesView) error {
	d, err := s.deps.Store.V1Form(c.Request().Context(), m.CurrentVersion)
	if err != nil || d == nil {
		return err
	}
	m.V1Form, m.V1FormWithheld = true, d.Withheld
	return nil
}
