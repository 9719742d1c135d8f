package web

import (
	"net/http"
	"strconv"
	"strings"
	"testing"

	"github.com/toolgate/toolgate/internal/risk"
)

// TestRiskRulesPage: the page lists every rule of the engine's table, with
// its class and reason sentence, so the UI documents the classifier.
func TestRiskRulesPage(t *testing.T) {
	a := newTestApp(t, true)
	rec := a.do(request{method: http.MethodGet, path: "/risk-rules", cookie: a.sessionCookie("viewer")})
	wantStatus(t, rec, http.StatusOK)
	body := rec.Body.String()
	rules := risk.Rules()
	if got := strings.Count(body, `data-testid="risk-rule"`); got != len(rules) {
		t.Errorf("page lists %d rules, the engine has %d", got, len(rules))
	}
	for _, r := range rules {
		wantBody(t, rec, "<code>"+r.Code+"</code>", "risk-"+r.Class.String())
	}
	// Every word family is shown with its reason, and the rules version.
	vocab := risk.Vocabularies()
	if got := strings.Count(body, `data-testid="risk-vocabulary"`); got != len(vocab) {
		t.Errorf("page lists %d word families, the engine has %d", got, len(vocab))
	}
	for _, v := range vocab {
		wantBody(t, rec, "<code>"+v.Name+"</code>")
	}
	if got := byTestID(t, body, "risk-rules-version"); !strings.Contains(got, "Rules version "+strconv.Itoa(risk.RulesVersion)) {
		t.Errorf("version line %q", got)
	}
}
