package runtime

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strconv"

	segjson "github.com/segmentio/encoding/json"

	"github.com/toolgate/toolgate/internal/executor"
)

// The two JSON steps of every tools/call, written for the call path: with
// encoding/json they were about a third of the handler's time (the
// arguments decoded through a Decoder, the result marshalled twice over,
// the upstream's body validated and compacted at each level).

// decodeArguments reads the arguments object; numbers stay json.Number so
// large ids reach the upstream unchanged. The SDK has parsed the request,
// so raw is JSON; the decoder is segmentio's (as bundle verification's),
// with encoding/json's semantics for a map: the last of repeated members
// wins.
func decodeArguments(raw json.RawMessage) (map[string]any, error) {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || bytes.Equal(raw, []byte("null")) {
		return map[string]any{}, nil
	}
	var args map[string]any
	if _, err := segjson.Parse(raw, &args, segjson.UseNumber); err != nil {
		return nil, fmt.Errorf("arguments are not a JSON object: %w", err)
	}
	if args == nil {
		return nil, fmt.Errorf("arguments are not a JSON object: %s", firstToken(raw))
	}
	return args, nil
}

// firstToken names what raw holds instead of an object, for the error.
func firstToken(raw []byte) string {
	if len(raw) > 16 {
		raw = raw[:16]
	}
	return strconv.Quote(string(raw))
}

// appendResultJSON appends exactly the bytes of json.Marshal(res)
// (executor.Result.MarshalJSON) without encoding/json on the body: the
// executor validated a JSON body already, so compacting it is the one pass
// it needs (TestResultJSONMatchesMarshal compares the two).
func appendResultJSON(dst []byte, res *executor.Result) ([]byte, error) {
	dst = append(dst, `{"tool":`...)
	dst = appendJSONString(dst, res.Tool)
	dst = append(dst, `,"ok":`...)
	dst = strconv.AppendBool(dst, res.OK)
	dst = append(dst, `,"status":`...)
	if res.Status != 0 {
		dst = strconv.AppendInt(dst, int64(res.Status), 10)
	} else {
		dst = append(dst, "null"...)
	}
	dst = append(dst, `,"attempts":`...)
	dst = strconv.AppendInt(dst, int64(res.Attempts), 10)
	dst = append(dst, `,"duration_ms":`...)
	dst = strconv.AppendInt(dst, res.Duration.Milliseconds(), 10)
	dst = append(dst, `,"result":`...)
	var err error
	if dst, err = appendBody(dst, res.Body); err != nil {
		return nil, err
	}
	dst = append(dst, `,"error":`...)
	if res.Err == nil {
		dst = append(dst, "null"...)
	} else {
		raw, err := json.Marshal(res.Err) // failures only: not the hot path
		if err != nil {
			return nil, err
		}
		dst = append(dst, raw...)
	}
	return append(dst, '}'), nil
}

// appendBody appends the result member: the JSON body compacted, a text
// body as a string, null when there is none. Any other type (none today)
// goes through encoding/json.
func appendBody(dst []byte, body any) ([]byte, error) {
	switch v := body.(type) {
	case nil:
		return append(dst, "null"...), nil
	case json.RawMessage:
		if v == nil {
			return append(dst, "null"...), nil
		}
		buf := bytes.NewBuffer(dst)
		if err := json.Compact(buf, v); err != nil {
			return nil, err
		}
		if !bytes.ContainsAny(v, "<>&\u2028\u2029") {
			return buf.Bytes(), nil
		}
		// encoding/json escapes these inside a Marshaler's output too.
		var esc bytes.Buffer
		json.HTMLEscape(&esc, buf.Bytes()[len(dst):])
		return append(dst, esc.Bytes()...), nil
	case string:
		return appendJSONString(dst, v), nil
	}
	raw, err := json.Marshal(body)
	if err != nil {
		return nil, err
	}
	return append(dst, raw...), nil
}

// appendJSONString appends s as encoding/json writes a string (HTML
// characters escaped, invalid UTF-8 replaced): through it, for anything
// but plain printable ASCII.
func appendJSONString(dst []byte, s string) []byte {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 0x20 || c >= 0x7f || c == '"' || c == '\\' || c == '<' || c == '>' || c == '&' {
			raw, _ := json.Marshal(s) // a string always marshals
			return append(dst, raw...)
		}
	}
	dst = append(dst, '"')
	dst = append(dst, s...)
	return append(dst, '"')
}
