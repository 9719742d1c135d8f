package store

import (
	"context"
	"strings"
	"testing"
)

func TestRedactURL(t *testing.T) {
	tests := []struct{ in, want string }{
		{"postgres://tg:s3cret@db:5432/toolgate?sslmode=require", "postgres://tg:xxxxx@db:5432/toolgate?sslmode=require"},
		{"postgresql://tg@db/toolgate?password=s3cret&sslmode=disable", "postgresql://tg@db/toolgate?password=xxxxx&sslmode=disable"},
		{"postgres://db/toolgate", "postgres://db/toolgate"},
		{"postgres://tg:s3cret@db:bad port/x", "(unparsable database URL)"},
	}
	for _, tt := range tests {
		if got := RedactURL(tt.in); got != tt.want {
			t.Errorf("RedactURL(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

// TestOpenURLRefusesWithoutLeaking: OpenURL takes only PostgreSQL URLs, and
// no error it returns contains the password.
func TestOpenURLRefusesWithoutLeaking(t *testing.T) {
	for _, u := range []string{
		"mysql://tg:s3cret@127.0.0.1/x",
		"postgres://tg:s3cret@127.0.0.1:1/x?sslmode=disable&connect_timeout=2",
		"postgres://tg:s3cret@127.0.0.1:1/x?sslmode=nonsense",
		"postgres://tg:s3cret@[::1/x",
	} {
		db, err := OpenURL(context.Background(), u)
		if err == nil {
			_ = db.Close()
			t.Fatalf("OpenURL(%q) succeeded", u)
		}
		if strings.Contains(err.Error(), "s3cret") {
			t.Errorf("OpenURL(%q) error leaks the password: %v", u, err)
		}
	}
}
