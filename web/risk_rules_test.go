package web

import (
	"net/http"
	"strconv"
	"testing"

	"github.com/toolgate/toolgate/internal/risk"
)

// TestRiskRulesPage: the page lists every rule of the engine's table, with
// its class and reason sentence, so the UI documents the classifier.
func TestRiskRulesPage(t *testing.T) {
	a := newTestApp(t, true)
	rec := a.do(request{method: http.MethodGet, path: "/risk-rules", cookie: a.sessionCookie("viewer")})
	wantStatus(t, rec, http.StatusOK)
	rules := risk.Rules()
	checks := []check{count(tid("risk-rule"), len(rules))}
	for _, r := range rules {
		checks = append(checks, in(tid("risk-rule"), all(in(`td[data-label="Rule"] small`, textIs(r.Name)),
			in(`td[data-label="Rule"] code`, textIs(r.Code)), in(`td[data-label="Class"] .risk-`+r.Class.String(), textIs(r.Class.String())))))
	}
	// Every word family is shown with its reason, and the rules version.
	vocab := risk.Vocabularies()
	checks = append(checks, count(tid("risk-vocabulary"), len(vocab)),
		in(tid("risk-rules-version"), hasText("Rules version "+strconv.Itoa(risk.RulesVersion))))
	for _, v := range vocab {
		checks = append(checks, in(tid("risk-vocabulary")+` td[data-label="Family"] code`, textIs(v.Name)))
	}
	wantPage(t, rec, checks...)
}
