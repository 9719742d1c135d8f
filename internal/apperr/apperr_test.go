package apperr

import (
	"errors"
	"fmt"
	"testing"
)

func TestCodeAndMessageOf(t *testing.T) {
	tests := []struct {
		name     string
		err      error
		wantCode string
		wantMsg  string
	}{
		{"nil", nil, "", "Something went wrong on our side. The problem has been logged."},
		{"plain error is internal", errors.New("disk on fire"), Internal, "Something went wrong on our side. The problem has been logged."},
		{"direct", NotFoundf("user %d not found", 7), NotFound, "user 7 not found"},
		{"wrapped", fmt.Errorf("loading: %w", Conflictf("email taken")), Conflict, "email taken"},
		{"invalid", Invalidf("bad"), Invalid, "bad"},
		{"unauthorized", Unauthorizedf("no"), Unauthorized, "no"},
		{"forbidden", Forbiddenf("no"), Forbidden, "no"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := CodeOf(tt.err); got != tt.wantCode {
				t.Errorf("CodeOf = %q, want %q", got, tt.wantCode)
			}
			if got := MessageOf(tt.err); got != tt.wantMsg {
				t.Errorf("MessageOf = %q, want %q", got, tt.wantMsg)
			}
		})
	}
}
