// Package views renders the console's HTML with templ. Every page takes one
// typed view model that embeds Page (what the layout needs); fragments for
// HTMX are small components of their own. Views never load data: handlers
// in web/ fill the view models.
package views

import "encoding/json"

// Page is what every full page carries for the layout.
type Page struct {
	Title  string
	User   *Viewer   // nil when nobody is signed in
	Nav    []NavItem // only entries the viewer may open
	CSRF   string    // token for forms (hidden field) and HTMX (header)
	Assets Assets
}

// Viewer is the signed-in person as the layout shows them.
type Viewer struct {
	Email string
	Roles []string
}

// NavItem is one entry of the main navigation.
type NavItem struct {
	Label  string
	Href   string
	Active bool
	// Count, when above zero, is shown as a badge (pending approvals).
	Count int
}

// Assets holds the versioned URLs of static files.
type Assets struct {
	CSS  string
	HTMX string
	// JS is app.js: small behaviours that need script (the copy button);
	// the CSP forbids inline script, so they live in this file.
	JS   string
	Icon string
}

// csrfHeaders is the hx-headers value: HTMX sends the CSRF token as a header
// on every request it makes (CSP forbids the inline script that would
// otherwise be needed).
func (p Page) csrfHeaders() string {
	b, _ := json.Marshal(map[string]string{"X-CSRF-Token": p.CSRF})
	return string(b)
}

// activeNav is the label of the navigation entry for this page, shown
// beside the collapsed menu on narrow screens.
func (p Page) activeNav() string {
	for _, n := range p.Nav {
		if n.Active {
			return n.Label
		}
	}
	return ""
}

// pendingCount sums the navigation badges, for the collapsed menu.
func (p Page) pendingCount() int {
	n := 0
	for _, e := range p.Nav {
		n += e.Count
	}
	return n
}

// htmxConfig lets HTMX swap 4xx/5xx responses (the error handler retargets
// them to #flash), turns off the inline indicator <style> that the CSP
// would refuse, and keeps no page snapshots in localStorage (they would
// hold CSRF tokens and data past sign-out): Back after an HTMX navigation
// fetches the page again with HX-History-Restore-Request, which gets the
// full page (web.isHTMX).
const htmxConfig = `{"includeIndicatorStyles":false,"historyCacheSize":0,"allowEval":false,"responseHandling":[{"code":"204","swap":false},{"code":"[23]..","swap":true},{"code":"[45]..","swap":true,"error":true}]}`

// FormError is a message about one field (or the whole form when Field is "").
// Link, when set, is shown after the message as LinkText (e.g. the pending
// request a duplicate request points to).
type FormError struct {
	Field    string
	Message  string
	Link     string
	LinkText string
}

func formWide(errs []FormError) bool {
	for _, e := range errs {
		if e.Field == "" {
			return true
		}
	}
	return false
}

// fieldInvalid reports whether errs has a problem with field.
func fieldInvalid(errs []FormError, field string) bool {
	for _, e := range errs {
		if e.Field == field {
			return true
		}
	}
	return false
}
