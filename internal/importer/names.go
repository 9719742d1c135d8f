package importer

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"regexp"
)

// maxTool is the longest tool name LLM function-calling APIs accept.
const maxTool = 64

// SourceNamePattern is the rule for source names: short, lower case, safe in
// URLs, file names and as a tool-name prefix.
var SourceNamePattern = regexp.MustCompile(`^[a-z0-9][a-z0-9_-]{0,39}$`)

// Name picks the project-wide tool name of a new operation of source whose
// document-level name is candidate. A free candidate is used as is. When
// another tool holds it, the name is prefixed with the source name; when
// that is taken too, a hash of the source and op key is appended (and of a
// counter, should even that collide). Every step is a pure function of its
// inputs and taken, so the same project state always gives the same name,
// and stored tools keep their names on re-import anyway.
func Name(source, candidate, opKey string, taken func(string) bool) string {
	if !taken(candidate) {
		return candidate
	}
	prefixed := fit(source+"_"+candidate, "")
	if !taken(prefixed) {
		return prefixed
	}
	for i := 0; ; i++ {
		salt := source + "\x00" + opKey
		if i > 0 {
			salt += fmt.Sprintf("\x00%d", i)
		}
		n := fit(source+"_"+candidate, hash8(salt))
		if !taken(n) {
			return n
		}
	}
}

// fit cuts name so that name + "_" + suffix stays within maxTool; a name
// that had to be cut gets a hash of its full text so two long names sharing
// a prefix stay apart.
func fit(name, suffix string) string {
	room := maxTool
	if suffix != "" {
		room -= len(suffix) + 1
	}
	if len(name) > room {
		name = name[:room-9] + "_" + hash8(name)
	}
	if suffix != "" {
		name += "_" + suffix
	}
	return name
}

func hash8(s string) string {
	h := sha256.Sum256([]byte(s))
	return hex.EncodeToString(h[:4])
}
