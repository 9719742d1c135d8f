package views

import (
	"strconv"
	"strings"
)

// joinList shows a list of names (roles, tags, media types, tools) inline,
// or "none".
func joinList(items []string) string {
	if len(items) == 0 {
		return "none"
	}
	return strings.Join(items, ", ")
}

func termCount(n int) string {
	if n == 1 {
		return "1 term"
	}
	return strconv.Itoa(n) + " terms"
}

// plural picks the word for n things.
func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

// shortDigest shortens a definition digest for display: "sha256:" and the
// first 12 hex digits.
func shortDigest(d string) string {
	if len(d) > len("sha256:")+12 {
		return d[:len("sha256:")+12] + "…"
	}
	return d
}
