package web

import (
	"net/http"
	"strconv"

	"github.com/labstack/echo/v4"

	"github.com/toolgate/toolgate/internal/auth"
	"github.com/toolgate/toolgate/internal/policy"
	"github.com/toolgate/toolgate/internal/risk"
	"github.com/toolgate/toolgate/internal/store"
	"github.com/toolgate/toolgate/views"
)

// toolsList is the tools page across sources (viewer+). The filters are a
// GET form; an HTMX request gets only the results fragment.
func (s *Server) toolsList(c echo.Context) error {
	ctx := c.Request().Context()
	q := toolQueryFrom(c)
	page, err := s.deps.Store.ListTools(ctx, q)
	if err != nil {
		return err
	}
	results := toolResults(c, q, page)
	if isHTMX(c) {
		// The filter form would push every field, empty ones included;
		// the address bar gets the same short URL the links use.
		c.Response().Header().Set("HX-Push-Url", toolsURL(q))
		return render(c, http.StatusOK, views.ToolsResultsSwap(results, filterVM(q)))
	}
	facets, err := s.deps.Store.ListToolFacets(ctx)
	if err != nil {
		return err
	}
	m := views.ToolsView{Page: s.page(c, "Tools"), Filter: filterVM(q), Sources: facets.Sources, Methods: facets.Methods,
		Tags: facets.Tags, Results: results, Exposure: []string{"exposed", "hidden", "suspended", "removed"}}
	for _, cl := range risk.Classes {
		m.Classes = append(m.Classes, cl.String())
	}
	return render(c, http.StatusOK, views.ToolsPage(m))
}

func toolResults(c echo.Context, q store.ToolQuery, page *store.ToolPage) views.ToolResultsVM {
	pages := max(1, (page.Total+q.PerPage-1)/q.PerPage)
	m := views.ToolResultsVM{CSRF: csrfToken(c), Total: page.Total, Page: q.Page, Pages: pages, Sorts: toolSorts(q),
		CanBulk: currentUser(c).Has(auth.RoleAdmin), Filtered: q.Source != "" || q.Class != "" || q.Method != "" ||
			q.Tag != "" || q.Exposure != "" || q.Removed || q.Text != ""}
	if q.Page > 1 {
		prev := q
		prev.Page--
		m.PrevURL = toolsURL(prev)
	}
	if q.Page < pages {
		next := q
		next.Page++
		m.NextURL = toolsURL(next)
	}
	for _, a := range []store.BulkAction{store.BulkExpose, store.BulkUnexpose, store.BulkDefaults} {
		m.Bulk = append(m.Bulk, views.BulkActionVM{Value: string(a), Label: a.Title()})
	}
	for _, t := range page.Tools {
		m.Rows = append(m.Rows, toolRowVM(t))
	}
	return m
}

// toolRowVM puts the retry summary of the effective policy beside the
// risk class, so the two decisions are read together.
func toolRowVM(t store.ToolSummary) views.ToolRowVM {
	eff := policy.Effective(t.Method, t.Policy)
	row := views.ToolRowVM{Name: t.Name, Source: t.Source, Method: t.Method, Path: t.PathKey, Summary: t.Summary,
		Deprecated: t.Deprecated, Class: t.Class.String(), Retry: policy.Describe(t.Method, eff),
		RetryShort: retryShort(t.Method, eff), Exposed: t.Exposed, Suspended: t.SuspendedReason}
	for _, r := range t.Reasons {
		row.Reasons = append(row.Reasons, views.ToolReasonVM{Code: r.Code, Text: r.Text})
	}
	return row
}

// retryShort is the tools table's retry column: the number of attempts an
// effective policy allows and what makes retrying a mutation safe ("3× key",
// "3× idempotent"), or "off" when R1 leaves a mutation one attempt.
func retryShort(method string, eff policy.Policy) string {
	n := strconv.Itoa(eff.Retry.Attempts) + "×"
	switch {
	case policy.IsSafeMethod(method):
		return n
	case eff.Retry.Attempts <= 1:
		return "off"
	case eff.IdempotencyKey != nil:
		return n + " key"
	case eff.Idempotent:
		return n + " idempotent"
	default:
		return n
	}
}
