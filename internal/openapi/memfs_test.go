package openapi

import (
	"testing"
	"testing/fstest"
)

// TestMemFSIsAFileSystem: the library walks and opens the in-memory set as
// it would a directory on disk (fstest.TestFS checks Open, ReadDir, Stat
// and the implied directories).
func TestMemFSIsAFileSystem(t *testing.T) {
	m := memFS{"openapi.yaml": []byte("openapi: 3.1.0\n"), "schemas/pet.yaml": []byte("type: object\n"),
		"schemas/deep/tag.yaml": []byte("type: string\n")}
	if err := fstest.TestFS(m, "openapi.yaml", "schemas/pet.yaml", "schemas/deep/tag.yaml"); err != nil {
		t.Fatal(err)
	}
}
