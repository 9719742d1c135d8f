package views

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// TestEveryPageTested: each page component (templ XPage) is rendered by
// some test in this package, so a new page comes with its selector test.
func TestEveryPageTested(t *testing.T) {
	templs, err := filepath.Glob("*.templ")
	if err != nil {
		t.Fatal(err)
	}
	tests, err := filepath.Glob("*_test.go")
	if err != nil {
		t.Fatal(err)
	}
	var src strings.Builder
	for _, f := range tests {
		if f == "coverage_test.go" {
			continue
		}
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		src.Write(b)
	}
	pageRE := regexp.MustCompile(`(?m)^templ ([A-Z]\w*Page)\(`)
	n := 0
	for _, f := range templs {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range pageRE.FindAllStringSubmatch(string(b), -1) {
			n++
			if !strings.Contains(src.String(), m[1]+"(") {
				t.Errorf("%s: page %s is rendered by no test", f, m[1])
			}
		}
	}
	if n < 29 {
		t.Errorf("found %d page components, want at least 29: is the pattern still right?", n)
	}
}
