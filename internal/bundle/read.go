package bundle

import (
	"bytes"
	"crypto/sha256"
	"fmt"
	"runtime"
	"strings"
	"sync"
)

// Memo remembers the tools of the last bundle Verify accepted with it, by
// the SHA-256 of each tool's canonical bytes. Verifying the next bundle
// with the same Memo takes a tool whose bytes are identical, and whose
// source has the same origin and base path, from the memo instead of
// decoding, re-encoding and validating it again (digest included): those
// checks depend on nothing else, and they passed for exactly these bytes.
// A one-tool change in a large bundle then costs the signature, one pass
// over the payload and one hash of it, plus the changed tool.
//
// A tool taken from the memo shares its lists and input schema with the
// earlier bundle's: Verify's bundles are read-only. The zero Memo is empty
// and ready; a Memo is not safe for concurrent use.
type Memo struct {
	tools map[[sha256.Size]byte]memoTool
	// schema is the remembered bundle's: a tool's checks depend on the
	// major (v1 refuses groups and conditions), so only a bundle of the
	// same schema takes tools from the memo.
	schema string
}

// memoTool is one verified tool and what its checks depended on outside
// its own bytes: its source's origin and base path (the digest covers
// them).
type memoTool struct {
	tool             *Tool
	origin, basePath string
}

// lookup returns the remembered tool with these bytes, if its source is
// unchanged in sources.
func (m *Memo) lookup(key [sha256.Size]byte, schema string, sources map[string]*Source) (*Tool, bool) {
	if m == nil || m.schema != schema {
		return nil, false
	}
	mt, ok := m.tools[key]
	if !ok {
		return nil, false
	}
	src := sources[mt.tool.Source]
	if src == nil || src.Origin != mt.origin || src.BasePath != mt.basePath {
		return nil, false
	}
	return mt.tool, true
}

// remember replaces the memo's contents with b's tools.
func (m *Memo) remember(b *Bundle, keys [][sha256.Size]byte) {
	if m == nil {
		return
	}
	sources := sourcesByName(b)
	m.schema = b.Schema
	m.tools = make(map[[sha256.Size]byte]memoTool, len(keys))
	for i, key := range keys {
		t := &b.Tools[i]
		src := sources[t.Source] // present: the bundle validated
		m.tools[key] = memoTool{tool: t, origin: src.Origin, basePath: src.BasePath}
	}
}

func sourcesByName(b *Bundle) map[string]*Source {
	out := make(map[string]*Source, len(b.Sources))
	for i := range b.Sources {
		out[b.Sources[i].Name] = &b.Sources[i]
	}
	return out
}

// readResult is a decoded payload: the bundle, which tools were taken from
// the memo (validated before), which tools' digests the read already
// proved (digested), and each tool's key for the next memo (nil without a
// memo).
type readResult struct {
	bundle   *Bundle
	known    []bool
	digested []bool
	keys     [][sha256.Size]byte
}

// readPayload decodes a signed payload and proves it canonical, part by
// part: the bundle without its tools, then each tool on its own bytes. A
// tool found in memo is taken from it. Members of a later compatible
// revision are ignored (extras.go). A schema outside schemas (nil:
// KnownSchemas) is refused first. Validation is left to the caller.
func readPayload(payload []byte, memo *Memo, schemas []string) (*readResult, error) {
	if err := checkSchema(payload, schemas); err != nil {
		return nil, err
	}
	skeleton, tools, err := splitTools(payload)
	if err != nil {
		return nil, fmt.Errorf("decoding payload: %w", err)
	}
	b, err := readSkeleton(skeleton)
	if err != nil {
		return nil, err
	}
	res := &readResult{bundle: b, known: make([]bool, len(tools)), digested: make([]bool, len(tools))}
	if memo != nil {
		res.keys = make([][sha256.Size]byte, len(tools))
	}
	sources := sourcesByName(b)
	b.Tools = make([]Tool, len(tools))
	if err := readTools(tools, res, memo, sources); err != nil {
		return nil, err
	}
	for i := 1; i < len(b.Tools); i++ {
		if strings.Compare(b.Tools[i-1].Name, b.Tools[i].Name) > 0 {
			return nil, errNotCanonical
		}
	}
	return res, nil
}

// toolsPerWorker is the fewest tools worth a goroutine of their own.
const toolsPerWorker = 256

// readTools reads each tool's bytes into res.bundle.Tools: from memo when
// it holds them, else decoded, proven canonical and its digest checked.
// The tools are independent of each other once the signature is verified,
// so a large bundle is read by up to GOMAXPROCS workers, each a contiguous
// run of tools; the error reported is the one of the lowest tool index, as
// a reading in order would report it.
func readTools(tools [][]byte, res *readResult, memo *Memo, sources map[string]*Source) error {
	b := res.bundle
	readRun := func(lo, hi int) error {
		var r toolReader
		for i := lo; i < hi; i++ {
			raw := tools[i]
			if memo != nil {
				res.keys[i] = sha256.Sum256(raw)
				if t, ok := memo.lookup(res.keys[i], b.Schema, sources); ok {
					b.Tools[i], res.known[i] = *t, true
					continue
				}
			}
			if err := r.read(raw, &b.Tools[i]); err != nil {
				return fmt.Errorf("tool %d: %w", i, err)
			}
			res.digested[i] = r.digestMatches(&b.Tools[i], sources[b.Tools[i].Source])
		}
		return nil
	}
	workers := min(runtime.GOMAXPROCS(0), max(1, len(tools)/toolsPerWorker))
	if workers == 1 {
		return readRun(0, len(tools))
	}
	errs := make([]error, workers)
	var wg sync.WaitGroup
	for w := range workers {
		wg.Go(func() { errs[w] = readRun(w*len(tools)/workers, (w+1)*len(tools)/workers) })
	}
	wg.Wait()
	for _, err := range errs { // runs in index order: the first failure wins
		if err != nil {
			return err
		}
	}
	return nil
}

// splitTools returns the payload with its tools list emptied, and the
// bytes of each tool. A payload whose tools member is not an array is
// returned whole, for the decoder to refuse.
func splitTools(payload []byte) ([]byte, [][]byte, error) {
	var tools [][]byte
	from, to := -1, -1
	s := scanner{src: payload}
	err := s.object(func(name []byte) error {
		if string(name) != "tools" || !s.at('[') {
			return s.skipValue()
		}
		if from >= 0 {
			return s.errorf("tools appears twice")
		}
		// Canonical form has no whitespace around the tools, and no other
		// check sees the bytes between them: "[" tool "," tool ... "]".
		from = s.i
		end := from + 1
		err := s.array(func() error {
			if len(tools) > 0 {
				end++ // the comma
			}
			if s.i != end {
				return errNotCanonical
			}
			err := s.skipValue()
			tools = append(tools, payload[end:s.i])
			end = s.i
			return err
		})
		if to = s.i; err == nil && to != end+1 {
			return errNotCanonical
		}
		return err
	})
	if err != nil {
		return nil, nil, err
	}
	if s.space(); s.i != len(payload) {
		return nil, nil, s.errorf("data after the bundle object")
	}
	if from < 0 {
		return payload, nil, nil
	}
	skeleton := make([]byte, 0, from+2+len(payload)-to)
	skeleton = append(append(append(skeleton, payload[:from]...), "[]"...), payload[to:]...)
	return skeleton, tools, nil
}

// readSkeleton decodes the payload without its tools and proves it
// canonical.
func readSkeleton(skeleton []byte) (*Bundle, error) {
	w, known, err := decodeKnown[wireBundle](skeleton, bundleShape())
	if err != nil {
		return nil, fmt.Errorf("decoding payload: %w", err)
	}
	b, err := fromWire(&w)
	if err != nil {
		return nil, err
	}
	again, err := encodeBundle(normalize(b))
	if err != nil {
		return nil, fmt.Errorf("canonical bundle: %w", err)
	}
	if !bytes.Equal(again, known) {
		return nil, errNotCanonical
	}
	return b, nil
}

// normalizeWireTool puts a decoded tool in the normal form Canonical
// encodes (normalizeTool, on the wire form: converting the normalized
// domain tool back would allocate every list again for nothing).
func normalizeWireTool(w *wireTool) {
	w.Params = nonNil(w.Params)
	w.Reasons = nonNil(w.Reasons)
	for i := range w.Approvals {
		w.Approvals[i].ApprovedAt = wholeSecondUTC(w.Approvals[i].ApprovedAt)
	}
}

// toolReader decodes tools one by one, reusing its encoders.
type toolReader struct {
	enc bundleEncoder
	// def writes definition objects (digestMatches).
	def bundleEncoder
}

// read decodes one tool's bytes into t and proves them canonical.
func (r *toolReader) read(raw []byte, t *Tool) error {
	w, known, err := decodeKnown[wireTool](raw, toolShape())
	if err != nil {
		return fmt.Errorf("decoding: %w", err)
	}
	if err := toolFromWire(&w, t); err != nil {
		return fmt.Errorf("%q: %w", w.Name, err)
	}
	*t = normalizeTool(*t)
	normalizeWireTool(&w) // as normalizeTool, on the decoded copy
	r.enc.dst = r.enc.dst[:0]
	if err := r.enc.tool(&w); err != nil {
		return fmt.Errorf("canonical bundle: %w", err)
	}
	if !bytes.Equal(r.enc.dst, known) {
		return fmt.Errorf("%q: %w", t.Name, errNotCanonical)
	}
	return nil
}

// digestMatches reports whether t's digest is the definition digest of t
// under src, for the tool read has just accepted: the input schema is not
// canonicalized a second time, its canonical form is taken from the
// tool's re-encoding (r.enc, where read's comparison proved it equal to
// the signed bytes). false (no source, or a mismatch) leaves the digest to
// validateTool, which reports it.
func (r *toolReader) digestMatches(t *Tool, src *Source) bool {
	if src == nil || len(t.InputSchema) == 0 {
		return false
	}
	r.def.dst, r.def.canonRaw = r.def.dst[:0], r.enc.dst[r.enc.rawFrom:r.enc.rawTo]
	err := r.def.definition(t, src)
	r.def.canonRaw = nil
	if err != nil {
		return false
	}
	sum := sha256.Sum256(r.def.dst)
	return len(t.Digest) == len(DigestPrefix)+2*sha256.Size && t.Digest[:len(DigestPrefix)] == DigestPrefix &&
		hexEqual(t.Digest[len(DigestPrefix):], sum[:])
}

// hexEqual reports whether s is the lower-case hex form of sum.
func hexEqual(s string, sum []byte) bool {
	const digits = "0123456789abcdef"
	for i, c := range sum {
		if s[2*i] != digits[c>>4] || s[2*i+1] != digits[c&0x0f] {
			return false
		}
	}
	return true
}
