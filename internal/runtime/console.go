package runtime

import (
	"context"
	"errors"
	"fmt"
	"io"
	"maps"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/toolgate/toolgate/internal/bundle"
)

// Headers a runtime sends on every fetch so the console's fleet view knows
// who runs which version.
const (
	HeaderRuntimeName   = "X-Toolgate-Runtime-Name"
	HeaderInstanceID    = "X-Toolgate-Instance-Id"
	HeaderBundleVersion = "X-Toolgate-Bundle-Version"
	// HeaderRefused carries the runtime's last refusal (a refused bundle,
	// or the tools it withholds from the bundle in force), at most
	// MaxRefusedBytes of printable ASCII; absent when there is none.
	HeaderRefused = "X-Toolgate-Refused"
	// HeaderBundleSchemas lists the bundle schemas the runtime reads, so
	// the console serves a version's v1 form to a runtime that reads no
	// v2 (bundle doc.go, "Rolling upgrade"); absent means v1 only.
	HeaderBundleSchemas = "X-Toolgate-Bundle-Schemas"
)

// MaxRefusedBytes bounds the X-Toolgate-Refused header.
const MaxRefusedBytes = 512

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
	schemas    string // HeaderBundleSchemas; "" sends none
}

// fetched is the answer to one bundle fetch.
type fetched struct {
	notModified bool
	signed      []byte
	etag        string
	// applied is the wait the console applied (Preference-Applied), 0
	// when it answered at once.
	applied time.Duration
}

// bundleRequest is GET /api/v1/bundle with the token and this runtime's
// identification: its name, instance id, the version it runs and its last
// refusal, which the console's fleet view shows.
func (c *console) bundleRequest(ctx context.Context, running int64, refused string) (*http.Request, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, c.base+"/api/v1/bundle", nil)
	if err != nil {
		return nil, err
	}
	req.Header.Set("Authorization", "Bearer "+c.token)
	req.Header.Set(HeaderRuntimeName, c.name)
	req.Header.Set(HeaderInstanceID, c.id)
	req.Header.Set(HeaderBundleVersion, strconv.FormatInt(running, 10))
	if refused != "" {
		req.Header.Set(HeaderRefused, refused)
	}
	if c.schemas != "" {
		req.Header.Set(HeaderBundleSchemas, c.schemas)
	}
	return req, nil
}

// fetchBundle asks for the current bundle, conditionally when an ETag is
// set, and long polls when asked to (longpoll.go).
func (c *console) fetchBundle(ctx context.Context, fr fetchRequest) (fetched, error) {
	req, err := c.bundleRequest(ctx, fr.running, fr.refused)
	if err != nil {
		return fetched{}, fmt.Errorf("fetch bundle: %w", err)
	}
	req.Header.Set("Accept", "application/jose")
	if fr.etag != "" {
		req.Header.Set("If-None-Match", fr.etag)
	}
	resp, err := c.longPoll(req, fr.wait).Do(req)
	if err != nil {
		return fetched{}, fmt.Errorf("fetch bundle: %w", err)
	}
	defer resp.Body.Close()
	applied := appliedWait(resp.Header.Get(headerPreferenceApplied))
	switch resp.StatusCode {
	case http.StatusNotModified:
		return fetched{notModified: true, etag: fr.etag, applied: applied}, nil
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
	return fetched{signed: body, etag: resp.Header.Get("ETag"), applied: applied}, nil
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

// refusalReport is the X-Toolgate-Refused value: what the staleness and
// expiry rules withdraw (freshnessReport), the last refused bundle, then
// the tools withheld from the bundle in force, e.g.
// "bundle v7: withheld 2 tools: a: reason; b: reason". "" when none.
func (r *Runtime) refusalReport() string {
	var parts []string
	if f := r.freshnessReport(); f != "" {
		parts = append(parts, f)
	}
	if last, _ := r.lastRefusal.Load().(string); last != "" {
		parts = append(parts, last)
	}
	if s := r.snap.Load(); s != nil && len(s.withheld) > 0 {
		var b strings.Builder
		fmt.Fprintf(&b, "bundle v%d: withheld %d tool(s): ", s.bundle.Version, len(s.withheld))
		for i, name := range slices.Sorted(maps.Keys(s.withheld)) {
			if i > 0 {
				b.WriteString("; ")
			}
			b.WriteString(name + ": " + s.withheld[name])
			if b.Len() > MaxRefusedBytes {
				break
			}
		}
		parts = append(parts, b.String())
	}
	return headerSafe(strings.Join(parts, " | "), MaxRefusedBytes)
}

// headerSafe makes s a header value of at most limit bytes: printable ASCII
// only (anything else becomes '?'), cut with "..." when too long.
func headerSafe(s string, limit int) string {
	b := []byte(s)
	for i, c := range b {
		if c < 0x20 || c > 0x7e {
			b[i] = '?'
		}
	}
	if len(b) > limit {
		b = append(b[:limit-3], "..."...)
	}
	return string(b)
}
