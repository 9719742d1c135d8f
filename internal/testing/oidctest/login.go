package oidctest

import (
	"context"
	"html/template"
	"net/http"
)

// loginPage is the provider's sign-in form. It is plain HTML with labels,
// so a browser test finds the fields by label and a Go client posts it.
var loginPage = template.Must(template.New("login").Parse(`<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width">
<title>Test identity provider</title></head>
<body><h1>Test identity provider</h1>
{{if .Error}}<p role="alert">{{.Error}}</p>{{end}}
<form method="post" action="/login">
<input type="hidden" name="id" value="{{.ID}}">
<p><label for="username">Username</label> <input id="username" name="username" autocomplete="username"></p>
<p><label for="password">Password</label> <input id="password" name="password" type="password"></p>
<button type="submit">Sign in</button>
</form></body></html>`))

// login serves GET /login?authRequestID=… (the form) and POST /login
// (checks the password, then sends the browser back to the op, which
// issues the code and redirects to the client).
type login struct {
	st       *opStorage
	callback func(context.Context, string) string
}

func (l *login) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	switch r.Method {
	case http.MethodGet:
		l.render(w, http.StatusOK, r.URL.Query().Get("authRequestID"), "")
	case http.MethodPost:
		id := r.PostFormValue("id")
		if err := l.st.CheckUsernamePassword(r.PostFormValue("username"), r.PostFormValue("password"), id); err != nil {
			l.render(w, http.StatusUnauthorized, id, "Wrong username or password.")
			return
		}
		http.Redirect(w, r, l.callback(r.Context(), id), http.StatusFound)
	default:
		http.Error(w, "method not allowed", http.StatusMethodNotAllowed)
	}
}

func (l *login) render(w http.ResponseWriter, status int, id, msg string) {
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.WriteHeader(status)
	_ = loginPage.Execute(w, struct{ ID, Error string }{id, msg})
}
