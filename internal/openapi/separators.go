package openapi

import (
	"bytes"
	"strings"
	"unicode/utf8"

	"github.com/pb33f/go-yaml"
)

// lineSeparators are the characters YAML 1.1 breaks lines at and YAML 1.2
// reads as content (its only line breaks are LF and CR, spec 5.4): NEL
// (U+0085), LINE SEPARATOR (U+2028) and PARAGRAPH SEPARATOR (U+2029). The
// YAML reader in use follows 1.1, so a description holding one is refused
// inside a block scalar or a plain scalar and loses the spaces after it in
// a quoted one, JSON included.
var lineSeparators = []rune{'\u0085', '\u2028', '\u2029'}

// separatorStandIns are the characters tried as stand-ins: printable to
// YAML, nothing special to its grammar, and as long in UTF-8 as the
// separator they replace, so no byte offset, line or column moves. The
// first one the text does not contain is used.
var separatorStandIns = map[int][2]rune{
	2: {'\u0100', '\u07ff'}, // Latin Extended-A … NKo, for NEL
	3: {'\ue000', '\uf8ff'}, // the Private Use Area, for U+2028/U+2029
}

// standInSeparators is the pre-pass for YAML 1.2's reading of lineSeparators
// as content: each one in data is replaced by a stand-in character data does
// not contain, and back (nil when data holds no separator) turns the
// stand-ins of a decoded value into the original characters again
// (restoreSeparators). data itself is never modified.
func standInSeparators(data []byte) (out []byte, back *strings.Replacer) {
	var pairs, backPairs []string
	used := map[rune]bool{}
	for _, sep := range lineSeparators {
		s := string(sep)
		if !bytes.Contains(data, []byte(s)) {
			continue
		}
		in, ok := standInFor(data, utf8.RuneLen(sep), used)
		if !ok {
			continue // a text holding every candidate: left to the reader
		}
		used[in] = true
		pairs = append(pairs, s, string(in))
		backPairs = append(backPairs, string(in), s)
	}
	if pairs == nil {
		return data, nil
	}
	return []byte(strings.NewReplacer(pairs...).Replace(string(data))), strings.NewReplacer(backPairs...)
}

// standInFor returns the first candidate of the given UTF-8 length that
// data does not contain and no other separator uses.
func standInFor(data []byte, size int, used map[rune]bool) (rune, bool) {
	span := separatorStandIns[size]
	for r := span[0]; r <= span[1]; r++ {
		if !used[r] && !bytes.Contains(data, []byte(string(r))) {
			return r, true
		}
	}
	return 0, false
}

// restoreSeparators writes the original separators back into every scalar
// of a tree decoded from standInSeparators' output, keys included.
func restoreSeparators(n *yaml.Node, back *strings.Replacer) {
	if n == nil || back == nil {
		return
	}
	if n.Kind == yaml.ScalarNode {
		n.Value = back.Replace(n.Value)
		return
	}
	for _, c := range n.Content {
		restoreSeparators(c, back)
	}
}

// escapeNEL writes each NEL of a JSON text as \u0085. encoding/json escapes
// U+2028 and U+2029 itself; a raw NEL, which can only sit inside a string,
// would meet the YAML 1.1 reading again when the library decodes the text.
func escapeNEL(b []byte) []byte {
	return bytes.ReplaceAll(b, []byte("\u0085"), []byte(`\u0085`))
}
