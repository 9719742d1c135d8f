package bundle

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"reflect"
	"regexp"
	"slices"
	"strings"

	"github.com/toolgate/toolgate/internal/policy"
)

// toolNameRE is the tool-name rule of LLM function-calling APIs.
var toolNameRE = regexp.MustCompile(`^[a-zA-Z0-9_-]{1,64}$`)

// methods are the HTTP methods a tool may use.
var methods = []string{"GET", "HEAD", "OPTIONS", "POST", "PUT", "PATCH", "DELETE", "TRACE"}

// paramLocations are the places an argument can go (OpenAPI "in").
var paramLocations = []string{"path", "query", "header", "cookie"}

// Validate checks the invariants every bundle holds, whether built here or
// received: schema id, version, validity window, well-formed origins, tool
// names, uniqueness, that every tool's source is present, and that every
// tool carries its effective policy (retry_on never null). It returns all
// problems found, joined.
func (b *Bundle) Validate() error { return b.validate(true) }

// validate is Validate; checkJSON false skips proving that each input schema
// is valid JSON, for callers that have just canonicalized the bundle (which
// parses every schema) — the schema must still be an object.
func (b *Bundle) validate(checkJSON bool) error { return b.validateSome(checkJSON, nil, nil) }

// validateSome is validate, except that the tools known marks (Verify took
// them from its Memo: they passed validateTool with the same source) only
// take part in the checks across tools, and the digests digested marks
// (Verify's read proved them, read.go) are not computed again.
func (b *Bundle) validateSome(checkJSON bool, known, digested []bool) error {
	var errs []error
	if !slices.Contains(KnownSchemas(), b.Schema) {
		errs = append(errs, fmt.Errorf("schema is %q, want one of %s", b.Schema, strings.Join(KnownSchemas(), ", ")))
	}
	if b.Version < 1 {
		errs = append(errs, fmt.Errorf("version %d: want 1 or more", b.Version))
	}
	if !b.ExpiresAt.After(b.IssuedAt) {
		errs = append(errs, fmt.Errorf("expires_at %s is not after issued_at %s", b.ExpiresAt, b.IssuedAt))
	}
	sources := map[string]*Source{}
	for i, s := range b.Sources {
		if s.Name == "" {
			errs = append(errs, errors.New("a source has an empty name"))
		} else if sources[s.Name] != nil {
			errs = append(errs, fmt.Errorf("source %q appears twice", s.Name))
		}
		sources[s.Name] = &b.Sources[i]
		if err := validateSource(s); err != nil {
			errs = append(errs, fmt.Errorf("source %q: %w", s.Name, err))
		}
	}
	names := map[string]bool{}
	for i, t := range b.Tools {
		if names[t.Name] {
			errs = append(errs, fmt.Errorf("tool %q appears twice", t.Name))
		}
		names[t.Name] = true
		if known != nil && known[i] {
			continue
		}
		digestOK := digested != nil && digested[i]
		if err := validateTool(b.Schema, t, sources, checkJSON, digestOK); err != nil {
			errs = append(errs, fmt.Errorf("tool %q: %w", t.Name, err))
		}
	}
	if err := errors.Join(errs...); err != nil {
		return fmt.Errorf("invalid bundle: %w", err)
	}
	return nil
}

// ValidateOrigin checks that origin is exactly scheme://host[:port] with an
// http or https scheme: no userinfo (R8), no path, query or fragment, so the
// executor can never be steered elsewhere by how the origin is spelled.
func ValidateOrigin(origin string) error {
	u, err := url.Parse(origin)
	if err != nil {
		return fmt.Errorf("origin %q: %w", origin, err)
	}
	switch {
	case u.Scheme != "http" && u.Scheme != "https":
		return fmt.Errorf("origin %q: scheme must be http or https", origin)
	case u.User != nil:
		return fmt.Errorf("origin %q: must not contain a user name or password", origin)
	case u.Host == "" || u.Hostname() == "":
		return fmt.Errorf("origin %q: has no host", origin)
	case u.Path != "" || u.RawQuery != "" || u.Fragment != "" || u.Opaque != "" || strings.HasSuffix(origin, "?") || strings.HasSuffix(origin, "#"):
		return fmt.Errorf("origin %q: must be scheme://host[:port] with no path, query or fragment", origin)
	case origin != u.Scheme+"://"+u.Host:
		return fmt.Errorf("origin %q: must be written as scheme://host[:port]", origin)
	}
	return nil
}

func validateSource(s Source) error {
	if err := ValidateOrigin(s.Origin); err != nil {
		return err
	}
	if s.BasePath != "" && (!strings.HasPrefix(s.BasePath, "/") || strings.HasSuffix(s.BasePath, "/")) {
		return fmt.Errorf("base_path %q: want \"\" or /segment[/segment...] without a trailing slash", s.BasePath)
	}
	return nil
}

// validateTool checks one tool; digestOK says its digest was proved
// already (against the same source), so it is not computed again.
func validateTool(schema string, t Tool, sources map[string]*Source, checkJSON, digestOK bool) error {
	var errs []error
	if !toolNameRE.MatchString(t.Name) {
		errs = append(errs, fmt.Errorf("name must match %s", toolNameRE))
	}
	if src := sources[t.Source]; src == nil {
		errs = append(errs, fmt.Errorf("source %q is not in the bundle", t.Source))
	} else if !digestOK {
		if err := checkDigest(&t, src); err != nil {
			errs = append(errs, err)
		}
	}
	if !slices.Contains(methods, t.Method) {
		errs = append(errs, fmt.Errorf("method %q: want one of %s (upper case)", t.Method, strings.Join(methods, ", ")))
	}
	if !strings.HasPrefix(t.Path, "/") {
		errs = append(errs, fmt.Errorf("path %q must start with /", t.Path))
	}
	for _, p := range t.Params {
		if p.Name == "" || p.Arg == "" || !slices.Contains(paramLocations, p.In) {
			errs = append(errs, fmt.Errorf("param %q: needs a name, an argument and in = path, query, header or cookie", p.Name))
		}
	}
	if !t.Risk.Valid() {
		errs = append(errs, fmt.Errorf("risk class %d is not valid", int(t.Risk)))
	}
	if raw := bytes.TrimLeft(t.InputSchema, " \t\r\n"); len(raw) == 0 || raw[0] != '{' || checkJSON && !json.Valid(raw) {
		errs = append(errs, errors.New("input_schema must be a JSON object"))
	}
	if !t.Policy.Exposed {
		errs = append(errs, errors.New("policy is not exposed: a bundle holds only exposed tools"))
	}
	if err := validateEffective(t); err != nil {
		errs = append(errs, err)
	}
	if err := validateV2Members(schema, &t.Policy); err != nil {
		errs = append(errs, err)
	}
	return errors.Join(errs...)
}

// validateEffective checks that a tool carries its effective policy, so
// that every runtime, in any language, can take the values literally
// instead of re-deriving defaults, and that this policy passes the
// console's own validation (policy.Validate). In particular retry_on must be a list:
// null is the one value whose meaning depends on who reads it (a stored
// policy's nil means the R3 default set, an empty list means no status is
// retried), so a bundle refuses it instead of picking one.
func validateEffective(t Tool) error {
	if t.Policy.Retry.RetryOn == nil {
		return errors.New("policy.retry.retry_on is null: a bundle lists the retried statuses " +
			"([408,429,502,503,504] is the R3 default, [] retries none)")
	}
	if eff := policy.Effective(t.Method, t.Policy); !reflect.DeepEqual(eff, t.Policy) {
		return fmt.Errorf("policy is not the effective policy of a %s tool (bundle.Build applies policy.Effective)", t.Method)
	}
	// What the console refuses to store, a runtime refuses to run: a
	// deadline shorter than the attempt timeout, say, would fail every call
	// without a single attempt.
	if err := t.Policy.Validate(); err != nil {
		return err
	}
	return nil
}

// checkDigest refuses a tool whose digest is not the digest of what it
// says (R13): the digest is what the console pinned, so a tool carrying
// one must be exactly that definition.
func checkDigest(t *Tool, src *Source) error {
	want, err := DefinitionDigest(t, src)
	if err != nil {
		return err
	}
	if t.Digest != want {
		return fmt.Errorf("digest %q is not the definition digest of the tool (%s)", t.Digest, want)
	}
	return nil
}
