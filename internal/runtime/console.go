package runtime

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"

	"github.com/toolgate/toolgate/internal/bundle"
)

// Headers a runtime sends on every fetch so the console's fleet view knows
// who runs which version.
const (
	HeaderRuntimeName   = "X-Toolgate-Runtime-Name"
	HeaderInstanceID    = "X-Toolgate-Instance-Id"
	HeaderBundleVersion = "X-Toolgate-Bundle-Version"
)

// maxBundleBytes bounds what a runtime reads from the console: a bundle of
// 5,000 tools is a few MiB; anything far larger is a broken or hostile peer.
const maxBundleBytes = 64 << 20

// ErrNoBundle is returned by a fetch when the console has not published a
// bundle yet (404).
var ErrNoBundle = errors.New("the console has no published bundle yet")

// ErrTokenRefused is returned when the console refuses the runtime token.
var ErrTokenRefused = errors.New("the console refused the runtime token (401/403): check --token-file / TOOLGATE_RUNTIME_TOKEN")

// console talks to the console's runtime API.
type console struct {
	base       string // e.g. http://127.0.0.1:8080, no trailing slash
	token      string
	name, id   string
	httpClient *http.Client
}

// fetched is the answer to one bundle fetch.
type fetched struct {
	notModified bool
	signed      []byte
	etag        string
}

// fetchBundle asks for the current bundle, conditionally when etag is set.
func (c *console) fetchBundle(ctx context.Context, etag string, running int64) (fetched, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, c.base+"/api/v1/bundle", nil)
	if err != nil {
		return fetched{}, fmt.Errorf("fetch bundle: %w", err)
	}
	req.Header.Set("Authorization", "Bearer "+c.token)
	req.Header.Set("Accept", "application/jose")
	req.Header.Set(HeaderRuntimeName, c.name)
	req.Header.Set(HeaderInstanceID, c.id)
	req.Header.Set(HeaderBundleVersion, strconv.FormatInt(running, 10))
	if etag != "" {
		req.Header.Set("If-None-Match", etag)
	}
	resp, err := c.httpClient.Do(req)
	if err != nil {
		return fetched{}, fmt.Errorf("fetch bundle: %w", err)
	}
	defer resp.Body.Close()
	switch resp.StatusCode {
	case http.StatusNotModified:
		return fetched{notModified: true, etag: etag}, nil
	case http.StatusOK:
	case http.StatusUnauthorized, http.StatusForbidden:
		return fetched{}, fmt.Errorf("fetch bundle: %w", ErrTokenRefused)
	case http.StatusNotFound:
		return fetched{}, fmt.Errorf("fetch bundle: %w", ErrNoBundle)
	default:
		return fetched{}, fmt.Errorf("fetch bundle: console answered %s", resp.Status)
	}
	body, err := readLimited(resp.Body, maxBundleBytes)
	if err != nil {
		return fetched{}, fmt.Errorf("fetch bundle: %w", err)
	}
	return fetched{signed: body, etag: resp.Header.Get("ETag")}, nil
}

// fetchKeys reads the console's JWKS (used once, under trust on first use).
func (c *console) fetchKeys(ctx context.Context) (bundle.KeySet, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, c.base+"/api/v1/keys", nil)
	if err != nil {
		return bundle.KeySet{}, fmt.Errorf("fetch keys: %w", err)
	}
	req.Header.Set("Authorization", "Bearer "+c.token)
	req.Header.Set("Accept", "application/json")
	resp, err := c.httpClient.Do(req)
	if err != nil {
		return bundle.KeySet{}, fmt.Errorf("fetch keys: %w", err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return bundle.KeySet{}, fmt.Errorf("fetch keys: console answered %s", resp.Status)
	}
	body, err := readLimited(resp.Body, 1<<20)
	if err != nil {
		return bundle.KeySet{}, fmt.Errorf("fetch keys: %w", err)
	}
	keys, err := bundle.ParseKeySet(body)
	if err != nil {
		return bundle.KeySet{}, fmt.Errorf("fetch keys: %w", err)
	}
	if len(keys.Keys) == 0 {
		return bundle.KeySet{}, errors.New("fetch keys: the console published no keys")
	}
	return keys, nil
}

func readLimited(r io.Reader, limit int64) ([]byte, error) {
	body, err := io.ReadAll(io.LimitReader(r, limit+1))
	if err != nil {
		return nil, fmt.Errorf("reading the response: %w", err)
	}
	if int64(len(body)) > limit {
		return nil, fmt.Errorf("response is larger than %d bytes", limit)
	}
	return body, nil
}

// trimBase normalizes the console URL given on the command line.
func trimBase(u string) string { return strings.TrimRight(u, "/") }
