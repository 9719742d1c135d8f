package openapi

import (
	"bytes"
	"io"
	"io/fs"
	"maps"
	"path"
	"slices"
	"strings"
	"time"
)

// memFS is the in-memory file set the library reads: slash-separated names
// relative to the set's top, mapped to their bytes. Directories are implied
// by the names. It is filled after the library got it (newLibDocument), so
// it is a map, read at each Open.
type memFS map[string][]byte

// Open opens a file or an implied directory (fs.FS).
func (m memFS) Open(name string) (fs.File, error) {
	if !fs.ValidPath(name) {
		return nil, &fs.PathError{Op: "open", Path: name, Err: fs.ErrInvalid}
	}
	if data, ok := m[name]; ok {
		return &memFile{info: memInfo{name: path.Base(name), size: int64(len(data))}, r: bytes.NewReader(data)}, nil
	}
	entries := m.children(name)
	if entries == nil && name != "." {
		return nil, &fs.PathError{Op: "open", Path: name, Err: fs.ErrNotExist}
	}
	return &memDir{info: memInfo{name: path.Base(name), dir: true}, entries: entries}, nil
}

// children lists the entries directly under dir, sorted by name; nil when
// no file is under it.
func (m memFS) children(dir string) []fs.DirEntry {
	prefix := dir + "/"
	if dir == "." {
		prefix = ""
	}
	seen := map[string]memInfo{}
	for name, data := range m {
		rest, ok := strings.CutPrefix(name, prefix)
		if !ok {
			continue
		}
		if first, _, sub := strings.Cut(rest, "/"); sub {
			seen[first] = memInfo{name: first, dir: true}
		} else {
			seen[rest] = memInfo{name: rest, size: int64(len(data))}
		}
	}
	var out []fs.DirEntry
	for _, name := range slices.Sorted(maps.Keys(seen)) {
		out = append(out, fs.FileInfoToDirEntry(seen[name]))
	}
	return out
}

// memInfo describes a file or directory of a memFS.
type memInfo struct {
	name string
	size int64
	dir  bool
}

func (i memInfo) Name() string { return i.name }
func (i memInfo) Size() int64  { return i.size }
func (i memInfo) Mode() fs.FileMode {
	if i.dir {
		return fs.ModeDir | 0o555
	}
	return 0o444
}
func (i memInfo) ModTime() time.Time { return time.Time{} }
func (i memInfo) IsDir() bool        { return i.dir }
func (i memInfo) Sys() any           { return nil }

// memFile is an open file of a memFS.
type memFile struct {
	info memInfo
	r    *bytes.Reader
}

func (f *memFile) Stat() (fs.FileInfo, error) { return f.info, nil }
func (f *memFile) Read(b []byte) (int, error) { return f.r.Read(b) }
func (f *memFile) Close() error               { return nil }

// memDir is an open directory of a memFS.
type memDir struct {
	info    memInfo
	entries []fs.DirEntry
	read    int
}

func (d *memDir) Stat() (fs.FileInfo, error) { return d.info, nil }
func (d *memDir) Read([]byte) (int, error) {
	return 0, &fs.PathError{Op: "read", Path: d.info.name, Err: fs.ErrInvalid}
}
func (d *memDir) Close() error { return nil }

// ReadDir returns the next n entries, or all that are left when n <= 0
// (fs.ReadDirFile).
func (d *memDir) ReadDir(n int) ([]fs.DirEntry, error) {
	left := d.entries[d.read:]
	if n <= 0 {
		d.read = len(d.entries)
		return left, nil
	}
	if len(left) == 0 {
		return nil, io.EOF
	}
	left = left[:min(n, len(left))]
	d.read += len(left)
	return left, nil
}
