package web

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io/fs"
	"mime"
	"net/http"
	"path"

	"github.com/labstack/echo/v4"

	"github.com/toolgate/toolgate/static"
	"github.com/toolgate/toolgate/views"
)

// assets serves the embedded static files under content-hashed URLs
// (/static/app.css?v=HASH): a URL changes whenever the file does, so
// browsers may cache each one for a year.
type assets struct {
	files  map[string][]byte
	hashes map[string]string
}

func loadAssets() (*assets, error) {
	a := &assets{files: map[string][]byte{}, hashes: map[string]string{}}
	entries, err := fs.ReadDir(static.FS, ".")
	if err != nil {
		return nil, fmt.Errorf("load static files: %w", err)
	}
	for _, e := range entries {
		b, err := fs.ReadFile(static.FS, e.Name())
		if err != nil {
			return nil, fmt.Errorf("load static files: %w", err)
		}
		sum := sha256.Sum256(b)
		a.files[e.Name()] = b
		a.hashes[e.Name()] = hex.EncodeToString(sum[:8])
	}
	for _, need := range []string{"app.css", "htmx.min.js", "app.js", "favicon.ico"} {
		if _, ok := a.files[need]; !ok {
			return nil, fmt.Errorf("load static files: %s is missing (run `make static`)", need)
		}
	}
	return a, nil
}

func (a *assets) url(name string) string { return "/static/" + name + "?v=" + a.hashes[name] }

func (a *assets) urls() views.Assets {
	return views.Assets{CSS: a.url("app.css"), HTMX: a.url("htmx.min.js"), JS: a.url("app.js"), Icon: a.url("favicon.ico")}
}

// favicon answers the browser's automatic /favicon.ico request (pages also
// link the hashed /static URL); it would otherwise be a 404 on every page.
func (s *Server) favicon(c echo.Context) error {
	c.Response().Header().Set("Cache-Control", "public, max-age=86400")
	return c.Blob(http.StatusOK, "image/x-icon", s.assets.files["favicon.ico"])
}

// staticFile serves one embedded file. Only a request carrying the current
// hash gets the long cache lifetime, so a stale URL is never pinned.
func (s *Server) staticFile(c echo.Context) error {
	name := c.Param("name")
	b, ok := s.assets.files[name]
	if !ok {
		return echo.ErrNotFound
	}
	h := c.Response().Header()
	if c.QueryParam("v") == s.assets.hashes[name] {
		h.Set("Cache-Control", "public, max-age=31536000, immutable")
	} else {
		h.Set("Cache-Control", "no-cache")
	}
	h.Set("ETag", `"`+s.assets.hashes[name]+`"`)
	typ := mime.TypeByExtension(path.Ext(name))
	if typ == "" {
		typ = "application/octet-stream"
	}
	return c.Blob(http.StatusOK, typ, b)
}
