package web

import (
	"fmt"
	"strings"
	"testing"

	"github.com/PuerkitoBio/goquery"
)

// openIs checks whether a <details> is open.
func openIs(want bool) check {
	return func(s *goquery.Selection) string {
		if _, got := s.Attr("open"); got != want {
			return fmt.Sprintf("open=%v, want %v", got, want)
		}
		return ""
	}
}

// labelsTied checks that every label in the element names, with for=, a
// control inside it, and that every select has such a label.
func labelsTied() check {
	return func(s *goquery.Selection) string {
		var problems []string
		s.Find("label").Each(func(_ int, l *goquery.Selection) {
			id, _ := l.Attr("for")
			if id == "" || s.Find("#"+id).Length() != 1 {
				problems = append(problems, fmt.Sprintf("label %q names no control (for=%q)", l.Text(), id))
			}
		})
		s.Find("select, input[type=search]").Each(func(_ int, c *goquery.Selection) {
			id, _ := c.Attr("id")
			if id == "" || s.Find(`label[for="`+id+`"]`).Length() != 1 {
				problems = append(problems, fmt.Sprintf("control %q has no label", id))
			}
		})
		return strings.Join(problems, "; ")
	}
}

// TestToolsFilterDisclosure: the five selects sit in a "Filters" <details>
// that counts the active ones and is open when any is; the search and the
// sort stay outside it; an HTMX answer updates the count out of band.
func TestToolsFilterDisclosure(t *testing.T) {
	a := newTestApp(t, true)
	a.importDoc("many", manyOps(5))
	a.importDoc("pets", petsDoc(""))
	tests := []struct {
		query   string
		open    bool
		summary string
	}{
		{"", false, "Filters"},
		{"?q=show&sort=path&dir=desc", false, "Filters"}, // search and sort are in view, not counted
		{"?class=DESTRUCTIVE", true, "Filters (1)"},
		{"?source=many&class=READ&method=get&tag=t1&exposure=removed", true, "Filters (5)"},
		{"?exposure=removed", true, "Filters (1)"},
	}
	for _, tt := range tests {
		t.Run(tt.query, func(t *testing.T) {
			wantHTML(t, a.get("/tools"+tt.query, "viewer", nil),
				in("form[data-testid=tool-filters]", labelsTied()),
				in("[data-testid=tool-filters] > details[data-testid=more-filters]", openIs(tt.open)),
				in("[data-testid=more-filters] > summary", textIs(tt.summary)),
				count("[data-testid=more-filters] select", 5),
				in("[data-testid=tool-filters] > .filter.search input#filter-text"),
				in("[data-testid=tool-filters] > .filter.sort select#filter-sort"),
				count("#filter-count", 1),
			)
		})
	}

	// HTMX replaces the results only; the summary's count and the sort
	// (a column header's choice, which the form submits next) come out of
	// band.
	for _, tt := range []struct {
		query, count, sort string
		dirs               int
	}{
		{"?source=pets&method=get", "(2)", "name", 0},
		{"?q=pet&sort=path&dir=desc", "", "path", 1},
	} {
		t.Run("htmx"+tt.query, func(t *testing.T) {
			frag := a.get("/tools"+tt.query, "viewer", map[string]string{"HX-Request": "true"})
			wantHTML(t, frag,
				in("[data-testid=tools-table]"),
				none("form[data-testid=tool-filters]"),
				in(`#filter-count[hx-swap-oob="true"]`, textIs(tt.count)),
				count(`select#filter-sort[name=sort][hx-swap-oob="true"] option[selected]`, 1),
				in(`select#filter-sort option[selected]`, hasAttr("value", tt.sort)),
				count(`span#filter-dir[hx-swap-oob="true"]`, 1),
				count(`#filter-dir input[name=dir][value=desc]`, tt.dirs),
			)
		})
	}
}
