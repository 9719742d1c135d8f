package executor

import (
	"encoding/json"
	"net/http"
	"net/url"
	"strings"
)

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
