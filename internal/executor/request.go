package executor

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strconv"
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
		if err := t.schema.Validate(anyMap(args)); err != nil {
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

// buildURL fills u from the source origin, the base path and the escaped
// path template; the query is sorted by parameter name.
func (t *tool) buildURL(u *url.URL, args map[string]any) error {
	u.Scheme, u.Host = t.source.scheme, t.source.host
	var raw, esc strings.Builder
	raw.Grow(t.pathSize)
	esc.Grow(t.pathSize + 16)
	raw.WriteString(t.source.basePath)
	esc.WriteString(t.source.basePathEscaped)
	for _, part := range t.path {
		if part.param == nil {
			raw.WriteString(part.literal)
			esc.WriteString(part.escaped)
			continue
		}
		v, ok := args[part.param.Arg]
		if !ok {
			return invalidf("missing path argument %q", part.param.Arg)
		}
		s, err := pathValue(part.param.Arg, v)
		if err != nil {
			return err
		}
		raw.WriteString(s)
		esc.WriteString(url.PathEscape(s))
	}
	u.Path, u.RawPath = raw.String(), esc.String()
	if err := checkSegments(u.Path); err != nil {
		return err
	}
	q, err := t.buildQuery(args)
	u.RawQuery = q
	return err
}

// pathValue formats a path argument and refuses anything that could add a
// segment or change the target once some layer decodes it: / \ ? # control
// characters, "." and "..", at any depth of percent-encoding.
func pathValue(arg string, v any) (string, error) {
	s, ok := scalar(v)
	if !ok {
		return "", invalidf("path argument %q must be a string, number or boolean", arg)
	}
	if s == "" {
		return "", invalidf("path argument %q must not be empty", arg)
	}
	d := s
	for range 4 {
		if strings.ContainsAny(d, "/\\?#") || hasControl(d) || d == "." || d == ".." {
			return "", invalidf("path argument %q contains a character or sequence that could change the request path", arg)
		}
		next, err := url.PathUnescape(d)
		if err != nil || next == d {
			return s, nil
		}
		d = next
	}
	return "", invalidf("path argument %q is percent-encoded too many times", arg)
}

// checkSegments refuses dot segments formed by joining literals and values.
func checkSegments(path string) error {
	for seg := range strings.SplitSeq(path, "/") {
		if seg == "." || seg == ".." {
			return invalidf("arguments form a %q path segment", seg)
		}
	}
	return nil
}

func (t *tool) buildQuery(args map[string]any) (string, error) {
	var b strings.Builder
	for _, p := range t.query {
		v, ok := args[p.Arg]
		if !ok || v == nil {
			continue
		}
		vals, err := listValues(p.Arg, v)
		if err != nil {
			return "", err
		}
		for _, s := range vals {
			if b.Len() > 0 {
				b.WriteByte('&')
			}
			b.WriteString(url.QueryEscape(p.Name))
			b.WriteByte('=')
			b.WriteString(url.QueryEscape(s))
		}
	}
	return b.String(), nil
}

// buildHeaders sets header and cookie parameters. Values with control
// characters are refused so an argument cannot add a header line.
func (t *tool) buildHeaders(h http.Header, args map[string]any) error {
	for _, p := range t.headers {
		v, ok := args[p.Arg]
		if !ok || v == nil {
			continue
		}
		vals, err := listValues(p.Arg, v)
		if err != nil {
			return err
		}
		s := strings.Join(vals, ",")
		if hasControl(s) {
			return invalidf("header argument %q contains control characters", p.Arg)
		}
		h[http.CanonicalHeaderKey(p.Name)] = []string{s}
	}
	var cookies []string
	for _, p := range t.cookies {
		v, ok := args[p.Arg]
		if !ok || v == nil {
			continue
		}
		s, isScalar := scalar(v)
		if !isScalar || strings.ContainsAny(s, ";,\" \\") || hasControl(s) {
			return invalidf("cookie argument %q must be a scalar without ; , quotes, spaces or control characters", p.Arg)
		}
		cookies = append(cookies, p.Name+"="+s)
	}
	if len(cookies) > 0 {
		h["Cookie"] = []string{strings.Join(cookies, "; ")}
	}
	// The value slices are shared by every request: header values are
	// replaced, never modified in place, by net/http and by Apply.
	if _, ok := h["Accept"]; !ok {
		h["Accept"] = acceptValue
	}
	h["Accept-Encoding"] = gzipValue
	h["User-Agent"] = userAgentValue
	return nil
}

// buildBody encodes the body argument by media type. JSON objects come out
// with sorted keys (encoding/json), so the bytes are deterministic.
func (t *tool) buildBody(p *prepared, args map[string]any) error {
	if t.body == nil {
		return nil
	}
	v, ok := args[t.body.Arg]
	if !ok {
		return nil
	}
	mt := t.bodyMediaType
	var err error
	switch {
	case isJSONMediaType(mt):
		p.body, err = json.Marshal(v)
		if err != nil {
			return invalidf("body argument %q cannot be encoded as JSON: %v", t.body.Arg, err)
		}
	case mt == "application/x-www-form-urlencoded":
		p.body, err = formBody(t.body.Arg, v)
		if err != nil {
			return err
		}
	case strings.HasPrefix(mt, "multipart/"):
		return invalidf("body argument %q: multipart bodies are not supported by the executor", t.body.Arg)
	default:
		s, isString := v.(string)
		if !isString {
			return invalidf("body argument %q must be a string for media type %s", t.body.Arg, mt)
		}
		p.body = []byte(s)
	}
	p.hasBody = true
	p.header["Content-Type"] = []string{mt}
	return nil
}

func formBody(arg string, v any) ([]byte, error) {
	obj, ok := v.(map[string]any)
	if !ok {
		return nil, invalidf("body argument %q must be an object for a form body", arg)
	}
	form := make(url.Values, len(obj))
	for k, fv := range obj {
		vals, err := listValues(arg+"."+k, fv)
		if err != nil {
			return nil, err
		}
		form[k] = vals
	}
	return []byte(form.Encode()), nil
}

// listValues formats a scalar or an array of scalars.
func listValues(arg string, v any) ([]string, error) {
	if s, ok := scalar(v); ok {
		return []string{s}, nil
	}
	arr, ok := v.([]any)
	if !ok {
		return nil, invalidf("argument %q must be a scalar or an array of scalars", arg)
	}
	out := make([]string, len(arr))
	for i, e := range arr {
		s, ok := scalar(e)
		if !ok {
			return nil, invalidf("argument %q: element %d is not a scalar", arg, i)
		}
		out[i] = s
	}
	return out, nil
}

// scalar formats a JSON scalar the way it reads in JSON text.
func scalar(v any) (string, bool) {
	switch x := v.(type) {
	case string:
		return x, true
	case json.Number:
		return x.String(), true
	case float64:
		return strconv.FormatFloat(x, 'f', -1, 64), true
	case float32:
		return strconv.FormatFloat(float64(x), 'f', -1, 32), true
	case int:
		return strconv.Itoa(x), true
	case int64:
		return strconv.FormatInt(x, 10), true
	case bool:
		return strconv.FormatBool(x), true
	}
	return "", false
}

func hasControl(s string) bool {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 0x20 || c == 0x7f {
			return true
		}
	}
	return false
}

func printableASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 0x21 || c > 0x7e {
			return false
		}
	}
	return true
}

func isJSONMediaType(mt string) bool {
	return mt == "application/json" || strings.HasSuffix(mt, "+json")
}

func oneLine(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	if len(s) > 500 {
		s = s[:500] + "…"
	}
	return s
}

// newRequest makes the http.Request of one attempt. The header map is
// shared by the attempts of a call unless credentials will be added to it
// (nothing else writes to it). The body reader has no GetBody on purpose:
// net/http may then never replay a request with a body on its own, so every
// send is one of our counted attempts.
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
	return req
}

type nopCloser struct{ *bytes.Reader }

func (nopCloser) Close() error { return nil }

// isInvalid reports whether err is an argument refusal.
func isInvalid(err error) bool {
	var e *errInvalid
	return errors.As(err, &e)
}
