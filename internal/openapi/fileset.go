package openapi

import (
	"archive/zip"
	"bytes"
	"errors"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"strings"
	"unicode/utf8"
)

// DefaultMaxBytes bounds a whole file set when Options.MaxBytes is zero.
const DefaultMaxBytes int64 = 25 << 20

// File is one member of a file set: a slash-separated name relative to the
// set (e.g. "spec/paths/users.json") and its bytes.
type File struct {
	Name string
	Data []byte
}

// FileSet is every file an import may read; $refs resolve only inside it.
type FileSet struct {
	Files []File
}

// Options tunes an import. The zero value is ready to use.
type Options struct {
	// MaxBytes bounds the total size of the set; 0 means DefaultMaxBytes.
	MaxBytes int64
	// Root names the root document inside a multi-file set when more than
	// one file carries a top-level openapi/swagger key.
	Root string
	// MaxSchemaBytes bounds one operation's input schema; 0 means
	// DefaultMaxSchemaBytes.
	MaxSchemaBytes int
	// MaxOperations bounds the operations of one import; 0 means
	// DefaultMaxOperations.
	MaxOperations int
	// MaxTotalSchemaBytes bounds the input schemas of all operations of
	// one import together, as expanded; 0 means DefaultMaxTotalSchemaBytes.
	MaxTotalSchemaBytes int64
	// MemoryBudget bounds the heap one import may need (memcap.go); 0
	// means the process's Go memory limit (GOMEMLIMIT) when one is set,
	// negative means none.
	MemoryBudget int64
	// batchSize overrides defaultBatchOps (tests).
	batchSize int
	// modelWalk turns off the node-tree response walk (tests).
	modelWalk bool
}

func (o Options) maxBytes() int64 {
	if o.MaxBytes > 0 {
		return o.MaxBytes
	}
	return DefaultMaxBytes
}

// LoadBytes imports a single-file document; name is only used in messages
// and to tell JSON from YAML.
func LoadBytes(name string, data []byte, opts Options) (*Document, error) {
	return Load(FileSet{Files: []File{{Name: path.Base(filepath.ToSlash(name)), Data: data}}}, opts)
}

// LoadFiles imports several files uploaded together (names relative to the
// set, e.g. from a browser directory upload).
func LoadFiles(files []File, opts Options) (*Document, error) {
	return Load(FileSet{Files: files}, opts)
}

// LoadPath imports a file, or a directory as a multi-file set whose root is
// the one file with a top-level openapi/swagger key (or opts.Root). A file
// is the root of the set of files in its directory tree that its $refs
// reach: those are read from disk on demand, nothing outside the tree.
func LoadPath(p string, opts Options) (*Document, error) {
	info, err := os.Stat(p)
	if err != nil {
		return nil, &ImportError{Kind: KindFileSet, File: p, Msg: "cannot read: " + err.Error(), Err: err}
	}
	if !info.IsDir() {
		if info.Size() > opts.maxBytes() {
			return nil, importErr(KindTooLarge, p, 0, 0, "%d bytes is over the %d byte limit", info.Size(), opts.maxBytes())
		}
		return loadRootFile(p, opts)
	}
	set, err := readDir(os.DirFS(p), opts.maxBytes())
	if err != nil {
		return nil, err
	}
	return Load(set, opts)
}

// loadRootFile imports the file at p with its directory as the set, read
// on demand through an os.Root so no name or symlink leads outside it.
func loadRootFile(p string, opts Options) (*Document, error) {
	dir, base := filepath.Split(p)
	if dir == "" {
		dir = "."
	}
	root, err := os.OpenRoot(dir)
	if err != nil {
		return nil, &ImportError{Kind: KindFileSet, File: p, Msg: "cannot read: " + err.Error(), Err: err}
	}
	defer root.Close()
	f, err := root.Open(base)
	if err != nil {
		return nil, &ImportError{Kind: KindFileSet, File: p, Msg: "cannot read: " + err.Error(), Err: err}
	}
	src := &fileSource{raw: map[string][]byte{}, fsys: root.FS(), limit: opts.maxBytes(), parsed: map[string]*parsedFile{}}
	data, err := readMember(f, base, src.limit, &src.total)
	f.Close()
	if err != nil {
		var ie *ImportError
		if errors.As(err, &ie) {
			return nil, ie
		}
		return nil, &ImportError{Kind: KindFileSet, File: p, Msg: "cannot read: " + err.Error(), Err: err}
	}
	src.raw[base] = data
	opts.Root = base
	return loadSource(src, opts)
}

// readDir collects the JSON/YAML files of a directory tree, stopping as soon
// as the total passes limit so a huge directory costs nothing.
func readDir(fsys fs.FS, limit int64) (FileSet, error) {
	var set FileSet
	var total int64
	err := fs.WalkDir(fsys, ".", func(name string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() || !IsSpecFile(name) {
			return nil
		}
		f, err := fsys.Open(name)
		if err != nil {
			return err
		}
		data, err := readMember(f, name, limit, &total)
		f.Close()
		if err != nil {
			return err
		}
		set.Files = append(set.Files, File{Name: name, Data: data})
		return nil
	})
	if err != nil {
		var ie *ImportError
		if errors.As(err, &ie) {
			return set, ie
		}
		return set, &ImportError{Kind: KindFileSet, Msg: "cannot read directory: " + err.Error(), Err: err}
	}
	return set, nil
}

// readMember reads one member of a set whose members so far hold *total
// bytes, adding its size to *total. It reads at most one byte past the
// limit, never trusting a size the file system or archive claims, so a huge
// member is refused without being held in memory.
func readMember(r io.Reader, name string, limit int64, total *int64) ([]byte, error) {
	b, err := io.ReadAll(io.LimitReader(r, limit-*total+1))
	if err != nil {
		return nil, err
	}
	*total += int64(len(b))
	if *total > limit {
		return nil, importErr(KindTooLarge, name, 0, 0, "the file set is over the %d byte limit", limit)
	}
	return b, nil
}

// LoadZip imports a .zip archive as a multi-file set. Sizes are checked
// against the uncompressed bytes actually read, never the archive's claims.
func LoadZip(data []byte, opts Options) (*Document, error) {
	zr, err := zip.NewReader(bytes.NewReader(data), int64(len(data)))
	if err != nil {
		return nil, &ImportError{Kind: KindFileSet, File: "upload.zip", Msg: "not a readable zip archive: " + err.Error(), Err: err}
	}
	limit := opts.maxBytes()
	var set FileSet
	var total int64
	for _, zf := range zr.File {
		if err := checkZipName(zf.Name); err != nil {
			return nil, err
		}
		if zf.FileInfo().IsDir() || !IsSpecFile(zf.Name) {
			continue
		}
		rc, err := zf.Open()
		if err != nil {
			return nil, &ImportError{Kind: KindFileSet, File: zf.Name, Msg: "cannot open in zip: " + err.Error(), Err: err}
		}
		b, err := readMember(rc, zf.Name, limit, &total)
		rc.Close()
		if err != nil {
			var ie *ImportError
			if errors.As(err, &ie) {
				return nil, ie
			}
			return nil, &ImportError{Kind: KindFileSet, File: zf.Name, Msg: "cannot read in zip: " + err.Error(), Err: err}
		}
		set.Files = append(set.Files, File{Name: zf.Name, Data: b})
	}
	return Load(set, opts)
}

// checkZipName refuses the whole archive when any entry, even one that
// would be ignored, has an absolute name or climbs out with "..": such an
// archive was made to escape a directory, not to describe an API. archive/zip
// only reports these under GODEBUG=zipinsecurepath=0.
func checkZipName(name string) error {
	switch {
	case strings.HasPrefix(name, "/") || strings.Contains(name, `\`) || (len(name) > 1 && name[1] == ':'):
		return importErr(KindFileSet, name, 0, 0, "zip entry has an absolute or backslash name: refused")
	case name == ".." || strings.HasPrefix(path.Clean(name), "../"):
		return importErr(KindFileSet, name, 0, 0, "zip entry name leaves the file set: refused")
	}
	return nil
}

// IsSpecFile reports whether a file of a set is read as part of the API
// description (by its extension: .json, .yaml, .yml); directory and zip
// loading skip every other file.
func IsSpecFile(name string) bool {
	switch strings.ToLower(path.Ext(name)) {
	case ".json", ".yaml", ".yml":
		return true
	}
	return false
}

// normalize cleans names, rejects names that leave the set, and checks the
// total size. Binary content is checked when a file is read (fileSource):
// a file the root never references is ignored whatever it holds.
func normalize(set FileSet, opts Options) (map[string][]byte, error) {
	if len(set.Files) == 0 {
		return nil, importErr(KindFileSet, "", 0, 0, "no OpenAPI file given")
	}
	files := make(map[string][]byte, len(set.Files))
	var total int64
	for _, f := range set.Files {
		name := path.Clean(strings.TrimPrefix(filepath.ToSlash(f.Name), "/"))
		if name == "." || name == ".." || strings.HasPrefix(name, "../") {
			return nil, importErr(KindFileSet, f.Name, 0, 0, "file name leaves the file set")
		}
		if _, dup := files[name]; dup {
			return nil, importErr(KindFileSet, name, 0, 0, "file given twice")
		}
		total += int64(len(f.Data))
		if total > opts.maxBytes() {
			return nil, importErr(KindTooLarge, name, 0, 0, "the file set is over the %d byte limit", opts.maxBytes())
		}
		files[name] = f.Data
	}
	return files, nil
}

// checkText refuses binary input early: parsers give confusing errors on it.
func checkText(name string, data []byte) error {
	if i := bytes.IndexByte(data, 0); i >= 0 {
		line, col := lineCol(data, i)
		return importErr(KindBinary, name, line, col, "binary data (NUL byte) is not an OpenAPI document")
	}
	if !utf8.Valid(data) {
		i := 0
		for i < len(data) {
			r, size := utf8.DecodeRune(data[i:])
			if r == utf8.RuneError && size <= 1 {
				break
			}
			i += size
		}
		line, col := lineCol(data, i)
		return importErr(KindBinary, name, line, col, "invalid UTF-8: not a text document")
	}
	return nil
}

func lineCol(data []byte, off int) (int, int) {
	line := bytes.Count(data[:off], []byte("\n")) + 1
	col := off - bytes.LastIndexByte(data[:off], '\n')
	return line, col
}

// chooseRoot picks the root document: want when given, else the one
// candidate root found by findRoot.
func chooseRoot(names []string, s *fileSource, want string, roots ...string) (string, error) {
	if want != "" {
		want = path.Clean(filepath.ToSlash(want))
		pf, ok, err := s.file(want)
		if err != nil {
			return "", err
		}
		if !ok {
			return "", importErr(KindFileSet, want, 0, 0, "root file is not in the file set")
		}
		if pf.specKey == "" {
			return "", importErr(KindNotOpenAPI, want, 0, 0, "not an OpenAPI document: no top-level openapi or swagger key")
		}
		return want, nil
	}
	switch {
	case len(roots) == 1:
		return roots[0], nil
	case len(roots) > 1:
		return "", importErr(KindFileSet, "", 0, 0, "several root documents (%s): choose one", strings.Join(roots, ", "))
	case len(names) == 1:
		pf, _, err := s.file(names[0])
		if err != nil {
			return "", err
		}
		if pf.root == nil {
			return "", importErr(KindNotOpenAPI, names[0], 0, 0, "empty document: not an OpenAPI document")
		}
		return "", importErr(KindNotOpenAPI, names[0], 0, 0, "not an OpenAPI document: no top-level openapi or swagger key")
	}
	return "", importErr(KindNotOpenAPI, "", 0, 0, "no file in the set has a top-level openapi or swagger key")
}
