package openapi

import (
	"errors"
	"io/fs"
	"maps"
	"regexp"
	"slices"
	"strings"
)

// fileSource is where the files of an import come from: the bytes of an
// in-memory set (an upload, a zip, a directory read up front), or, for a
// root file given by path, its directory read on demand. Only the files the
// root reaches through $refs are ever decoded, so a file nothing references
// is ignored even when it is broken or binary.
type fileSource struct {
	raw map[string][]byte // files read so far, by set name
	// fsys is the root file's directory, read lazily; nil for in-memory
	// sets. An os.Root's FS never leaves the directory, symlinks included.
	fsys  fs.FS
	limit int64
	total int64
	// parsed holds what was decoded (or failed to decode), by name.
	parsed map[string]*parsedFile
}

func memorySource(raw map[string][]byte, limit int64) *fileSource {
	var total int64
	for _, b := range raw {
		total += int64(len(b))
	}
	return &fileSource{raw: raw, limit: limit, total: total, parsed: map[string]*parsedFile{}}
}

// bytes returns a member of the set, reading it from the directory the
// first time; ok is false when the set has no such file.
func (s *fileSource) bytes(name string) ([]byte, bool, error) {
	if b, ok := s.raw[name]; ok {
		return b, true, nil
	}
	if s.fsys == nil || !IsSpecFile(name) {
		return nil, false, nil
	}
	f, err := s.fsys.Open(name)
	if err != nil {
		// A symlink out of the directory is refused by os.Root ("path
		// escapes from parent"): for the set, that file is not in it.
		if errors.Is(err, fs.ErrNotExist) || errors.Is(err, fs.ErrInvalid) || strings.Contains(err.Error(), "escapes from parent") {
			return nil, false, nil
		}
		return nil, false, &ImportError{Kind: KindFileSet, File: name, Msg: "cannot read: " + err.Error(), Err: err}
	}
	defer f.Close()
	if st, err := f.Stat(); err != nil || st.IsDir() {
		return nil, false, nil
	}
	b, err := readMember(f, name, s.limit, &s.total)
	if err != nil {
		return nil, false, err
	}
	if err := checkText(name, b); err != nil {
		return nil, false, err
	}
	s.raw[name] = b
	return b, true, nil
}

// file decodes a member once; ok is false when the set has no such file.
// A file that is referenced but does not decode is an error at its own
// line and column.
func (s *fileSource) file(name string) (*parsedFile, bool, error) {
	if pf, ok := s.parsed[name]; ok {
		return pf, true, nil
	}
	data, ok, err := s.bytes(name)
	if err != nil || !ok {
		return nil, ok, err
	}
	if err := checkText(name, data); err != nil {
		return nil, true, err
	}
	pf, err := parseFile(name, data)
	if err != nil {
		return nil, true, err
	}
	if pf.fixed != nil {
		s.raw[name] = pf.fixed
	}
	s.parsed[name] = pf
	return pf, true, nil
}

// rootSniff matches a top-level openapi or swagger key in YAML or JSON
// text; it only preselects the files worth decoding to find the root.
var rootSniff = regexp.MustCompile(`(?m)^\s*\{?\s*["']?(?:openapi|swagger)["']?\s*:`)

// findRoot picks the root of an in-memory set: opts.Root, else the one file
// with a top-level openapi/swagger key. Files that cannot be roots are not
// decoded; of the candidates that do not decode, the first (by name) is
// reported only when no candidate is left.
func (s *fileSource) findRoot(want string) (string, error) {
	names := slices.Sorted(maps.Keys(s.raw))
	if want != "" {
		return chooseRoot(names, s, want)
	}
	var roots []string
	var firstErr error
	for _, name := range names {
		if !rootSniff.Match(s.raw[name]) {
			continue
		}
		pf, _, err := s.file(name)
		if err != nil {
			if firstErr == nil {
				firstErr = err
			}
			continue
		}
		if pf.specKey != "" {
			roots = append(roots, name)
		}
	}
	if len(roots) == 0 && firstErr != nil {
		return "", firstErr
	}
	return chooseRoot(names, s, want, roots...)
}
