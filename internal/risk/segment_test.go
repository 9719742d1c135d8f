package risk

import (
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
)

func TestSegment(t *testing.T) {
	tests := map[string][]string{
		// "rolebindings" and "apikeys" are vocabulary terms themselves: the
		// split with the fewest dictionary words wins.
		"clusterrolebindings":  {"cluster", "rolebindings"},
		"clusterroletemplates": {"clusterrole", "templates"},
		"sshkeys":              {"ssh", "keys"},
		"servicetoken":         {"service", "token"},
		"apikeys":              {"apikeys"},
		"serviceapikeys":       {"service", "apikeys"},
		"unlockkey":            {"unlock", "key"},
		"roletag":              {"role", "tag"},
		"tfa":                  {"tfa"},
		// Kept whole: dictionary words, protected compounds, words whose
		// split has no risk noun, and words with no complete split.
		"openid":        {"openid"},
		"keydb":         {"keydb"},
		"append":        {"append"},
		"configuration": {"configuration"},
		"keystone":      {"keystone"},
		"Tokens":        {"Tokens"}, // not lower-case ASCII: words() lower-cases first
	}
	for in, want := range tests {
		if got := segment(in); !slices.Equal(got, want) {
			t.Errorf("segment(%q) = %q, want %q", in, got, want)
		}
	}
	for in, want := range map[string][]string{
		"OpenIDConfiguration":     {"openid", "configuration"},
		"/.well-known/openid":     {"well", "known", "openid"},
		"get-sshkeys":             {"get", "ssh", "keys"},
		"ClusterRoleBindings":     {"cluster", "role", "bindings"},
		"clusterrolebindings":     {"cluster", "rolebindings"},
		"createServicetoken":      {"create", "service", "token"},
		"KeyDB":                   {"keydb"},
		"OAuth2Client":            {"oauth2", "client"},
		"v1.authentication.tfa":   {"v1", "authentication", "tfa"},
		"list_clusterrolebinding": {"list", "cluster", "rolebinding"},
	} {
		if got := words(in); !slices.Equal(got, want) {
			t.Errorf("words(%q) = %q, want %q", in, got, want)
		}
	}
}

// TestPropertySegment: segmentation never adds, drops or reorders letters,
// every piece of a split is a dictionary word of at least two letters, one
// of them a risk noun, and gluing dictionary words that hold a risk noun
// always splits back into words that include that noun.
func TestPropertySegment(t *testing.T) {
	dict, _ := dictionary()
	var nouns, plain []string
	for w := range riskNouns() {
		if isLowerASCII(w) && !strings.Contains(w, " ") && len(w) >= 3 {
			nouns = append(nouns, w)
		}
	}
	for _, w := range segmentWords {
		if !riskNouns()[w] && len(w) >= 3 {
			plain = append(plain, w)
		}
	}
	slices.Sort(nouns)
	slices.Sort(plain)
	r := rand.New(rand.NewPCG(15, 2026))
	for range 3000 {
		var parts []string
		for range 1 + r.IntN(3) {
			if r.IntN(2) == 0 {
				parts = append(parts, pick(r, nouns))
			} else {
				parts = append(parts, pick(r, plain))
			}
		}
		in := strings.Join(parts, "")
		got := segment(in)
		if strings.Join(got, "") != in {
			t.Fatalf("segment(%q) = %q: letters changed", in, got)
		}
		if len(got) > 1 {
			hasNoun := false
			for _, p := range got {
				if len(p) < 2 || !dict[p] {
					t.Fatalf("segment(%q) = %q: piece %q is not a dictionary word", in, got, p)
				}
				hasNoun = hasNoun || riskNouns()[p]
			}
			if !hasNoun {
				t.Fatalf("segment(%q) = %q: split without a risk noun", in, got)
			}
		}
		// A glued name with a risk noun must expose a risk noun after
		// splitting (the segmentation may choose another valid split).
		if slices.ContainsFunc(parts, func(p string) bool { return riskNouns()[p] }) && len(in) >= 6 && !dict[in] {
			if !slices.ContainsFunc(got, func(p string) bool { return riskNouns()[p] }) {
				t.Errorf("segment(%q) = %q lost every risk noun of %q", in, got, parts)
			}
		}
	}
}
