package executor

import (
	"bytes"
	"crypto/sha256"
	"fmt"
	"sync"
	"sync/atomic"

	"github.com/santhosh-tekuri/jsonschema/v6"
)

// Schemas caches input-schema validators by the SHA-256 digest of the
// schema bytes, across executors. Checking a schema is the costly part of
// building an executor: the compiler validates it against its metaschema
// first. A runtime builds a new executor for every bundle, and most schemas
// do not change between two bundles, so a schema checked once is never
// checked again while it stays in use.
//
// The compiled validator itself is large (several times the schema's JSON)
// and most tools of a big bundle are never called, so the cache keeps a
// schema's bytes once it has checked them, and compiles the validator it
// calls with on the tool's first call (once, shared by every executor and
// every tool with those bytes). Memory then grows with the tools agents
// use, not with the size of the bundle.
//
// A validator is immutable and safe for concurrent use, so executors share
// them. After each New the cache keeps only the schemas of the newest
// executor (see keepOnly): memory stays flat across swaps instead of
// holding every schema ever seen. The runtime owns one Schemas and passes
// it in Options.Schemas to every New; builds with the same Schemas must not
// run concurrently (the runtime builds one executor at a time). The zero
// value is not usable; use NewSchemas.
type Schemas struct {
	mu       sync.Mutex
	byDigest map[schemaDigest]*validator
	checks   atomic.Int64
}

// validator is one checked input schema and, from the first call on, its
// compiled form.
type validator struct {
	raw  []byte
	once sync.Once
	sch  *jsonschema.Schema
	err  error
}

// schema returns the compiled validator, compiling it on first use. The
// bytes compiled once already, when they were checked, so an error here
// means a bug; the caller refuses the call rather than skip validation.
func (v *validator) schema() (*jsonschema.Schema, error) {
	v.once.Do(func() { v.sch, v.err = compileSchema(v.raw) })
	return v.sch, v.err
}

// NewSchemas returns an empty cache.
func NewSchemas() *Schemas {
	return &Schemas{byDigest: map[schemaDigest]*validator{}}
}

// Compiles is how many schemas this cache has checked (compiled with their
// metaschema validation) since it was made; cache hits do not count, nor do
// the compiles a first call makes.
func (s *Schemas) Compiles() int64 { return s.checks.Load() }

// Len is how many schemas the cache holds.
func (s *Schemas) Len() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.byDigest)
}

// schemaDigest is the cache key of a schema's bytes (trimmed).
type schemaDigest = [sha256.Size]byte

// compile returns the validator for raw, from the cache or checked now; nil
// (and the zero digest) for an absent or empty schema, which accepts any
// arguments object. A schema that fails to compile is not cached: each
// bundle that carries it reports the same error.
func (s *Schemas) compile(raw []byte) (*validator, schemaDigest, error) {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || string(raw) == "null" || string(raw) == "{}" {
		return nil, schemaDigest{}, nil
	}
	d := sha256.Sum256(raw)
	s.mu.Lock()
	v, ok := s.byDigest[d]
	s.mu.Unlock()
	if ok {
		return v, d, nil
	}
	if _, err := compileSchema(raw); err != nil {
		return nil, d, err
	}
	s.checks.Add(1)
	v = &validator{raw: raw}
	s.mu.Lock()
	s.byDigest[d] = v
	s.mu.Unlock()
	return v, d, nil
}

// keepOnly drops every schema whose digest is not in used: after a
// successful New, the cache holds exactly the newest executor's schemas
// (executors still in flight keep theirs through their own pointers).
func (s *Schemas) keepOnly(used map[schemaDigest]struct{}) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for d := range s.byDigest {
		if _, ok := used[d]; !ok {
			delete(s.byDigest, d)
		}
	}
}

// schemaLocation is where every input schema is registered in its own
// compiler. It names no tool: one compiled schema may serve several tools.
// Loading external references is disabled, so nothing is ever fetched from
// it or from anywhere else.
const schemaLocation = "https://toolgate.invalid/input-schema.json"

// compileSchema compiles one input schema, with its metaschema validation.
// Loading of external references is disabled: a bundle is self-contained,
// and a schema must not make the runtime read files or fetch URLs.
func compileSchema(raw []byte) (*jsonschema.Schema, error) {
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(raw))
	if err != nil {
		return nil, fmt.Errorf("input schema: %w", err)
	}
	c := jsonschema.NewCompiler()
	c.UseLoader(jsonschema.SchemeURLLoader{})
	if err := c.AddResource(schemaLocation, doc); err != nil {
		return nil, fmt.Errorf("input schema: %w", err)
	}
	sch, err := c.Compile(schemaLocation)
	if err != nil {
		return nil, fmt.Errorf("input schema: %w", err)
	}
	return sch, nil
}
