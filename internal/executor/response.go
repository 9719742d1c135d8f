package executor

import (
	"bytes"
	"compress/flate"
	"compress/gzip"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"unicode/utf8"
)

// bodyError is a response body the executor cannot hand to the agent.
type bodyError struct {
	class Class
	msg   string
}

// maxPooledBuffer keeps one huge response from pinning memory in the pool.
const maxPooledBuffer = 256 << 10

// readResponse streams the body through the decoder and a LimitReader set
// one byte past the ceiling, so the ceiling counts decoded bytes (R9: a gzip
// bomb ends as RESPONSE_TOO_LARGE after max+1 bytes, never as an OOM). err
// is a transport failure (timeout, broken connection); bodyError is a body
// that arrived but is unusable.
func (e *Executor) readResponse(resp *http.Response, maxBytes int64) (any, *bodyError, error) {
	var r io.Reader = resp.Body
	enc := strings.TrimSpace(resp.Header.Get("Content-Encoding"))
	switch {
	case resp.Uncompressed || enc == "" || strings.EqualFold(enc, "identity"):
	case strings.EqualFold(enc, "gzip"):
		gz, err := gzip.NewReader(resp.Body)
		switch {
		case errors.Is(err, io.EOF):
			return nil, nil, nil // empty body
		case isCorrupt(err):
			return nil, &bodyError{ClassMalformedJSON, "the response's gzip encoding is corrupt"}, nil
		case err != nil:
			return nil, nil, err
		}
		defer gz.Close()
		r = gz
	default:
		return nil, &bodyError{ClassMalformedJSON, fmt.Sprintf("the response uses Content-Encoding %q, which the executor does not decode", enc)}, nil
	}
	buf, _ := e.bufs.Get().(*bytes.Buffer)
	if buf == nil {
		buf = new(bytes.Buffer)
	}
	buf.Reset()
	defer func() {
		if buf.Cap() <= maxPooledBuffer {
			e.bufs.Put(buf)
		}
	}()
	// Content-Length is the size of what is read only when nothing decodes it.
	if cl := resp.ContentLength; cl > 0 && cl <= maxBytes && r == io.Reader(resp.Body) {
		buf.Grow(int(cl) + 1)
	}
	n, err := buf.ReadFrom(io.LimitReader(r, maxBytes+1))
	switch {
	case isCorrupt(err):
		return nil, &bodyError{ClassMalformedJSON, "the response's gzip encoding is corrupt"}, nil
	case err != nil:
		return nil, nil, err
	case n > maxBytes:
		return nil, &bodyError{ClassResponseTooLarge, fmt.Sprintf("the response exceeded the tool's limit of %d bytes", maxBytes)}, nil
	}
	body, berr := parseBody(mediaType(resp.Header.Get("Content-Type")), buf.Bytes())
	return body, berr, nil
}

func isCorrupt(err error) bool {
	if err == nil {
		return false
	}
	var ce flate.CorruptInputError
	return errors.Is(err, gzip.ErrChecksum) || errors.Is(err, gzip.ErrHeader) || errors.As(err, &ce)
}

// parseBody turns body bytes into what the agent sees (R9). A JSON body is
// validated and kept as its exact bytes (json.RawMessage): the agent gets
// JSON text anyway, so decoding into a map only to encode it again would
// cost time and could round large numbers. Text stays text; anything else
// that is not UTF-8 is wrapped as base64. A malformed JSON body is reported
// and also returned as text, for error responses whose body explains the
// error. b belongs to a pooled buffer, so everything returned is a copy.
func parseBody(mt string, b []byte) (any, *bodyError) {
	if isJSONMediaType(mt) {
		trimmed := bytes.TrimSpace(b)
		if len(trimmed) == 0 {
			return nil, nil
		}
		if !json.Valid(trimmed) {
			return string(b), &bodyError{ClassMalformedJSON, "the response is declared as JSON but is not valid JSON"}
		}
		return json.RawMessage(bytes.Clone(trimmed)), nil
	}
	if len(b) == 0 {
		return nil, nil
	}
	if utf8.Valid(b) {
		return string(b), nil
	}
	return map[string]any{"content_type": mt, "bytes": len(b), "base64": base64.StdEncoding.EncodeToString(b)}, nil
}

// mediaType is the lower-cased type/subtype of a Content-Type value.
func mediaType(ct string) string {
	if i := strings.IndexByte(ct, ';'); i >= 0 {
		ct = ct[:i]
	}
	return strings.ToLower(strings.TrimSpace(ct))
}
