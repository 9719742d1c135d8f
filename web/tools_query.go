package web

import (
	"net/url"
	"strconv"
	"strings"

	"github.com/labstack/echo/v4"

	"github.com/toolgate/toolgate/internal/store"
	"github.com/toolgate/toolgate/views"
)

// toolsPerPage is the tools page size: enough to scan, small enough to
// render fast at any catalogue size.
const toolsPerPage = 50

// toolQueryFrom reads the filter state from the URL (the same names the
// filter form uses, so a plain GET form, a bookmark and HTMX agree).
func toolQueryFrom(c echo.Context) store.ToolQuery {
	page, _ := strconv.Atoi(c.QueryParam("page"))
	q := store.ToolQuery{Source: c.QueryParam("source"), Class: strings.ToUpper(c.QueryParam("class")),
		Method: strings.ToUpper(c.QueryParam("method")), Tag: c.QueryParam("tag"), Exposure: c.QueryParam("exposure"),
		Text: strings.TrimSpace(c.QueryParam("q")), Removed: c.QueryParam("exposure") == "removed",
		Sort: c.QueryParam("sort"), Desc: c.QueryParam("dir") == "desc", Page: page, PerPage: toolsPerPage}
	if q.Removed {
		q.Exposure = ""
	}
	return q.Normalize()
}

// toolsURL renders q as a /tools URL with only the parameters that differ
// from the defaults.
func toolsURL(q store.ToolQuery) string {
	v := url.Values{}
	set := func(k, val string) {
		if val != "" {
			v.Set(k, val)
		}
	}
	set("source", q.Source)
	set("class", q.Class)
	set("method", q.Method)
	set("tag", q.Tag)
	set("exposure", q.Exposure)
	if q.Removed {
		v.Set("exposure", "removed")
	}
	set("q", q.Text)
	if q.Sort != "name" {
		set("sort", q.Sort)
	}
	if q.Desc {
		v.Set("dir", "desc")
	}
	if q.Page > 1 {
		v.Set("page", strconv.Itoa(q.Page))
	}
	if len(v) == 0 {
		return "/tools"
	}
	return "/tools?" + v.Encode()
}

// toolSorts builds the sortable headers: clicking the active column flips
// its direction, another column sorts ascending from page 1.
func toolSorts(q store.ToolQuery) map[string]views.ToolSortVM {
	labels := map[string]string{"name": "Tool", "method": "Method", "path": "Path", "class": "Risk class", "source": "Source"}
	out := map[string]views.ToolSortVM{}
	for key, label := range labels {
		next := q
		next.Sort, next.Page, next.Desc = key, 1, false
		vm := views.ToolSortVM{Label: label}
		if q.Sort == key {
			next.Desc = !q.Desc
			vm.Active = "ascending"
			if q.Desc {
				vm.Active = "descending"
			}
		}
		vm.URL = toolsURL(next)
		out[key] = vm
	}
	return out
}

func filterVM(q store.ToolQuery) views.ToolFilterVM {
	f := views.ToolFilterVM{Source: q.Source, Class: q.Class, Method: q.Method, Tag: q.Tag, Exposure: q.Exposure,
		Text: q.Text, Sort: q.Sort, Desc: q.Desc}
	if q.Removed {
		f.Exposure = "removed"
	}
	return f
}
