package openapi

import (
	"bytes"
	"encoding/json"
	"errors"
	"path"
	"regexp"
	"strconv"
	"strings"
)

// looksJSON tells a JSON file by its name, or by its first character when
// the name says nothing (an upload called "spec").
func looksJSON(name string, data []byte) bool {
	switch strings.ToLower(path.Ext(name)) {
	case ".json":
		return true
	case ".yaml", ".yml":
		return false
	}
	t := bytes.TrimSpace(data)
	return len(t) > 0 && t[0] == '{'
}

// jsonSyntaxError words a JSON file's syntax error as encoding/json does
// ("invalid character '}' looking for beginning of object key string"),
// at its line and column; nil when encoding/json accepts the text (the YAML
// reader refused something else, reported as it said).
func jsonSyntaxError(name string, data []byte) *ImportError {
	var v json.RawMessage
	err := json.Unmarshal(data, &v)
	var se *json.SyntaxError
	if !errors.As(err, &se) {
		return nil
	}
	// Offset counts the offending byte too.
	line, col := lineCol(data, int(min(max(se.Offset-1, 0), int64(len(data)))))
	line, col = clampToLastLine(data, line, col)
	msg := strings.TrimPrefix(se.Error(), "json: ")
	return &ImportError{Kind: KindSyntax, File: name, Line: line, Col: col, Msg: "invalid JSON: " + msg, Err: err}
}

// clampToLastLine moves a position past the end of the text (where parsers
// report an unexpected end of input) to the end of its last line, the line
// an editor shows.
func clampToLastLine(data []byte, line, col int) (int, int) {
	body := bytes.TrimRight(data, " \t\r\n")
	last := bytes.Count(body, []byte("\n")) + 1
	if line <= last || len(body) == 0 {
		return line, col
	}
	start := bytes.LastIndexByte(body, '\n') + 1
	return last, len([]rune(string(body[start:]))) + 1
}

// blockHeader matches a line ending in a block scalar header without an
// indentation indicator: its prefix (indentation, "- " entries, a key) and
// the position right after the "|" or ">".
var blockHeader = regexp.MustCompile(`^( *(?:- +)*)((?:[^#\s][^#]*?:[ \t]+)?)[|>][+-]?[ \t]*(?:#.*)?$`)

// tabAfterIndent is the documented pre-pass for YAML 1.2's rule that a
// tab after the indentation spaces of a block scalar's first line is
// content (YAML test suite Y79Y: "foo: |\n \t\nbar: 1" is {foo: "\t\n"}),
// which the YAML reader in use refuses ("found a tab character where an
// indentation space is expected"). It writes the indentation the spec
// derives from that line as an explicit indicator ("|" becomes "|1"), which
// the reader handles, and changes nothing else: no line moves, so every
// position reported afterwards is still right. ok is false when err is not
// that refusal or no header needed the indicator.
func tabAfterIndent(data []byte, err error) ([]byte, bool) {
	if !strings.Contains(err.Error(), "found a tab character where an indentation space is expected") {
		return nil, false
	}
	lines := strings.SplitAfter(string(data), "\n")
	changed := false
	for i, line := range lines {
		m := blockHeader.FindStringSubmatchIndex(strings.TrimRight(line, "\r\n"))
		if m == nil {
			continue
		}
		// The block's parent indentation: the key's column, or the last
		// "- " entry's when the scalar is a sequence item.
		parent := m[3]
		if m[4] == m[5] {
			parent = strings.LastIndex(line[:m[3]], "-")
			if parent < 0 {
				continue
			}
		}
		first := i + 1
		for first < len(lines) && strings.Trim(lines[first], " \r\n") == "" && !strings.Contains(lines[first], "\t") {
			first++
		}
		if first >= len(lines) {
			continue
		}
		spaces := len(lines[first]) - len(strings.TrimLeft(lines[first], " "))
		if !strings.HasPrefix(lines[first][spaces:], "\t") {
			continue
		}
		if ind := spaces - parent; ind >= 1 && ind <= 9 {
			at := m[5]
			lines[i] = line[:at+1] + strconv.Itoa(ind) + line[at+1:]
			changed = true
		}
	}
	if !changed {
		return nil, false
	}
	return []byte(strings.Join(lines, "")), true
}
