package executor

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"os"
	"strings"
	"sync"
)

// CredentialProvider adds a source's credentials to an outgoing request.
// Implementations must never log the secrets they handle.
type CredentialProvider interface {
	// Apply adds the credentials of source to req and reports whether it
	// added any. A source without credentials is not an error.
	Apply(ctx context.Context, source string, req *http.Request) (bool, error)
}

// Refresher is implemented by providers that can renew a source's
// credentials. After a 401 the executor calls Refresh once and, when it
// reports a change, resends the request once (any method: a 401 means the
// request was not applied).
type Refresher interface {
	Refresh(ctx context.Context, source string) (bool, error)
}

// Credentials is one source's entry of the credentials file. Exactly one of
// its fields is set.
type Credentials struct {
	Bearer  string            `json:"bearer,omitempty"`
	APIKey  *APIKey           `json:"api_key,omitempty"`
	Basic   *BasicAuth        `json:"basic,omitempty"`
	Headers map[string]string `json:"headers,omitempty"`
}

// APIKey is a key sent in a header, query parameter or cookie.
type APIKey struct {
	In    string `json:"in"` // header, query, cookie
	Name  string `json:"name"`
	Value string `json:"value"`
}

// BasicAuth is an HTTP Basic username and password.
type BasicAuth struct {
	Username string `json:"username"`
	Password string `json:"password"`
}

// FileCredentials is a CredentialProvider read from a credentials file (see
// the package documentation for its format). Refresh re-reads the file, so
// rotating a token on disk is picked up after the upstream's first 401.
type FileCredentials struct {
	path   string
	getenv func(string) string

	mu      sync.RWMutex
	sources map[string]Credentials
}

// LoadCredentials reads a credentials file. Values of the form "env:NAME"
// are read from getenv (os.Getenv when nil); a missing variable is an error
// so that a typo does not silently send an empty secret.
func LoadCredentials(path string, getenv func(string) string) (*FileCredentials, error) {
	if getenv == nil {
		getenv = os.Getenv
	}
	fc := &FileCredentials{path: path, getenv: getenv}
	srcs, err := fc.read()
	if err != nil {
		return nil, err
	}
	fc.sources = srcs
	return fc, nil
}

// ParseCredentials reads credentials from JSON (the credentials file's
// content). The result cannot Refresh from disk.
func ParseCredentials(data []byte, getenv func(string) string) (*FileCredentials, error) {
	if getenv == nil {
		getenv = os.Getenv
	}
	srcs, err := parseCredentials(data, getenv)
	if err != nil {
		return nil, err
	}
	return &FileCredentials{getenv: getenv, sources: srcs}, nil
}

func (fc *FileCredentials) read() (map[string]Credentials, error) {
	data, err := os.ReadFile(fc.path)
	if err != nil {
		return nil, fmt.Errorf("read credentials file: %w", err)
	}
	srcs, err := parseCredentials(data, fc.getenv)
	if err != nil {
		return nil, fmt.Errorf("read credentials file %s: %w", fc.path, err)
	}
	return srcs, nil
}

func parseCredentials(data []byte, getenv func(string) string) (map[string]Credentials, error) {
	var file struct {
		Sources map[string]Credentials `json:"sources"`
	}
	dec := json.NewDecoder(strings.NewReader(string(data)))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&file); err != nil {
		// The decoder's message never quotes values, only names and offsets.
		return nil, fmt.Errorf("parse credentials: %w", err)
	}
	out := make(map[string]Credentials, len(file.Sources))
	for name, c := range file.Sources {
		r, err := c.resolve(getenv)
		if err != nil {
			return nil, fmt.Errorf("parse credentials: source %q: %w", name, err)
		}
		out[name] = r
	}
	return out, nil
}

// resolve checks that exactly one kind is set and replaces env: references.
func (c Credentials) resolve(getenv func(string) string) (Credentials, error) {
	kinds := 0
	var errs []error
	val := func(s string) string {
		v, err := resolveValue(s, getenv)
		errs = append(errs, err)
		return v
	}
	if c.Bearer != "" {
		kinds++
		c.Bearer = val(c.Bearer)
	}
	if c.APIKey != nil {
		kinds++
		k := *c.APIKey
		switch k.In {
		case "header", "query", "cookie":
		default:
			errs = append(errs, fmt.Errorf("api_key.in must be header, query or cookie, not %q", k.In))
		}
		if k.Name == "" {
			errs = append(errs, errors.New("api_key.name is empty"))
		}
		k.Value = val(k.Value)
		c.APIKey = &k
	}
	if c.Basic != nil {
		kinds++
		b := BasicAuth{Username: val(c.Basic.Username), Password: val(c.Basic.Password)}
		c.Basic = &b
	}
	if c.Headers != nil {
		kinds++
		h := make(map[string]string, len(c.Headers))
		for k, v := range c.Headers {
			h[http.CanonicalHeaderKey(k)] = val(v)
		}
		c.Headers = h
	}
	if kinds != 1 {
		errs = append(errs, fmt.Errorf("want exactly one of bearer, api_key, basic, headers; got %d", kinds))
	}
	return c, errors.Join(errs...)
}

func resolveValue(s string, getenv func(string) string) (string, error) {
	name, ok := strings.CutPrefix(s, "env:")
	if !ok {
		return s, nil
	}
	v := getenv(name)
	if v == "" {
		return "", fmt.Errorf("environment variable %s is not set", name)
	}
	return v, nil
}

// Apply implements CredentialProvider.
func (fc *FileCredentials) Apply(_ context.Context, source string, req *http.Request) (bool, error) {
	fc.mu.RLock()
	c, ok := fc.sources[source]
	fc.mu.RUnlock()
	if !ok {
		return false, nil
	}
	switch {
	case c.Bearer != "":
		req.Header.Set("Authorization", "Bearer "+c.Bearer)
	case c.Basic != nil:
		req.SetBasicAuth(c.Basic.Username, c.Basic.Password)
	case c.APIKey != nil:
		applyAPIKey(req, *c.APIKey)
	default:
		for k, v := range c.Headers {
			req.Header.Set(k, v)
		}
	}
	return true, nil
}

func applyAPIKey(req *http.Request, k APIKey) {
	switch k.In {
	case "query":
		q := req.URL.Query()
		q.Set(k.Name, k.Value)
		req.URL.RawQuery = q.Encode()
	case "cookie":
		req.AddCookie(&http.Cookie{Name: k.Name, Value: k.Value})
	default:
		req.Header.Set(k.Name, k.Value)
	}
}

// Refresh implements Refresher by re-reading the credentials file. It
// reports whether the source's credentials changed; a provider built with
// ParseCredentials never changes.
func (fc *FileCredentials) Refresh(_ context.Context, source string) (bool, error) {
	if fc.path == "" {
		return false, nil
	}
	srcs, err := fc.read()
	if err != nil {
		return false, fmt.Errorf("refresh credentials: %w", err)
	}
	fc.mu.Lock()
	defer fc.mu.Unlock()
	old, had := fc.sources[source]
	updated, has := srcs[source]
	fc.sources = srcs
	if had != has {
		return true, nil
	}
	return !credentialsEqual(old, updated), nil
}

func credentialsEqual(a, b Credentials) bool {
	ja, _ := json.Marshal(a)
	jb, _ := json.Marshal(b)
	return string(ja) == string(jb)
}
