package risk

import (
	"math/rand/v2"
	"slices"
	"testing"
)

// The ASCII fast path splits every ASCII name exactly where the rune loop
// does: random names over letters of both cases, digits and separators.
func TestASCIIWordsMatchRuneWords(t *testing.T) {
	const alphabet = "aAbBcCdDeEiIdDsStTKkLlXx0129_-.:#/ {}"
	rng := rand.New(rand.NewPCG(1, 2))
	for range 20000 {
		b := make([]byte, rng.IntN(24))
		for i := range b {
			b[i] = alphabet[rng.IntN(len(alphabet))]
		}
		s := string(b)
		if got, want := asciiWords(s), runeWords(s); !slices.Equal(got, want) {
			t.Fatalf("asciiWords(%q) = %q, runeWords = %q", s, got, want)
		}
	}
}
