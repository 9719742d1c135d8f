package web

import (
	"net/url"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/labstack/echo/v4"

	"github.com/toolgate/toolgate/internal/apperr"
	"github.com/toolgate/toolgate/internal/callrecord"
	"github.com/toolgate/toolgate/internal/store"
	"github.com/toolgate/toolgate/views"
)

// callsPageSize is how many call records one Calls page shows.
const callsPageSize = 50

// callsToolName is the tool filter's shape (DESIGN's tool name rule).
var callsToolName = regexp.MustCompile(`^[a-zA-Z0-9_-]{1,64}$`)

// callsFilter reads ?tool= and ?principal=kind:subject.
func callsFilter(c echo.Context) (store.CallRecordFilter, error) {
	f := store.CallRecordFilter{Tool: strings.TrimSpace(c.QueryParam("tool"))}
	if f.Tool != "" && !callsToolName.MatchString(f.Tool) {
		return f, apperr.Invalidf("The tool filter is not a tool name.")
	}
	if p := c.QueryParam("principal"); p != "" {
		kind, subject, ok := strings.Cut(p, ":")
		if !ok || kind == "" {
			return f, apperr.Invalidf("Write the principal filter as kind:subject, e.g. oidc:ada@example.com.")
		}
		f.PrincipalKind, f.Subject = kind, subject
	}
	return f, nil
}

// callsQuery renders a filter and a page as the Calls page's query string.
func callsQuery(f store.CallRecordFilter, page int) string {
	q := url.Values{}
	if f.Tool != "" {
		q.Set("tool", f.Tool)
	}
	if f.PrincipalKind != "" {
		q.Set("principal", f.PrincipalKind+":"+f.Subject)
	}
	if page > 1 {
		q.Set("page", strconv.Itoa(page))
	}
	return "/calls?" + q.Encode()
}

// callsList is GET /calls (viewer+, like the audit log): the call records
// runtimes reported, of one tool (?tool=), one principal (?principal=) or
// all, newest first, paginated.
func (s *Server) callsList(c echo.Context) error {
	f, err := callsFilter(c)
	if err != nil {
		return err
	}
	page, _ := strconv.Atoi(c.QueryParam("page"))
	page = max(page, 1)
	f.Limit, f.Offset = callsPageSize, (page-1)*callsPageSize
	recs, total, err := s.deps.Store.CallRecordsPage(c.Request().Context(), f)
	if err != nil {
		return err
	}
	m := views.CallsView{Page: s.page(c, "Calls"), Tool: f.Tool, Retention: retentionText(s.deps.Config.CallRecordsRetention),
		Total: total, PageNo: page, Pages: max((total+callsPageSize-1)/callsPageSize, 1)}
	if f.PrincipalKind != "" {
		m.Principal = f.PrincipalKind + ":" + f.Subject
	}
	for _, r := range recs {
		m.Rows = append(m.Rows, callRow(r))
	}
	if page > 1 {
		m.PrevURL = callsQuery(f, page-1)
	}
	if page < m.Pages {
		m.NextURL = callsQuery(f, page+1)
	}
	return render(c, 200, views.CallsPage(m))
}

func callRow(r store.CallRecord) views.CallRow {
	who := store.CallRecordFilter{PrincipalKind: r.Principal.Kind, Subject: r.Principal.Subject}
	return views.CallRow{At: r.At.UTC().Format("2006-01-02 15:04:05 UTC"), Tool: r.Tool,
		Principal: r.Principal.Kind + ":" + r.Principal.Subject, PrincipalURL: callsQuery(who, 1), ClientID: r.Principal.ClientID,
		Decision: r.Decision, Denied: refused(r.Decision), Class: r.Class, Status: r.Status, Attempts: r.Attempts,
		Duration: strconv.FormatInt(r.DurationMS, 10) + " ms", DefinitionDigest: r.DefinitionDigest,
		ArgumentsDigest: r.ArgumentsDigest, TokenName: r.TokenName}
}

// retentionText says how long call records are kept, in days when whole.
func retentionText(d time.Duration) string {
	if d <= 0 {
		d = 30 * 24 * time.Hour
	}
	if d%(24*time.Hour) == 0 {
		n := int(d / (24 * time.Hour))
		return strconv.Itoa(n) + map[bool]string{true: " day", false: " days"}[n == 1]
	}
	return d.String()
}

// refused reports whether a call record's decision kept the call from
// running: anything but allowed, except a call still waiting for a
// person's decision (R16), which is not refused.
func refused(decision string) bool {
	return decision != callrecord.Allowed && decision != callrecord.AwaitingDecision
}
