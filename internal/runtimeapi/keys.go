package runtimeapi

import (
	"encoding/json"
	"fmt"
	"net/http"

	"github.com/labstack/echo/v4"

	"github.com/toolgate/toolgate/internal/bundle"
	"github.com/toolgate/toolgate/internal/store"
)

// apiKeys is GET /api/v1/keys: the JWK Set of the public keys runtimes
// should trust (the active key and every key not retired). It needs no
// token: public keys are public, and a runtime must be able to fetch them
// before it trusts anything. no-cache with an ETag keeps rotations visible
// at once while unchanged sets cost a 304.
func (s *Service) apiKeys(c echo.Context) error {
	body, etag, err := s.keySetJSON(c.Request().Context())
	if err != nil {
		return err
	}
	body, etag = s.holdKeys(c, body, etag)
	h := c.Response().Header()
	h.Set("ETag", etag)
	h.Set("Cache-Control", "no-cache")
	if etagMatches(c.Request().Header.Get("If-None-Match"), etag) {
		return c.NoContent(http.StatusNotModified)
	}
	return c.Blob(http.StatusOK, "application/jwk-set+json", body)
}

// keySetBytes is a key set as served, with its ETag.
func keySetBytes(set bundle.KeySet) ([]byte, string, error) {
	body, err := json.Marshal(set)
	if err != nil {
		return nil, "", fmt.Errorf("api keys: %w", err)
	}
	return body, store.BundleETag(body), nil
}
