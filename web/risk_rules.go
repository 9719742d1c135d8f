package web

import (
	"net/http"
	"strings"

	"github.com/labstack/echo/v4"

	"github.com/toolgate/toolgate/internal/risk"
	"github.com/toolgate/toolgate/views"
)

// riskRules is GET /risk-rules: the risk engine's rule table, the same data
// the engine classifies with (risk.Rules), so the page cannot drift from it.
// A rule's sentence names the matched term with %s; the table shows ‹term›.
func (s *Server) riskRules(c echo.Context) error {
	m := views.RiskRulesView{Page: s.page(c, "Risk rules"), Version: risk.RulesVersion}
	for _, v := range risk.Vocabularies() {
		m.Vocabularies = append(m.Vocabularies, views.RiskVocabularyVM{Name: v.Name, Why: v.Why, Terms: v.Terms})
	}
	for _, r := range risk.Rules() {
		m.Rules = append(m.Rules, views.RiskRuleVM{Name: r.Name, Code: r.Code, Class: r.Class.String(),
			Applies: r.Applies, Looks: r.Looks, Terms: r.Terms, Text: strings.ReplaceAll(r.Text, "%s", "‹term›")})
	}
	return render(c, http.StatusOK, views.RiskRulesPage(m))
}
