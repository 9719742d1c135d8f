package cli

import (
	"errors"
	"testing"

	"github.com/toolgate/toolgate/internal/bundle"
)

func TestOneLineError(t *testing.T) {
	tests := []struct {
		name string
		err  error
		want string
	}{
		{"one line", errors.New("a  b"), "a b"},
		{"joined errors", errors.Join(errors.New("first"), errors.New("second")), "first; second"},
		{"quoted multi-line input", errors.New("bad value:\n  line one\n\n  line two\n"), "bad value:; line one; line two"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := (oneLineError{tt.err}).Error(); got != tt.want {
				t.Errorf("Error() = %q, want %q", got, tt.want)
			}
		})
	}
	wrapped := oneLineError{errors.Join(bundle.ErrExpired, errors.New("detail"))}
	if !errors.Is(wrapped, bundle.ErrExpired) {
		t.Error("errors.Is does not see the sentinel under oneLineError")
	}
}
