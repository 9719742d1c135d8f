package importer

import (
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"sort"

	"github.com/toolgate/toolgate/internal/openapi"
)

// Digest is the SHA-256 identity of an uploaded file set: every file's name
// and bytes, in name order and length-prefixed, so the same set always has
// the same digest and no two different sets share one by concatenation.
func Digest(files []openapi.File) string {
	sorted := append([]openapi.File(nil), files...)
	sort.Slice(sorted, func(i, j int) bool { return sorted[i].Name < sorted[j].Name })
	h := sha256.New()
	var n [8]byte
	for _, f := range sorted {
		for _, part := range [][]byte{[]byte(f.Name), f.Data} {
			binary.BigEndian.PutUint64(n[:], uint64(len(part)))
			h.Write(n[:])
			h.Write(part)
		}
	}
	return hex.EncodeToString(h.Sum(nil))
}
