package web

import (
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/labstack/echo/v4"

	"github.com/toolgate/toolgate/internal/apperr"
	"github.com/toolgate/toolgate/internal/store"
	"github.com/toolgate/toolgate/views"
)

// auditPageSize is how many entries one audit page shows.
const auditPageSize = 50

// auditFilter reads the filter from the query string. Days are UTC and
// inclusive: to=2026-03-01 includes the whole of that day.
func auditFilter(c echo.Context) (store.AuditFilter, views.AuditFilterVM, error) {
	vm := views.AuditFilterVM{Actor: strings.TrimSpace(c.QueryParam("actor")), Action: strings.TrimSpace(c.QueryParam("action")),
		Subject: strings.TrimSpace(c.QueryParam("subject")), From: c.QueryParam("from"), To: c.QueryParam("to")}
	f := store.AuditFilter{Actor: vm.Actor, Action: vm.Action, Subject: vm.Subject}
	var err error
	if vm.From != "" {
		if f.From, err = time.Parse(time.DateOnly, vm.From); err != nil {
			return f, vm, apperr.Invalidf("Write the From day as YYYY-MM-DD.")
		}
	}
	if vm.To != "" {
		if f.To, err = time.Parse(time.DateOnly, vm.To); err != nil {
			return f, vm, apperr.Invalidf("Write the To day as YYYY-MM-DD.")
		}
		f.To = f.To.Add(24 * time.Hour)
	}
	return f, vm, nil
}

// query renders the filter (and a page) as a query string.
func auditQuery(vm views.AuditFilterVM, page int) string {
	q := url.Values{}
	for k, v := range map[string]string{"actor": vm.Actor, "action": vm.Action, "subject": vm.Subject, "from": vm.From, "to": vm.To} {
		if v != "" {
			q.Set(k, v)
		}
	}
	if page > 1 {
		q.Set("page", strconv.Itoa(page))
	}
	return q.Encode()
}

// auditList is the audit page (viewer+: everyone who signs in may read the
// log; it holds no secrets, only who changed what).
func (s *Server) auditList(c echo.Context) error {
	ctx := c.Request().Context()
	f, vm, ferr := auditFilter(c)
	page, _ := strconv.Atoi(c.QueryParam("page"))
	page = max(page, 1)
	f.Limit, f.Offset = auditPageSize, (page-1)*auditPageSize
	m := views.AuditView{Page: s.page(c, "Audit log"), Filter: vm, PageNo: page}
	status := http.StatusOK
	if ferr != nil {
		status, m.Errors = http.StatusBadRequest, []views.FormError{{Message: apperr.MessageOf(ferr)}}
		f = store.AuditFilter{Limit: auditPageSize}
	}
	entries, total, err := s.deps.Store.QueryAudit(ctx, f)
	if err != nil {
		return err
	}
	if m.Actions, err = s.deps.Store.AuditActions(ctx); err != nil {
		return err
	}
	m.Entries, m.Total = auditVMs(entries), total
	m.Pages = max((total+auditPageSize-1)/auditPageSize, 1)
	if page > 1 {
		m.PrevURL = "/audit?" + auditQuery(vm, page-1)
	}
	if page < m.Pages {
		m.NextURL = "/audit?" + auditQuery(vm, page+1)
	}
	m.ExportURL = "/audit/export?" + auditQuery(vm, 0)
	return render(c, status, views.AuditPage(m))
}
