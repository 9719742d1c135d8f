package openapi

import "testing"

// TestMultiFileErrorsAreDeterministic loads sets with a problem in more than
// one file many times: the error named must be the same every time, not the
// one Go's randomised map order happens to reach first.
func TestMultiFileErrorsAreDeterministic(t *testing.T) {
	root := File{"api.yaml", []byte(`openapi: 3.0.3
info: {title: t, version: "1"}
paths:
  /a: {$ref: "a.yaml"}
  /b: {$ref: "b.yaml"}
`)}
	cases := []struct {
		name  string
		files []File
	}{
		{"two files with a cyclic $ref", []File{root,
			{"a.yaml", []byte("get: {responses: {'200': {$ref: 'common.yaml#/x'}}}\n")},
			{"b.yaml", []byte("get: {responses: {'200': {$ref: 'common.yaml#/y'}}}\n")},
			{"common.yaml", []byte("x: {$ref: '#/x'}\ny: {$ref: '#/y'}\n")}}},
		{"two files that do not parse", []File{root,
			{"a.yaml", []byte("get: [\n")},
			{"b.yaml", []byte("get: {\n")}}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := LoadFiles(c.files, Options{})
			if err == nil {
				t.Fatal("imported a broken set")
			}
			for range 30 {
				if _, again := LoadFiles(c.files, Options{}); again == nil || again.Error() != err.Error() {
					t.Fatalf("first error %q, then %q", err, again)
				}
			}
		})
	}
}
