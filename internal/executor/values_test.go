package executor

import (
	"strings"
	"testing"
	"unicode/utf8"
)

func TestOneLine(t *testing.T) {
	tests := []struct {
		name, in, want string
	}{
		{"short, whitespace collapsed", "a\n\tb  c", "a b c"},
		{"exactly the limit", strings.Repeat("x", maxMessage), strings.Repeat("x", maxMessage)},
		{"ASCII cut", strings.Repeat("x", maxMessage+1), strings.Repeat("x", maxMessage) + "…"},
		// "x" then two-byte runes: byte 500 falls inside a rune, so the
		// cut steps back to the rune's start.
		{"cut inside a rune", "x" + strings.Repeat("é", maxMessage), "x" + strings.Repeat("é", (maxMessage-1)/2) + "…"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := oneLine(tt.in)
			if got != tt.want {
				t.Errorf("oneLine = %q (%d bytes), want %q (%d bytes)", got, len(got), tt.want, len(tt.want))
			}
			if !utf8.ValidString(got) {
				t.Errorf("oneLine returned invalid UTF-8: %q", got)
			}
		})
	}
}
