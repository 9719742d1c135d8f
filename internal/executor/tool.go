package executor

import (
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strings"

	"github.com/sony/gobreaker/v2"

	"github.com/toolgate/toolgate/internal/bundle"
	"github.com/toolgate/toolgate/internal/condition"
	"github.com/toolgate/toolgate/internal/policy"
)

// source is a bundle source with its origin parsed once.
type source struct {
	def             bundle.Source // what it was compiled from
	name            string
	scheme, host    string
	basePath        string
	basePathEscaped string
}

// compileSource checks the origin with the bundle's own rule (a bundle that
// did not come through Verify may reach New) and parses it once.
func compileSource(s bundle.Source) (*source, error) {
	if err := bundle.ValidateOrigin(s.Origin); err != nil {
		return nil, fmt.Errorf("source %q: %w", s.Name, err)
	}
	u, err := url.Parse(s.Origin)
	if err != nil {
		return nil, fmt.Errorf("source %q: origin: %w", s.Name, err)
	}
	if s.BasePath != "" && (!strings.HasPrefix(s.BasePath, "/") || strings.HasSuffix(s.BasePath, "/")) {
		return nil, fmt.Errorf("source %q: base path %q: want \"\" or /segment[/segment...]", s.Name, s.BasePath)
	}
	if err := checkSegments(s.BasePath); err != nil {
		return nil, fmt.Errorf("source %q: base path: %w", s.Name, err)
	}
	return &source{def: s,
		name: s.Name, scheme: u.Scheme, host: u.Host,
		basePath: s.BasePath, basePathEscaped: (&url.URL{Path: s.BasePath}).EscapedPath(),
	}, nil
}

// pathPart is a literal piece of a path template or a path parameter.
type pathPart struct {
	literal, escaped string
	param            *bundle.Param
}

// tool is a bundle tool compiled for execution: effective policy, parsed
// path template, parameters grouped and sorted, input schema compiled,
// its own circuit breaker (given by Breakers.adopt once every tool compiled).
type tool struct {
	name     string
	method   string
	source   *source
	policy   policy.Policy // effective (R1 applied again here, whatever the bundle says)
	mutation bool          // the method is not safe: a sent request may have changed state
	exposed  bool

	path                    []pathPart
	pathSize                int // typical length of the built path, to size builders once
	query, headers, cookies []bundle.Param
	body                    *bundle.Body
	bodyMediaType           string

	known        map[string]struct{}
	knownList    string
	required     []string
	schema       *validator   // nil: any arguments object
	schemaDigest schemaDigest // key of schema in Schemas
	keyArg       string
	newKey       func() string
	conditions   *condition.Set // nil: none

	// def is the bundle tool this was compiled from: a next executor reuses
	// the compiled tool when its bundle carries an equal definition.
	def bundle.Tool

	breaker *gobreaker.TwoStepCircuitBreaker[struct{}]
}

// reservedHeaders may not be tool parameters: the executor owns them.
var reservedHeaders = []string{"Host", "Content-Length", "Transfer-Encoding", "Connection", "Content-Type", "Accept-Encoding", "Cookie", "Te", "Upgrade"}

// compileTool compiles one bundle tool of source src; schemas caches its
// input schema. The error names the tool and says why it cannot be run.
func compileTool(bt bundle.Tool, src *source, newKey func() string, schemas *Schemas) (*tool, error) {
	t := &tool{def: bt,
		name: bt.Name, method: strings.ToUpper(bt.Method), source: src,
		policy:   policy.Effective(bt.Method, bt.Policy),
		mutation: !policy.IsSafeMethod(bt.Method),
		exposed:  bt.Policy.Exposed,
		body:     bt.Body, newKey: newKey,
		known: map[string]struct{}{},
	}
	if k := t.policy.IdempotencyKey; k != nil {
		if slices.Contains(reservedHeaders, http.CanonicalHeaderKey(k.Header)) {
			return nil, fmt.Errorf("tool %q: idempotency header %q is reserved", bt.Name, k.Header)
		}
		if k.Source == policy.KeyArgument {
			t.keyArg = k.Argument
		}
	}
	if err := t.compileParams(bt); err != nil {
		return nil, fmt.Errorf("tool %q: %w", bt.Name, err)
	}
	if err := t.compilePath(bt); err != nil {
		return nil, fmt.Errorf("tool %q: %w", bt.Name, err)
	}
	schema, digest, err := schemas.compile(bt.InputSchema)
	if err != nil {
		return nil, fmt.Errorf("tool %q: %w", bt.Name, err)
	}
	t.schema, t.schemaDigest = schema, digest
	if t.conditions, err = condition.Compile(bt.InputSchema, bt.Policy.Conditions); err != nil {
		return nil, fmt.Errorf("tool %q: %w", bt.Name, err)
	}
	return t, nil
}

func (t *tool) compileParams(bt bundle.Tool) error {
	for _, p := range bt.Params {
		t.known[p.Arg] = struct{}{}
		if p.Required {
			t.required = append(t.required, p.Arg)
		}
		switch p.In {
		case "path":
		case "query":
			t.query = append(t.query, p)
		case "header":
			name := http.CanonicalHeaderKey(p.Name)
			if slices.Contains(reservedHeaders, name) ||
				(t.policy.IdempotencyKey != nil && name == http.CanonicalHeaderKey(t.policy.IdempotencyKey.Header)) {
				return fmt.Errorf("header parameter %q is reserved", p.Name)
			}
			t.headers = append(t.headers, p)
		case "cookie":
			t.cookies = append(t.cookies, p)
		default:
			return fmt.Errorf("parameter %q: unknown location %q", p.Name, p.In)
		}
	}
	byName := func(a, b bundle.Param) int { return strings.Compare(a.Name, b.Name) }
	slices.SortStableFunc(t.query, byName)
	slices.SortStableFunc(t.headers, byName)
	slices.SortStableFunc(t.cookies, byName)
	if bt.Body != nil {
		t.known[bt.Body.Arg] = struct{}{}
		if bt.Body.Required {
			t.required = append(t.required, bt.Body.Arg)
		}
		t.bodyMediaType = strings.ToLower(strings.TrimSpace(bt.Body.MediaType))
		if t.bodyMediaType == "" {
			t.bodyMediaType = "application/json"
		}
	}
	names := make([]string, 0, len(t.known))
	for k := range t.known {
		names = append(names, k)
	}
	slices.Sort(names)
	t.knownList = strings.Join(names, ", ")
	if t.knownList == "" {
		t.knownList = "(none)"
	}
	return nil
}

// compilePath splits "/orders/{id}/items" into literals and parameters.
func (t *tool) compilePath(bt bundle.Tool) error {
	rest := bt.Path
	if !strings.HasPrefix(rest, "/") || strings.ContainsAny(rest, "?#") {
		return fmt.Errorf("path %q: must start with / and hold no query or fragment", bt.Path)
	}
	used := map[string]bool{}
	for rest != "" {
		open := strings.IndexByte(rest, '{')
		if open < 0 {
			t.addLiteral(rest)
			break
		}
		t.addLiteral(rest[:open])
		end := strings.IndexByte(rest[open:], '}')
		if end < 0 {
			return fmt.Errorf("path %q: unclosed {", bt.Path)
		}
		name := rest[open+1 : open+end]
		i := slices.IndexFunc(bt.Params, func(p bundle.Param) bool { return p.In == "path" && p.Name == name })
		if i < 0 {
			return fmt.Errorf("path %q: no path parameter named %q", bt.Path, name)
		}
		used[name] = true
		t.path = append(t.path, pathPart{param: &bt.Params[i]})
		t.pathSize += 16
		rest = rest[open+end+1:]
	}
	for _, p := range bt.Params {
		if p.In == "path" && !used[p.Name] {
			return fmt.Errorf("path parameter %q does not appear in path %q", p.Name, bt.Path)
		}
	}
	t.pathSize += len(t.source.basePath)
	return checkSegments(bt.Path)
}

func (t *tool) addLiteral(s string) {
	t.pathSize += len(s)
	if s != "" {
		t.path = append(t.path, pathPart{literal: s, escaped: (&url.URL{Path: s}).EscapedPath()})
	}
}
