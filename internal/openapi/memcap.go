package openapi

import (
	"math"
	"runtime/debug"
)

// Import memory (README "Import memory"): what an import's heap peaks at,
// by the document's bytes, as `make bench-import` measures it. A single
// file is built in batches and stays under 30× its bytes plus a fixed
// 50 MiB; a multi-file set is built whole, about 150× its bytes. The cap
// uses the same figures, so an import that would not fit in the memory
// the console may use is refused before anything is decoded.
const (
	singleFileHeapPerByte = 30
	fileSetHeapPerByte    = 150
	importHeapBase        = 50 << 20
)

// memoryBudget is Options.MemoryBudget, or the process's Go memory limit
// (GOMEMLIMIT, debug.SetMemoryLimit) when one is set; 0 means no cap.
func (o Options) memoryBudget() int64 {
	if o.MemoryBudget != 0 {
		return max(o.MemoryBudget, 0)
	}
	if limit := debug.SetMemoryLimit(-1); limit != math.MaxInt64 {
		return limit
	}
	return 0
}

// checkMemory refuses a set whose import would need more heap than the
// budget allows, with what it would need.
func checkMemory(src *fileSource, opts Options) error {
	budget := opts.memoryBudget()
	if budget <= 0 {
		return nil
	}
	var size int64
	name := "the file set"
	for n, data := range src.raw {
		size += int64(len(data))
		name = n
	}
	perByte := int64(singleFileHeapPerByte)
	if len(src.raw) > 1 {
		perByte, name = fileSetHeapPerByte, "the file set"
	}
	need := size*perByte + importHeapBase
	if need <= budget {
		return nil
	}
	return importErr(KindTooLarge, name, 0, 0,
		"importing it needs about %d MiB of memory (%d× its %d bytes + 50 MiB), over the %d MiB this console may use (GOMEMLIMIT): refused",
		need>>20, perByte, size, budget>>20)
}
