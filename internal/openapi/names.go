package openapi

import (
	"crypto/sha256"
	"encoding/hex"
	"sort"
	"strconv"
	"strings"
)

// maxToolName is the longest name LLM function-calling APIs accept.
const maxToolName = 64

// sanitizeName maps anything outside [a-zA-Z0-9_-] to "_" and collapses
// runs, so "find pet by id" and "files#get" become usable names.
func sanitizeName(s string) string {
	var b strings.Builder
	b.Grow(len(s))
	lastUnderscore := false
	for _, r := range s {
		ok := r == '-' || r == '_' || (r >= 'a' && r <= 'z') || (r >= 'A' && r <= 'Z') || (r >= '0' && r <= '9')
		if !ok {
			r = '_'
		}
		if r == '_' && lastUnderscore {
			continue
		}
		lastUnderscore = r == '_'
		b.WriteRune(r)
	}
	return b.String()
}

func shortHash(parts ...string) string {
	h := sha256.Sum256([]byte(strings.Join(parts, "\x00")))
	return hex.EncodeToString(h[:4])
}

// ToolName is the agent-facing name of one operation before collisions are
// considered: the sanitized operationId (or, when it is empty, one derived
// from method and path key), cut to 64 characters with a hash of the full
// id so two long ids sharing a prefix stay apart. It is a pure function, so
// re-importing the same document yields the same names.
func ToolName(operationID, method, pathKey string) string {
	name := strings.Trim(sanitizeName(operationID), "_")
	if name == "" {
		name = derivedOperationID(method, pathKey)
		name = strings.Trim(name, "_")
	}
	if name == "" {
		name = "op"
	}
	if len(name) > maxToolName {
		name = strings.TrimRight(name[:maxToolName-9], "_") + "_" + shortHash(operationID, method, pathKey)
	}
	return name
}

// withSuffix appends a hash of method and path key to name, keeping the
// result within 64 characters.
func withSuffix(name, method, pathKey string) string {
	suffix := "_" + shortHash(strings.ToUpper(method), pathKey)
	if len(name)+len(suffix) > maxToolName {
		name = strings.TrimRight(name[:maxToolName-len(suffix)], "_")
	}
	return name + suffix
}

// AssignToolNames sets Tool on every operation so names are unique within
// the slice. Every member of a colliding group (Box's #fragment variants,
// ids that sanitize to the same string) gets a suffix derived from its own
// method and path key, never from document order, so the result does not
// depend on how the document lists its paths.
func AssignToolNames(ops []Operation) {
	groups := map[string][]int{}
	for i := range ops {
		ops[i].Tool = ToolName(ops[i].OperationID, ops[i].Method, ops[i].PathKey)
		groups[ops[i].Tool] = append(groups[ops[i].Tool], i)
	}
	taken := map[string]bool{}
	for name, idx := range groups {
		if len(idx) == 1 {
			taken[name] = true
		}
	}
	names := make([]string, 0, len(groups))
	for name := range groups {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		idx := groups[name]
		if len(idx) == 1 {
			continue
		}
		for _, i := range idx {
			n := withSuffix(name, ops[i].Method, ops[i].PathKey)
			// A suffixed name can only clash with another by hash
			// collision or with an unrelated plain name; widen the suffix
			// deterministically until it is free.
			for salt := 0; taken[n]; salt++ {
				n = withSuffix(name, ops[i].Method, ops[i].PathKey+"#"+strconv.Itoa(salt))
			}
			taken[n] = true
			ops[i].Tool = n
		}
	}
}
