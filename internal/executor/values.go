package executor

import (
	"encoding/json"
	"strconv"
	"strings"
	"unicode/utf8"
)

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

// maxMessage bounds the validator's text in an INVALID_ARGUMENTS message.
const maxMessage = 500

// oneLine collapses s to one line of at most maxMessage bytes plus "…",
// cut at a rune boundary: the message goes to the agent as JSON, where a
// split rune would turn into U+FFFD.
func oneLine(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	if len(s) > maxMessage {
		cut := maxMessage
		for cut > 0 && !utf8.RuneStart(s[cut]) {
			cut--
		}
		s = s[:cut] + "…"
	}
	return s
}
