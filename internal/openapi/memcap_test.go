package openapi

import (
	"errors"
	"runtime/debug"
	"strings"
	"testing"
)

// memDoc is a small valid document padded to about size bytes with a
// description.
func memDoc(size int) []byte {
	head := `{"openapi":"3.0.3","info":{"title":"m","version":"1","description":"`
	tail := `"},"paths":{"/a":{"get":{"operationId":"getA","responses":{"200":{"description":"ok"}}}}}}`
	return []byte(head + strings.Repeat("x", max(size-len(head)-len(tail), 0)) + tail)
}

// TestImportRefusedOverTheMemoryBudget: an import that would need more
// heap than the budget (30× a single file + 50 MiB) is refused before it
// is decoded, saying what it needs; the same document within the budget,
// or with no budget, imports. Without an explicit budget the process's Go
// memory limit (GOMEMLIMIT) is the budget.
func TestImportRefusedOverTheMemoryBudget(t *testing.T) {
	doc := memDoc(1 << 20) // needs about 80 MiB
	_, err := LoadBytes("big.json", doc, Options{MemoryBudget: 64 << 20})
	var ie *ImportError
	if !errors.As(err, &ie) || ie.Kind != KindTooLarge || !strings.Contains(err.Error(), "needs about 80 MiB") {
		t.Fatalf("over the budget: %v, want a too_large refusal saying it needs about 80 MiB", err)
	}
	for name, opts := range map[string]Options{"within the budget": {MemoryBudget: 128 << 20}, "no budget": {MemoryBudget: -1}} {
		if d, err := LoadBytes("big.json", doc, opts); err != nil || len(d.Operations) != 1 {
			t.Errorf("%s: %v", name, err)
		}
	}
	defer debug.SetMemoryLimit(debug.SetMemoryLimit(64 << 20))
	if _, err := LoadBytes("big.json", doc, Options{}); !errors.As(err, &ie) || ie.Kind != KindTooLarge {
		t.Errorf("under GOMEMLIMIT 64 MiB: %v, want a too_large refusal", err)
	}
}
