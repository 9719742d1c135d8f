package risk

import (
	"slices"
	"strings"
	"sync"
	"unicode"

	"github.com/toolgate/toolgate/internal/openapi"
)

// words splits a name into lower-case words: on every character that is not
// a letter or digit (so snake_case, kebab-case, dotted Slack methods, colon
// custom methods and Box "#fragment" variants all split), and on camelCase
// boundaries ("deleteTask" → delete, task; "TLSCertificate" → tls,
// certificate). Digits stay attached to their word ("oauth2").
func words(s string) []string {
	var ws []string
	if isASCII(s) {
		ws = asciiWords(s)
	} else {
		ws = runeWords(s)
	}
	return splitGlued(mergeCompounds(ws))
}

// runeWords is words' split before joining compounds and segmenting.
func runeWords(s string) []string {
	var out []string
	rs := []rune(s)
	start := -1
	flush := func(end int) {
		if start >= 0 && end > start {
			out = append(out, strings.ToLower(string(rs[start:end])))
		}
		start = -1
	}
	for i, r := range rs {
		if !unicode.IsLetter(r) && !unicode.IsDigit(r) {
			flush(i)
			continue
		}
		if start < 0 {
			start = i
			continue
		}
		prev := rs[i-1]
		lowerToUpper := unicode.IsUpper(r) && (unicode.IsLower(prev) || unicode.IsDigit(prev))
		// "TLSCertificate": the C starts a new word because a lower-case
		// letter follows it.
		acronymEnd := unicode.IsUpper(r) && unicode.IsUpper(prev) && i+1 < len(rs) && unicode.IsLower(rs[i+1])
		if lowerToUpper || acronymEnd {
			flush(i)
			start = i
		}
	}
	flush(len(rs))
	return out
}

// asciiWords is words' split for ASCII names (nearly all of them), on the
// bytes of s: a word already lower-case is a substring of s, not a copy.
// It splits exactly where runeWords does.
func asciiWords(s string) []string {
	var out []string
	start := -1
	flush := func(end int) {
		if start >= 0 && end > start {
			out = append(out, strings.ToLower(s[start:end]))
		}
		start = -1
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !isAlnum(c) {
			flush(i)
			continue
		}
		if start < 0 {
			start = i
			continue
		}
		prev := s[i-1]
		lowerToUpper := isUpper(c) && (isLower(prev) || isDigit(prev))
		acronymEnd := isUpper(c) && isUpper(prev) && i+1 < len(s) && isLower(s[i+1])
		if lowerToUpper || acronymEnd {
			flush(i)
			start = i
		}
	}
	flush(len(s))
	return out
}

func isASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= 0x80 {
			return false
		}
	}
	return true
}

func isUpper(c byte) bool { return 'A' <= c && c <= 'Z' }
func isLower(c byte) bool { return 'a' <= c && c <= 'z' }
func isDigit(c byte) bool { return '0' <= c && c <= '9' }
func isAlnum(c byte) bool { return isUpper(c) || isLower(c) || isDigit(c) }

// mergeCompounds joins camelCase pieces that form one protected word again:
// "OpenID" splits into open + id, but it is the protocol, not the verb.
// ws is returned as it is when nothing joins.
func mergeCompounds(ws []string) []string {
	if len(ws) < 2 {
		return ws
	}
	compounds := vocab("compounds")
	var out []string // nil until a pair joins
	for i := 0; i < len(ws); i++ {
		if i+1 < len(ws) && isCompound(compounds, ws[i], ws[i+1]) {
			if out == nil {
				out = append(make([]string, 0, len(ws)-1), ws[:i]...)
			}
			out = append(out, ws[i]+ws[i+1])
			i++
			continue
		}
		if out != nil {
			out = append(out, ws[i])
		}
	}
	if out == nil {
		return ws
	}
	return out
}

// isCompound reports whether a+b is one of compounds, without building it.
func isCompound(compounds []string, a, b string) bool {
	return slices.ContainsFunc(compounds, func(c string) bool {
		return len(c) == len(a)+len(b) && c[:len(a)] == a && c[len(a):] == b
	})
}

// splitGlued segments run-together words ("apikeys" → api, keys).
func splitGlued(ws []string) []string {
	for i, w := range ws {
		if p, ok := glued(w); ok {
			out := append(slices.Clone(ws[:i]), p...)
			for _, w := range ws[i+1:] {
				if p, ok := glued(w); ok {
					out = append(out, p...)
				} else {
					out = append(out, w)
				}
			}
			return out
		}
	}
	return ws
}

// facts are the parts of an operation the rules look at, extracted once.
type facts struct {
	method string
	// safe is true for methods that do not change state by HTTP semantics.
	safe bool
	// idWords are the words of the operationId.
	idWords []string
	// summaryWords are the words of the summary.
	summaryWords []string
	// segments holds the words of every literal path segment, in order.
	// Parameter segments ({id}), numeric ids and self aliases (@me) are
	// left out: they name an instance, not what the operation does.
	segments [][]string
	// selfAfter[i] is true when segment i is directly followed by a self
	// alias such as "@me" (Discord /users/@me): the caller's own object.
	selfAfter []bool
	// lastWords are the words of the last literal path segment plus the
	// "#fragment" of the path key (Box "#remove_shared_link").
	lastWords []string
	// rpc is true when the last literal segment is an RPC-style method name
	// (Slack "/chat.delete", colon custom methods "levels:append"): its
	// words are then the operation's name, even for a GET.
	rpc bool
	// rpcName is the RPC method name: the part of the last literal segment
	// after its last dot or colon ("listGroups", "append").
	rpcName string
	// actionWords are the words in "action position" — the ones that say
	// what a safe-method operation does: the summary's first word, the
	// operationId's leading verb (or its last word when it does not start
	// with a verb), the first and last word of an RPC method name.
	actionWords []string
	// scopes lists every scope of every security alternative, sorted and
	// without duplicates: the most powerful credential that may be used
	// decides the risk, so alternatives are not told apart.
	scopes []string
	// extensions lists the vendor extension names, sorted, with their raw
	// values.
	extensions []extension
	// mutation is true when the operation changes state: an unsafe method,
	// or a safe method whose name says it changes state.
	mutation bool
	// wellKnown is true for /.well-known/... discovery documents.
	wellKnown bool
	// respSecrets and reqSecrets are the response and request-body
	// property paths that hold credential material (schema.go).
	respSecrets, reqSecrets []string
	// respKnown is true when a success response schema names properties:
	// only then can the engine tell a secret read from a metadata read.
	respKnown bool
	// respValues is true when the response returns stored values
	// ("value", "values[].value", "plaintext"; a leaf "payload" or "data"
	// of one item) of the operation's object (returnsStoredValue).
	respValues bool
	// reqFields are the request body's property paths.
	reqFields []string
	// enums are the request body's enum-valued properties.
	enums map[string][]string
	// secretWithheld is true when the description says secrets are never
	// returned ("never returns client secrets").
	secretWithheld bool
	// secretReturned is the secret noun of a description that says the
	// response carries secrets ("secrets are only returned when …"), ""
	// otherwise or when the description also says they are withheld.
	secretReturned string
	// endsLiteral is true when the path's last segment is literal text,
	// not a {parameter}.
	endsLiteral bool
	// removal caches isRemoval: 0 unknown, 1 yes, 2 no.
	removal int
	// k8sAction is the value of x-kubernetes-action ("connect", "get", …).
	k8sAction string
	// query is true for a POST that only queries; queryVerb is its verb
	// (queryPostVerb).
	query     bool
	queryVerb string
}

type extension struct {
	name  string
	value string
}

// isSafeMethod reports whether HTTP defines m as safe (RFC 9110 §9.2.1).
// TRACE counts here, unlike for retries (policy.IsSafeMethod): the risk
// engine asks what a method does, not whether repeating it is harmless.
func isSafeMethod(m string) bool {
	switch m {
	case "GET", "HEAD", "OPTIONS", "TRACE":
		return true
	}
	return false
}

func extractFacts(op *openapi.Operation) *facts {
	f := &facts{
		method:       strings.ToUpper(strings.TrimSpace(op.Method)),
		idWords:      words(op.OperationID),
		summaryWords: words(op.Summary),
	}
	f.safe = isSafeMethod(f.method)
	path := op.Path
	if path == "" {
		path = op.PathKey
	}
	path, _, _ = strings.Cut(path, "#")
	f.segments, f.selfAfter = literalSegments(path)
	if n := len(f.segments); n > 0 {
		raw := lastLiteral(path)
		f.rpc = strings.ContainsAny(raw, ".:") && !isFileName(raw)
		if f.rpc {
			f.rpcName = raw[strings.LastIndexAny(raw, ".:")+1:]
		}
		f.lastWords = slices.Clone(f.segments[n-1])
	}
	if _, frag, ok := strings.Cut(op.PathKey, "#"); ok {
		// Box tells variants of one path apart by fragment
		// ("#add_shared_link"): the fragment names the operation, so it
		// counts as a final segment for nouns and as part of the name for
		// verbs.
		fw := words(frag)
		f.lastWords = append(f.lastWords, fw...)
		if len(fw) > 0 {
			f.segments = append(f.segments, fw)
			f.selfAfter = append(f.selfAfter, false)
		}
	}
	f.actionWords = actionWords(f)
	for _, alt := range op.Security {
		for _, ss := range alt {
			f.scopes = append(f.scopes, ss.Scopes...)
		}
	}
	slices.Sort(f.scopes)
	f.scopes = slices.Compact(f.scopes)
	for name, raw := range op.Extensions {
		f.extensions = append(f.extensions, extension{name: name, value: string(raw)})
	}
	slices.SortFunc(f.extensions, func(a, b extension) int { return strings.Compare(a.name, b.name) })
	f.scopes = append(f.scopes, extensionScopes(f.extensions)...)
	slices.Sort(f.scopes)
	f.scopes = slices.Compact(f.scopes)
	changing := stateChangingVerbs()
	f.mutation = !f.safe || slices.ContainsFunc(f.actionWords, func(w string) bool { return isVerb(w, changing) })
	extractSchemaFacts(f, op)
	f.queryVerb = queryPostVerb(f)
	f.query = f.queryVerb != ""
	return f
}

var (
	changingOnce  sync.Once
	changingVerbs []string
)

// stateChangingVerbs are the destructive and write verbs together (shared,
// read-only).
func stateChangingVerbs() []string {
	changingOnce.Do(func() {
		changingVerbs = append(slices.Clone(vocab("destructive-verbs")), vocab("write-verbs")...)
	})
	return changingVerbs
}

func readVerbs() []string { return vocab("read-verbs") }

// literalSegments returns the words of each literal path segment, with the
// text inside {braces} removed, and whether each is followed by a self alias.
func literalSegments(path string) ([][]string, []bool) {
	var segs [][]string
	var self []bool
	for raw := range strings.SplitSeq(path, "/") {
		if strings.HasPrefix(raw, "@") || raw == "me" || raw == "self" {
			if len(self) > 0 {
				self[len(self)-1] = true
			}
			continue
		}
		ws := words(stripParams(raw))
		if len(ws) == 0 || allDigits(ws) {
			continue
		}
		segs = append(segs, ws)
		self = append(self, false)
	}
	return segs, self
}

// lastLiteral returns the last path segment that is not only a parameter.
func lastLiteral(path string) string {
	parts := strings.Split(path, "/")
	for i := len(parts) - 1; i >= 0; i-- {
		if s := stripParams(parts[i]); len(words(s)) > 0 && !strings.HasPrefix(parts[i], "@") {
			return s
		}
	}
	return ""
}

// isFileName reports whether a dotted segment is a file name such as
// "widget.json" rather than an RPC method: a file name's dot introduces a
// short extension and nothing else.
func isFileName(seg string) bool {
	dot := strings.LastIndexByte(seg, '.')
	if dot < 0 || strings.ContainsRune(seg, ':') || strings.Count(seg, ".") > 1 {
		return false
	}
	switch strings.ToLower(seg[dot+1:]) {
	case "json", "png", "jpg", "jpeg", "gif", "svg", "xml", "csv", "txt", "pdf", "html", "yaml", "yml", "zip":
		return true
	}
	return false
}

func stripParams(seg string) string {
	var b strings.Builder
	depth := 0
	for _, r := range seg {
		switch {
		case r == '{':
			depth++
		case r == '}' && depth > 0:
			depth--
		case depth == 0:
			b.WriteRune(r)
		}
	}
	return b.String()
}

func allDigits(ws []string) bool {
	for _, w := range ws {
		if strings.TrimFunc(w, unicode.IsDigit) != "" {
			return false
		}
	}
	return true
}

// actionWords collects the words that name what an operation does. Only
// these count as verbs for safe methods: "GET /files/{id}/trash" lists the
// trash (its name starts with "get"), while "GET /auth.revoke" revokes.
func actionWords(f *facts) []string {
	var out []string
	if w := nameAction(f.idWords); w != "" {
		out = append(out, w)
	}
	if f.rpc {
		// The RPC method name is the part after the last dot or colon:
		// "admin.conversations.restrictAccess.listGroups" → listGroups.
		if w := nameAction(words(f.rpcName)); w != "" {
			out = append(out, w)
		}
	}
	// A summary's first word is often a noun ("Import Contacts Status"),
	// so it only counts when the names do not already say they read.
	if len(f.summaryWords) > 0 && !slices.ContainsFunc(out, func(w string) bool { return isVerb(w, readVerbs()) }) {
		out = append(out, f.summaryWords[0])
	}
	return out
}

// nameAction picks the word of a name (an operationId or an RPC method
// name) that says what it does. Names put the verb first ("deleteTask") or
// last ("auth_revoke"); a read verb at either end wins, because nouns that
// are also verbs ("invite_resolve") must not turn a read into a write.
func nameAction(ws []string) string {
	if len(ws) == 0 {
		return ""
	}
	first, last := ws[0], ws[len(ws)-1]
	switch {
	case isVerb(first, readVerbs()):
		return first
	case isVerb(last, readVerbs()):
		return last
	case isVerb(first, stateChangingVerbs()):
		return first
	}
	return last
}

func isVerb(w string, verbs []string) bool {
	_, ok := baseVerb(w, verbs)
	return ok
}

// baseVerb returns the base form of w when w is one of verbs or its
// third-person form ("deletes", "purges"). Past forms such as "deleted" are
// deliberately not verbs: "list deleted items" reads.
func baseVerb(w string, verbs []string) (string, bool) {
	for _, v := range verbs {
		if len(w) < len(v) || w[:len(v)] != v {
			continue
		}
		if rest := w[len(v):]; rest == "" || rest == "s" || rest == "es" {
			return v, true
		}
	}
	return "", false
}
