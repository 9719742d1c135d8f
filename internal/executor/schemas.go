package executor

import (
	"bytes"
	"crypto/sha256"
	"fmt"
	"sync"
	"sync/atomic"

	"github.com/santhosh-tekuri/jsonschema/v6"
)

// Schemas caches compiled input schemas by the SHA-256 digest of their
// bytes, across executors. Compiling a schema is the costly part of
// building an executor: the compiler validates the schema against its
// metaschema first, and the validator it builds is large. A runtime builds
// a new executor for every bundle, and most schemas do not change between
// two bundles, so a schema compiled (and metaschema-validated) once is
// never compiled again while it stays in use.
//
// A compiled *jsonschema.Schema is immutable and safe for concurrent use,
// so executors share them. After each successful New the cache keeps only
// the schemas of the newest executor (see keepOnly): memory stays flat
// across swaps instead of holding every schema ever seen. The runtime owns
// one Schemas and passes it in Options.Schemas to every New; builds with
// the same Schemas must not run concurrently (the runtime builds one
// executor at a time). The zero value is not usable; use NewSchemas.
type Schemas struct {
	mu       sync.Mutex
	byDigest map[[sha256.Size]byte]*jsonschema.Schema
	compiles atomic.Int64
}

// NewSchemas returns an empty cache.
func NewSchemas() *Schemas {
	return &Schemas{byDigest: map[[sha256.Size]byte]*jsonschema.Schema{}}
}

// Compiles is how many schemas this cache has compiled since it was made
// (cache hits do not count).
func (s *Schemas) Compiles() int64 { return s.compiles.Load() }

// Len is how many compiled schemas the cache holds.
func (s *Schemas) Len() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.byDigest)
}

// schemaDigest is the cache key of a schema's bytes (trimmed).
type schemaDigest = [sha256.Size]byte

// compile returns the compiled schema for raw, from the cache or compiled
// now; nil (and the zero digest) for an absent or empty schema, which
// accepts any arguments object. A schema that fails to compile is not
// cached: each bundle that carries it reports the same error.
func (s *Schemas) compile(raw []byte) (*jsonschema.Schema, schemaDigest, error) {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || string(raw) == "null" || string(raw) == "{}" {
		return nil, schemaDigest{}, nil
	}
	d := sha256.Sum256(raw)
	s.mu.Lock()
	c, ok := s.byDigest[d]
	s.mu.Unlock()
	if ok {
		return c, d, nil
	}
	c, err := compileSchema(raw)
	if err != nil {
		return nil, d, err
	}
	s.compiles.Add(1)
	s.mu.Lock()
	s.byDigest[d] = c
	s.mu.Unlock()
	return c, d, nil
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
