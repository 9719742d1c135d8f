package openapi

import (
	"errors"
	"io"
	"log/slog"
	"maps"
	"path"
	"slices"
	"strings"
	"testing/fstest"

	"github.com/pb33f/libopenapi"
	"github.com/pb33f/libopenapi/datamodel"
)

// virtualRoot is where the file set appears to libopenapi. Files are served
// from memory under it; the library never touches the real file system
// because its LocalFS only reads from the fs.FS we give it.
const virtualRoot = "/toolgate-file-set"

// Load imports a file set: it checks size, text and every $ref, then parses
// the root document with libopenapi and turns its operations into tools.
// Bad input returns an *ImportError and no Document.
func Load(set FileSet, opts Options) (*Document, error) {
	raw, err := normalize(set, opts)
	if err != nil {
		return nil, err
	}
	files, rootName, doc, err := parseSet(raw, opts.Root)
	if err != nil {
		return nil, err
	}
	if err := checkShape(files[rootName]); err != nil {
		return nil, err
	}
	if err := newRefChecker(files).check(rootName); err != nil {
		return nil, err
	}
	b := newBuilder(rootName, opts)
	if files[rootName].specKey == "swagger" {
		err = b.fromV2(doc)
	} else {
		err = b.fromV3(doc)
	}
	if err != nil {
		return nil, err
	}
	return b.finish(), nil
}

// parseSet decodes the files of a set, picks the root and hands it to
// libopenapi. The root's node tree is always the library's own, so the $ref
// rewrites of the ref checker are what the library resolves.
//
// A single-file set is decoded once: the library's tree is checked in place
// of ours. It is the same tree (for JSON the library uses a faster decoder
// that reproduces yaml's tree exactly), so checks and messages do not
// change; only when the library refuses the bytes is the file decoded again,
// to name the problem with its line and column.
func parseSet(raw map[string][]byte, root string) (map[string]*parsedFile, string, libopenapi.Document, error) {
	if len(raw) == 1 {
		for name := range raw {
			if doc, err := newLibDocument(raw, name); err == nil {
				files, err := checkRoot(name, doc, root)
				return files, name, doc, err
			}
		}
	}
	files := make(map[string]*parsedFile, len(raw))
	// In name order, so that of several broken files the same one is named
	// every time.
	for _, name := range slices.Sorted(maps.Keys(raw)) {
		pf, err := parseFile(name, raw[name])
		if err != nil {
			return nil, "", nil, err
		}
		files[name] = pf
	}
	rootName, err := chooseRoot(files, root)
	if err != nil {
		return nil, "", nil, err
	}
	if err := checkVersion(files[rootName]); err != nil {
		return nil, "", nil, err
	}
	doc, err := newLibDocument(raw, rootName)
	if err != nil {
		return nil, "", nil, err
	}
	files[rootName].root = doc.GetSpecInfo().RootNode.Content[0]
	return files, rootName, doc, nil
}

// checkRoot runs the per-file checks of parseFile, chooseRoot and
// checkVersion on the tree libopenapi decoded for a single-file set.
func checkRoot(name string, doc libopenapi.Document, want string) (map[string]*parsedFile, error) {
	pf, err := fileFromNode(name, doc.GetSpecInfo().RootNode)
	if err != nil {
		return nil, err
	}
	files := map[string]*parsedFile{name: pf}
	if _, err := chooseRoot(files, want); err != nil {
		return nil, err
	}
	return files, checkVersion(pf)
}

// checkVersion accepts 2.0, 3.0.x and 3.1.x: the versions toolgate's
// executor and risk engine are specified for.
func checkVersion(pf *parsedFile) error {
	v := pf.version
	ok := (pf.specKey == "swagger" && v == "2.0") ||
		(pf.specKey == "openapi" && (strings.HasPrefix(v, "3.0.") || strings.HasPrefix(v, "3.1.") || v == "3.0" || v == "3.1"))
	if ok {
		return nil
	}
	line, col := 0, 0
	if n := mapGet(pf.root, pf.specKey); n != nil {
		line, col = n.Line, n.Column
	}
	return importErr(KindVersion, pf.name, line, col, "unsupported %s version %q (toolgate reads 2.0, 3.0.x and 3.1.x)", pf.specKey, v)
}

// newLibDocument hands the set to libopenapi with remote references off and
// an in-memory file system holding exactly the set.
func newLibDocument(raw map[string][]byte, rootName string) (libopenapi.Document, error) {
	cfg := &datamodel.DocumentConfiguration{
		AllowRemoteReferences: false,
		AllowFileReferences:   len(raw) > 1,
		ExcludeExtensionRefs:  true,
		SkipJSONConversion:    true,
		Logger:                slog.New(slog.NewTextHandler(io.Discard, nil)),
	}
	if len(raw) > 1 {
		mem := fstest.MapFS{}
		for name, data := range raw {
			mem[name] = &fstest.MapFile{Data: data}
		}
		cfg.LocalFS = mem
		// The root's refs are rewritten relative to the set's top (see
		// rootRelative), so the base path is the top even when the root
		// sits in a sub-directory.
		cfg.BasePath = virtualRoot
		cfg.SpecFilePath = path.Join(virtualRoot, rootName)
	}
	doc, err := libopenapi.NewDocumentWithConfiguration(raw[rootName], cfg)
	if err != nil {
		return nil, &ImportError{Kind: KindInvalid, File: rootName, Msg: firstLine(err), Err: err}
	}
	return doc, nil
}

// modelError reports the first problem libopenapi found while building the
// model; it joins many errors, one per line.
func modelError(file string, err error) error {
	var ie *ImportError
	if errors.As(err, &ie) {
		return ie
	}
	kind := KindInvalid
	msg := firstLine(err)
	if strings.Contains(msg, "circular") {
		kind = KindRefCycle
	} else if strings.Contains(msg, "reference") {
		kind = KindRefMissing
	}
	return &ImportError{Kind: kind, File: file, Msg: msg, Err: err}
}

func firstLine(err error) string {
	msg := strings.TrimSpace(err.Error())
	if i := strings.IndexByte(msg, '\n'); i >= 0 {
		msg = msg[:i]
	}
	return msg
}
