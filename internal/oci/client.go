package oci

import (
	"errors"
	"fmt"
	"net/http"
	"strings"
	"time"

	"oras.land/oras-go/v2/registry/remote"
	"oras.land/oras-go/v2/registry/remote/auth"
	"oras.land/oras-go/v2/registry/remote/retry"
)

// MediaType is the bundle artifact's type: the manifest's artifactType and
// the media type of its one layer, the signed JWS.
const MediaType = "application/vnd.toolgate.bundle.v1+jws"

// AnnotationVersion carries the bundle version on the manifest, so a
// pusher can tell which version "latest" points at without the layer.
const AnnotationVersion = "org.toolgate.bundle.version"

// TagLatest is the tag runtimes pull.
const TagLatest = "latest"

// DefaultMaxBytes bounds a pulled bundle (the console's own bound).
const DefaultMaxBytes = 64 << 20

// maxManifestBytes bounds a manifest: ours is a few hundred bytes.
const maxManifestBytes = 1 << 20

// Options configure a Client.
type Options struct {
	Credentials Credentials
	// PlainHTTP talks HTTP instead of HTTPS: a loopback registry in
	// development and tests only.
	PlainHTTP bool
	// HTTPClient carries the requests (nil: a retrying client with a 30 s
	// timeout).
	HTTPClient *http.Client
	// MaxBytes bounds a pulled bundle (DefaultMaxBytes when zero).
	MaxBytes int64
}

// Client pushes and pulls bundles of one repository.
type Client struct {
	target   Target
	repo     *remote.Repository
	creds    Credentials
	maxBytes int64
}

// New prepares a client; it makes no request.
func New(t Target, opts Options) (*Client, error) {
	repo, err := remote.NewRepository(t.reference())
	if err != nil {
		return nil, fmt.Errorf("oci: %s: %w", t, err)
	}
	hc := opts.HTTPClient
	if hc == nil {
		hc = &http.Client{Timeout: 30 * time.Second, Transport: retry.NewTransport(nil)}
	}
	ac := &auth.Client{Client: hc, Cache: auth.NewCache(), Header: http.Header{"User-Agent": {"toolgate"}}}
	if opts.Credentials.Username != "" {
		ac.Credential = auth.StaticCredential(t.Host, auth.Credential{
			Username: opts.Credentials.Username, Password: opts.Credentials.Password})
	}
	repo.Client = ac
	repo.PlainHTTP = opts.PlainHTTP
	repo.MaxMetadataBytes = maxManifestBytes
	c := &Client{target: t, repo: repo, creds: opts.Credentials, maxBytes: opts.MaxBytes}
	if c.maxBytes <= 0 {
		c.maxBytes = DefaultMaxBytes
	}
	return c, nil
}

// Target is the repository this client works on.
func (c *Client) Target() Target { return c.target }

// Sanitize returns err's text fit for logs, pages and the database: the
// credentials replaced by "***", control characters dropped, cut to 300
// bytes. It is also applied to every error the client returns.
func (c *Client) Sanitize(err error) string {
	if err == nil {
		return ""
	}
	return sanitizeText(err.Error(), c.creds)
}

func sanitizeText(s string, creds Credentials) string {
	for _, secret := range []string{creds.Password, creds.Username} {
		if len(secret) >= 3 {
			s = strings.ReplaceAll(s, secret, "***")
		}
	}
	s = strings.Map(func(r rune) rune {
		if r < 0x20 || r == 0x7f {
			return ' '
		}
		return r
	}, s)
	if len(s) > 300 {
		s = s[:297] + "..."
	}
	return s
}

// wrap makes err one of this client's errors: the operation named, the
// text sanitised; errors.Is still finds ErrNotFound.
func (c *Client) wrap(op string, err error) error {
	if err == nil {
		return nil
	}
	e := &Error{Op: op, Target: c.target.String(), Text: c.Sanitize(err)}
	if isNotFound(err) {
		e.notFound = true
	}
	return e
}

// ErrNotFound: the tag (or the repository) does not exist in the registry.
var ErrNotFound = errors.New("not found in the registry")

// Error is a failed registry operation, already sanitised.
type Error struct {
	Op, Target, Text string
	notFound         bool
}

func (e *Error) Error() string { return e.Op + " " + e.Target + ": " + e.Text }

// Is matches ErrNotFound for a missing tag or repository.
func (e *Error) Is(target error) bool { return target == ErrNotFound && e.notFound }
