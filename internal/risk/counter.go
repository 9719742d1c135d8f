package risk

import "slices"

// Counter-rules that keep words with an access meaning from raising
// operations that do not change access: a POST that only queries, a
// notification subscription under a user, and a proxy path that names a
// reverse proxy's settings. Each is a vocabulary (vocab.go), not a vendor.

// queryPostVerb returns the query verb of a POST that only searches or
// retrieves (a query verb, as the verb and not a plural noun, in its name
// or as a word of its last path segment, and no
// state-changing verb anywhere in it), or "" for any other operation:
// sending a token to introspect it stores nothing, and retrieving members
// through an admin API changes no access. Its response is still read for
// credential material.
func queryPostVerb(f *facts) string {
	if f.method != "POST" {
		return ""
	}
	changing := stateChangingVerbs()
	for _, ws := range [][]string{f.idWords, f.lastWords} {
		if slices.ContainsFunc(ws, func(w string) bool { return isVerb(w, changing) }) {
			return ""
		}
	}
	// The verb itself, not its third-person form: POST /saved-searches or
	// /estimates names a collection an item is created in.
	q := vocab("query-verbs")
	if v := nameAction(f.idWords); slices.Contains(q, v) {
		return v
	}
	if f.endsLiteral {
		if i := slices.IndexFunc(f.lastWords, func(w string) bool { return slices.Contains(q, w) }); i >= 0 {
			return f.lastWords[i]
		}
	}
	return ""
}

// matchQueryPost names the verb of a query-only POST: by the labelling
// rubric such a POST is a read, and the write-method rule skips it.
func matchQueryPost(f *facts, _ []string) []string {
	if !f.query {
		return nil
	}
	return []string{f.queryVerb}
}

// ownedFrom returns the index of the first path segment that can name the
// object an operation changes: the segment after the last one naming a
// notification or subscription. Identity nouns before it only say whose
// notifications they are (/users/{id}/notification-subscriptions).
func ownedFrom(f *facts) int {
	from := 0
	for i, seg := range f.segments {
		if hasAny(seg, vocab("notification-objects")) {
			from = i + 1
		}
	}
	return from
}

// settingsChannel is true when a channel word that also names a settings
// object ends the path (/servers/{id}/proxy): a path or a transport after
// it (/pods/{name}/proxy/{path}) is what makes it a channel.
func settingsChannel(f *facts, term string, i int) bool {
	return slices.Contains(vocab("settings-channel-words"), term) && i == len(f.segments)-1 && f.endsLiteral
}

// matchSecuritySettings: a change to an organisation's security settings
// (/session-timeout, /settings/security, /ip-allowlist) is an access
// change whoever owns them; the qualifier must name security itself, so
// /settings/notifications or a plain /config stays a write.
func matchSecuritySettings(f *facts, terms []string) []string {
	n := len(f.segments)
	if !f.mutation || f.query || n == 0 {
		return nil
	}
	var last []string
	for _, seg := range f.segments[max(0, n-2):] {
		last = append(last, seg...)
	}
	if !hasAny(last, vocab("security-qualifiers")) {
		return nil
	}
	for _, w := range last {
		if slices.Contains(terms, w) {
			return []string{w}
		}
	}
	return nil
}
