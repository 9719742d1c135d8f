package openapi

import (
	"errors"
	"io"
	"log/slog"
	"path"
	"regexp"
	"strconv"
	"strings"

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
	return loadSource(memorySource(raw, opts.maxBytes()), opts)
}

// loadSource imports from a file source whose root is found or given.
func loadSource(src *fileSource, opts Options) (*Document, error) {
	return loadSourceFS(src, opts, false)
}

// loadSourceFS is loadSource; withFS gives the library a file system even
// when the root looked self-contained.
func loadSourceFS(src *fileSource, opts Options, withFS bool) (*Document, error) {
	if err := checkMemory(src, opts); err != nil {
		return nil, err
	}
	if len(src.raw) == 1 {
		for name, data := range src.raw {
			if err := precountOperations(name, data, opts.maxOperations()); err != nil {
				return nil, err
			}
		}
	}
	rootName, doc, mem, err := parseSet(src, opts.Root, withFS)
	if err != nil {
		return nil, err
	}
	root := src.parsed[rootName]
	if err := checkShape(root); err != nil {
		return nil, err
	}
	rc := newRefChecker(src, rootName)
	if err := rc.check(); err != nil {
		return nil, err
	}
	if err := countOperations(rc, opts); err != nil {
		return nil, err
	}
	// The library reads the other files only now, when the model is
	// built: it gets exactly the files the root reaches, with the
	// checker's rewrites.
	others := rc.libraryFiles()
	if len(others) > 0 && mem == nil {
		// The root reached another file through a $ref externalRef did
		// not see: start again from the bytes, with a file system.
		clear(src.parsed)
		return loadSourceFS(src, opts, true)
	}
	for name, data := range others {
		mem[name] = data
	}
	b := newBuilder(rootName, opts)
	// A set of several files is built whole: each batch would index every
	// other file again.
	if len(others) == 0 {
		b.rootData, b.batchOps = src.raw[rootName], opts.batchOps()
	}
	b.doc.Warnings = append(b.doc.Warnings, rc.warnings...)
	b.doc.Files = append([]string(nil), rc.order...)
	if root.specKey == "swagger" {
		err = b.fromV2(doc)
	} else {
		err = b.fromV3(doc)
	}
	if err != nil {
		return nil, err
	}
	if b.err != nil {
		return nil, b.err
	}
	return b.finish(), nil
}

// parseSet picks the root and hands it to libopenapi. The root's node tree
// is always the library's own, so the rewrites of the ref checker are what
// the library resolves.
//
// The root is decoded once when it can be: the library's tree is checked in
// place of ours. It is the same tree (for JSON the library uses a faster
// decoder that reproduces yaml's tree exactly), so checks and messages do
// not change; only when the library refuses the bytes is the file decoded
// again, to name the problem with its line and column.
func parseSet(src *fileSource, want string, withFS bool) (string, libopenapi.Document, memFS, error) {
	if len(src.raw) == 1 {
		for name, data := range src.raw {
			if err := checkText(name, data); err != nil {
				return "", nil, nil, err
			}
			if doc, mem, err := newLibDocument(data, name, withFS || (src.fsys != nil && externalRef.Match(data))); err == nil {
				pf, err := fileFromNode(name, doc.GetSpecInfo().RootNode)
				if err != nil {
					return "", nil, nil, err
				}
				src.parsed[name] = pf
				var roots []string
				if pf.specKey != "" {
					roots = []string{name}
				}
				if _, err := chooseRoot([]string{name}, src, want, roots...); err != nil {
					return "", nil, nil, err
				}
				return name, doc, mem, checkVersion(pf)
			}
		}
	}
	rootName, err := src.findRoot(want)
	if err != nil {
		return "", nil, nil, err
	}
	if err := checkVersion(src.parsed[rootName]); err != nil {
		return "", nil, nil, err
	}
	doc, mem, err := newLibDocument(src.raw[rootName], rootName, true)
	if err != nil {
		return "", nil, nil, err
	}
	src.parsed[rootName].root = doc.GetSpecInfo().RootNode.Content[0]
	return rootName, doc, mem, nil
}

// externalRef matches a $ref whose value does not start with "#": only a
// root file holding one can reach another file of its directory.
var externalRef = regexp.MustCompile(`\$ref["']?\s*:\s*["']?[^#"'\s]`)

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

// newLibDocument hands the root to libopenapi with remote references off
// and, when files is set, an in-memory file system that loadSource fills,
// after the ref check, with exactly the files the root reaches (nil when
// files is not set).
//
// Line separators are read as YAML 1.2 reads them: as content
// (standInSeparators).
//
// A set that can only ever be one file (one in-memory file) gets no file
// system: the library's rolodex then skips per-file indexing, a tenth of
// the allocations of a large single-file import.
func newLibDocument(data []byte, rootName string, files bool) (libopenapi.Document, memFS, error) {
	var mem memFS
	cfg := &datamodel.DocumentConfiguration{
		AllowRemoteReferences: false,
		AllowFileReferences:   files,
		// The ref checker has already made every $ref under an extension
		// data (neutralize); the library's own exclusion would also drop
		// the refs under any name that starts with "x-" (a header called
		// x-rate, a property x-id), which it then reports as missing.
		ExcludeExtensionRefs: false,
		SkipJSONConversion:   true,
		Logger:               slog.New(slog.NewTextHandler(io.Discard, nil)),
	}
	if files {
		mem = memFS{}
		cfg.LocalFS = mem
		// The root's refs are rewritten relative to the set's top (see
		// rootRelative), so the base path is the top even when the root
		// sits in a sub-directory.
		cfg.BasePath = virtualRoot
		cfg.SpecFilePath = path.Join(virtualRoot, rootName)
	}
	data, back := standInSeparators(data)
	doc, err := libopenapi.NewDocumentWithConfiguration(data, cfg)
	if err != nil {
		return nil, nil, &ImportError{Kind: KindInvalid, File: rootName, Msg: firstLine(err), Err: err}
	}
	restoreSeparators(doc.GetSpecInfo().RootNode, back)
	return doc, mem, nil
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
	line, col, msg := libraryPosition(msg)
	return &ImportError{Kind: kind, File: file, Line: line, Col: col, Msg: msg, Err: err}
}

// libPosRe finds the position libopenapi writes into its messages in one
// of its forms: "at line 3, column 7", "line 3, col 7", "[3:7]".
var libPosRe = regexp.MustCompile(`,?\s*(?:at\s+)?(?:line (\d+), col(?:umn)? (\d+)|\[(\d+):(\d+)\])`)

// libraryPosition moves a position written inside a library message to
// the front, so every error reads "file:line:col: message".
func libraryPosition(msg string) (int, int, string) {
	m := libPosRe.FindStringSubmatchIndex(msg)
	if m == nil {
		return 0, 0, msg
	}
	g := 2 // "line L, col C"
	if m[2] < 0 {
		g = 6 // "[L:C]"
	}
	l, c := msg[m[g]:m[g+1]], msg[m[g+2]:m[g+3]]
	line, _ := strconv.Atoi(l)
	col, _ := strconv.Atoi(c)
	return line, col, strings.TrimSpace(msg[:m[0]] + msg[m[1]:])
}

func firstLine(err error) string {
	msg := strings.TrimSpace(err.Error())
	if i := strings.IndexByte(msg, '\n'); i >= 0 {
		msg = msg[:i]
	}
	return msg
}
