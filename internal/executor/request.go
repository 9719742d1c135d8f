package executor

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strings"
)

// Header values every request carries.
var (
	acceptValue    = []string{"application/json, text/*;q=0.9, */*;q=0.5"}
	gzipValue      = []string{"gzip"}
	userAgentValue = []string{"toolgate-executor"}
)

// prepared is the request of one call, built once from the arguments and
// sent unchanged by every attempt (R8: deterministic; R6: same key).
type prepared struct {
	url         url.URL
	header      http.Header
	body        []byte
	hasBody     bool
	idempotency string
}

// errInvalid marks argument errors; the message goes to the agent as is.
type errInvalid struct{ msg string }

func (e *errInvalid) Error() string { return e.msg }

func invalidf(format string, args ...any) error {
	return &errInvalid{msg: fmt.Sprintf(format, args...)}
}

// prepare checks the arguments and builds the request. It never touches
// the network; every refusal is an *errInvalid.
func (t *tool) prepare(args map[string]any) (*prepared, error) {
	key, args, err := t.takeKeyArgument(args)
	if err != nil {
		return nil, err
	}
	if err := t.checkArguments(args); err != nil {
		return nil, err
	}
	p := &prepared{header: make(http.Header, len(t.headers)+4), idempotency: key}
	if err := t.buildURL(&p.url, args); err != nil {
		return nil, err
	}
	if err := t.buildHeaders(p.header, args); err != nil {
		return nil, err
	}
	if err := t.buildBody(p, args); err != nil {
		return nil, err
	}
	if t.policy.IdempotencyKey != nil {
		if key == "" {
			key = t.newKey()
		}
		p.idempotency = key
		p.header.Set(t.policy.IdempotencyKey.Header, key)
	}
	// A header parameter may carry a key too; either way net/http must
	// not see it (replay.go).
	hideReplayHeaders(p.header)
	return p, nil
}

// takeKeyArgument removes the idempotency-key argument (accepted even when
// the input schema does not declare it) and checks it is a usable header
// value.
func (t *tool) takeKeyArgument(args map[string]any) (string, map[string]any, error) {
	if t.keyArg == "" {
		return "", args, nil
	}
	raw, ok := args[t.keyArg]
	if !ok {
		return "", args, nil
	}
	s, isString := raw.(string)
	if !isString || s == "" || len(s) > 255 || !printableASCII(s) {
		return "", nil, invalidf("argument %q must be a non-empty printable ASCII string of at most 255 characters", t.keyArg)
	}
	rest := make(map[string]any, len(args)-1)
	for k, v := range args {
		if k != t.keyArg {
			rest[k] = v
		}
	}
	return s, rest, nil
}

// checkArguments refuses unknown arguments, then validates against the
// tool's input schema (R8: unknown arguments are refused even when the
// schema would allow additional properties).
func (t *tool) checkArguments(args map[string]any) error {
	var unknown []string
	for k := range args {
		if _, ok := t.known[k]; !ok {
			unknown = append(unknown, k)
		}
	}
	if len(unknown) > 0 {
		slices.Sort(unknown)
		return invalidf("unknown argument(s) %s; this tool accepts: %s", strings.Join(unknown, ", "), t.knownList)
	}
	for _, name := range t.required {
		if _, ok := args[name]; !ok {
			return invalidf("missing required argument %q", name)
		}
	}
	if t.schema != nil {
		sch, err := t.schema.schema()
		if err != nil {
			return fmt.Errorf("compiling the input schema: %w", err)
		}
		if err := sch.Validate(anyMap(args)); err != nil {
			return invalidf("arguments do not match the input schema: %s", oneLine(err.Error()))
		}
	}
	return nil
}

// anyMap gives the validator a non-nil object for a call without arguments.
func anyMap(args map[string]any) any {
	if args == nil {
		return map[string]any{}
	}
	return args
}

// newRequest makes the http.Request of one attempt. The header map is
// shared by the attempts of a call unless credentials will be added to it
// (nothing else writes to it). No request has GetBody, and bodyless ones
// are made unreplayable (replay.go): net/http may never resend a request on
// its own, so every send is one of our counted attempts.
func (p *prepared) newRequest(ctx context.Context, method string, ownHeader bool) *http.Request {
	u := p.url
	h := p.header
	if ownHeader {
		h = h.Clone()
	}
	req := (&http.Request{
		Method:     method,
		URL:        &u,
		Proto:      "HTTP/1.1",
		ProtoMajor: 1,
		ProtoMinor: 1,
		Header:     h,
		Host:       u.Host,
	}).WithContext(ctx)
	if p.hasBody {
		req.Body = nopCloser{bytes.NewReader(p.body)}
		req.ContentLength = int64(len(p.body))
		if len(p.body) == 0 {
			req.Body = http.NoBody
		}
	}
	makeUnreplayable(req)
	return req
}

type nopCloser struct{ *bytes.Reader }

func (nopCloser) Close() error { return nil }

// isInvalid reports whether err is an argument refusal.
func isInvalid(err error) bool {
	var e *errInvalid
	return errors.As(err, &e)
}
