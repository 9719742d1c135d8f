package importer

import (
	"testing"

	"github.com/toolgate/toolgate/internal/openapi"
)

func TestNormalizeOrigin(t *testing.T) {
	tests := []struct {
		in, want string
		ok       bool
	}{
		{"https://api.example.com", "https://api.example.com", true},
		{"HTTPS://API.Example.com:8443/", "https://api.example.com:8443", true},
		{"http://127.0.0.1:8080", "http://127.0.0.1:8080", true},
		{"ftp://example.com", "", false},
		{"https://user:pw@example.com", "", false},
		{"https://example.com/v1", "", false},
		{"https://example.com?x=1", "", false},
		{"https://example.com#top", "", false},
		{"example.com", "", false},
		{"https://", "", false},
		{"https://example.com:", "", false},
		{"", "", false},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			got, err := NormalizeOrigin(tt.in)
			if (err == nil) != tt.ok || got != tt.want {
				t.Errorf("NormalizeOrigin(%q) = %q, %v; want %q, ok=%v", tt.in, got, err, tt.want, tt.ok)
			}
		})
	}
}

func TestSourceNamePattern(t *testing.T) {
	for name, ok := range map[string]bool{"petstore": true, "box-v2_1": true, "0": true, "Box": false, "-x": false, "": false,
		"a234567890123456789012345678901234567890": true, "a2345678901234567890123456789012345678901": false} {
		if SourceNamePattern.MatchString(name) != ok {
			t.Errorf("%q: want ok=%v", name, ok)
		}
	}
}

func TestDigest(t *testing.T) {
	a := []openapi.File{{Name: "a.yaml", Data: []byte("x")}, {Name: "b.yaml", Data: []byte("y")}}
	b := []openapi.File{a[1], a[0]}
	c := []openapi.File{{Name: "a.yaml", Data: []byte("xb.yaml")}, {Name: "", Data: []byte("y")}}
	if Digest(a) != Digest(b) {
		t.Error("order changes the digest")
	}
	if Digest(a) == Digest(c) {
		t.Error("concatenation collides")
	}
}
