//go:build !runtimeonly

package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/user"
	"path/filepath"
	"strings"

	"github.com/toolgate/toolgate/internal/apperr"
	"github.com/toolgate/toolgate/internal/importer"
	"github.com/toolgate/toolgate/internal/openapi"
	"github.com/toolgate/toolgate/internal/store"
)

// importCmd stores an API description as a source, or re-imports it and
// applies the diff. A first import applies at once (nothing is lost); a
// re-import that changes something asks for confirmation unless --yes.
type importCmd struct {
	dataDirFlag `embed:""`
	Source      string `required:"" help:"Source name: 1-40 of a-z, 0-9, '-', '_' (e.g. petstore)."`
	Origin      string `help:"scheme://host[:port] the API is served from; required when the document names no absolute server."`
	Root        string `help:"Root document of a directory set, relative to it, when several files could be the root."`
	MaxBytes    int64  `name:"max-bytes" help:"Refuse input larger than this many bytes (default 25 MiB)."`
	Yes         bool   `help:"Apply a re-import's diff without asking."`
	Confirm     bool   `name:"confirm-definitions" help:"Keep exposed READ/WRITE tools exposed although what agents read changes (the diff is printed); without it such a re-import asks, or with --yes is refused."`
	Path        string `arg:"" help:"OpenAPI 2.0/3.0/3.1 file (JSON or YAML), or a directory holding a multi-file set."`
}

// Run parses, previews, prints the diff and applies it, audited as
// "cli:<os user>".
func (c *importCmd) Run(ctx context.Context, env *Env) error {
	if !importer.SourceNamePattern.MatchString(c.Source) {
		return Exit(2, fmt.Errorf("--source %q: use 1-40 of a-z, 0-9, '-' or '_', starting with a letter or digit", c.Source))
	}
	if c.Origin != "" {
		if _, err := importer.NormalizeOrigin(c.Origin); err != nil {
			return Exit(2, fmt.Errorf("--origin: %w", err))
		}
	}
	opts := openapi.Options{Root: c.Root, MaxBytes: c.MaxBytes}
	doc, err := openapi.LoadPath(c.Path, opts)
	if err != nil {
		return Exit(1, oneLineError{fmt.Errorf("import %s: %w", c.Path, err)})
	}
	// After LoadPath, which refuses an oversized input before reading it.
	digest, err := digestPath(c.Path, opts.MaxBytes, doc.Files)
	if err != nil {
		return Exit(1, fmt.Errorf("import %s: %w", c.Path, err))
	}
	db, err := openStore(ctx, c.DataDir, c.DatabaseURL, true)
	if err != nil {
		return err
	}
	defer db.Close()
	pv, err := db.PreviewImport(ctx, c.Source, c.Origin, doc)
	if err != nil {
		return userError(err)
	}
	writePlan(env.Stdout, c.Source, pv)
	for _, w := range doc.Warnings {
		fmt.Fprintf(env.Stdout, "warning: %s\n", printable(w))
	}
	if pv.Source != nil && pv.Plan.Empty() {
		fmt.Fprintln(env.Stdout, "nothing changes; storing the new revision")
	}
	if pv.Source != nil && !pv.Plan.Empty() && !c.Yes && !confirm(env, "Apply this diff?") {
		return Exit(1, errors.New("not applied (answer y, or pass --yes)"))
	}
	confirmed, err := c.confirmDefinitions(env, pv.Plan)
	if err != nil {
		return err
	}
	res, err := db.ImportSource(ctx, cliActor(), store.SourceImport{Name: c.Source, Origin: c.Origin, Doc: doc,
		DocumentSHA256: digest, BaseRevision: pv.BaseRevision, ConfirmedDefinitions: confirmed})
	if err != nil {
		return userError(err)
	}
	fmt.Fprintf(env.Stdout, "imported %s revision %d: %d tools (%d exposed), %d removed kept as history\n",
		res.Source.Name, res.Source.Revision, res.Source.Total(), res.Source.Exposed, res.Source.Removed)
	return nil
}

// confirmDefinitions asks the person at the terminal to confirm the new
// definitions of exposed READ/WRITE tools (R13), or takes
// --confirm-definitions. --yes alone does not confirm them: it answers
// "apply the diff", not "agents may read this new text".
func (c *importCmd) confirmDefinitions(env *Env, p *importer.Plan) ([]string, error) {
	var names []string
	for _, ch := range p.ToConfirm() {
		names = append(names, ch.Tool)
	}
	if len(names) == 0 || c.Confirm {
		return names, nil
	}
	if !c.Yes && confirm(env, fmt.Sprintf("What agents read changes for the exposed tools %s (diff above). Keep them exposed with it?",
		strings.Join(names, ", "))) {
		return names, nil
	}
	return nil, Exit(1, fmt.Errorf("not applied: what agents read changes for the exposed tools %s; review the diff and answer y, or pass --confirm-definitions",
		strings.Join(names, ", ")))
}

// userError turns refusals the store explains into exit status 1 with the
// explanation; anything else stays internal.
func userError(err error) error {
	switch apperr.CodeOf(err) {
	case apperr.Invalid, apperr.Conflict, apperr.NotFound:
		return Exit(1, errors.New(apperr.MessageOf(err)))
	}
	return err
}

// cliActor names the person at the terminal in the audit log.
func cliActor() string {
	if u, err := user.Current(); err == nil && u.Username != "" {
		return "cli:" + u.Username
	}
	return "cli:unknown"
}

func confirm(env *Env, question string) bool {
	fmt.Fprintf(env.Stdout, "%s [y/N] ", question)
	// One byte at a time: a buffered reader would swallow the answer to
	// the next question.
	var line []byte
	b := make([]byte, 1)
	for len(line) < 64 {
		n, err := env.Stdin.Read(b)
		if n == 1 && b[0] == '\n' || err != nil {
			break
		}
		line = append(line, b[:n]...)
	}
	a := strings.ToLower(strings.TrimSpace(string(line)))
	return a == "y" || a == "yes"
}

// digestPath is importer.Digest of a root file and the files of its
// directory it reached (set: openapi.Document.Files), or of the JSON and
// YAML files under a directory (names relative to it): the files
// openapi.LoadPath reads, not whatever else the directory holds (a .git
// folder, build output). Reading stops past maxBytes (0: openapi.DefaultMaxBytes), so the
// digest never holds more in memory than the import itself may.
func digestPath(p string, maxBytes int64, set []string) (string, error) {
	if maxBytes <= 0 {
		maxBytes = openapi.DefaultMaxBytes
	}
	var files []openapi.File
	var total int64
	read := func(path, name string) error {
		f, err := os.Open(path)
		if err != nil {
			return err
		}
		defer f.Close()
		b, err := io.ReadAll(io.LimitReader(f, maxBytes-total+1))
		if err != nil {
			return err
		}
		if total += int64(len(b)); total > maxBytes {
			return fmt.Errorf("digest: the input is over the %d byte limit", maxBytes)
		}
		files = append(files, openapi.File{Name: name, Data: b})
		return nil
	}
	info, err := os.Stat(p)
	if err != nil {
		return "", err
	}
	if !info.IsDir() {
		// A root file's set is the files its $refs reached in its
		// directory (openapi.Document.Files, root first).
		if len(set) == 0 {
			set = []string{filepath.Base(p)}
		}
		for _, name := range set {
			if err := read(filepath.Join(filepath.Dir(p), filepath.FromSlash(name)), name); err != nil {
				return "", err
			}
		}
		return importer.Digest(files), nil
	}
	err = filepath.WalkDir(p, func(path string, d fs.DirEntry, err error) error {
		if err != nil || !d.Type().IsRegular() || !openapi.IsSpecFile(path) {
			return err
		}
		rel, err := filepath.Rel(p, path)
		if err != nil {
			return err
		}
		return read(path, filepath.ToSlash(rel))
	})
	if err != nil {
		return "", err
	}
	return importer.Digest(files), nil
}

// writePlan prints the diff: one line per added, restored, changed or
// removed tool, with what changed and any suspension.
func writePlan(w io.Writer, source string, pv *store.ImportPreview) {
	p := pv.Plan
	if pv.Source == nil {
		fmt.Fprintf(w, "new source %s (origin %s): %d tools\n", source, pv.Origin, len(p.Changes))
	} else {
		fmt.Fprintf(w, "re-import of %s (revision %d): %d added, %d restored, %d changed, %d removed, %d unchanged\n",
			source, pv.BaseRevision, p.Count(importer.Added), p.Count(importer.Restored), p.Count(importer.Changed),
			p.Count(importer.Removed), p.Count(importer.Unchanged))
	}
	for _, c := range p.Changes {
		if c.Kind == importer.Unchanged {
			continue
		}
		fmt.Fprintf(w, "  %-9s %-40s %-7s %s  %s\n", c.Kind, c.Tool, c.Method, printable(c.Path), c.Class)
		for _, f := range c.Fields {
			fmt.Fprintf(w, "            %s: %s -> %s\n", f.Field, printable(f.Before), printable(f.After))
		}
		if d := c.Definition; d != nil {
			fmt.Fprintf(w, "            what agents read changes: %s\n", d.Summary())
			writeTextDiff(w, "description", d.Description)
			writeTextDiff(w, "input schema", d.InputSchema)
		}
		if c.Suspend != "" {
			fmt.Fprintf(w, "            exposure suspended: %s\n", c.Suspend)
		}
		if c.VoidPending != "" {
			fmt.Fprintf(w, "            pending change requests become void\n")
		}
		if c.Op != nil && c.Kind != importer.Removed {
			for _, g := range c.Op.SchemaGaps {
				fmt.Fprintf(w, "            input schema incomplete (exposing needs an acknowledgement): %s\n", printable(g))
			}
		}
	}
}

// writeTextDiff prints a line diff under its title, each line made
// printable (imported text may hold terminal control sequences).
func writeTextDiff(w io.Writer, title string, d importer.TextDiff) {
	if len(d.Lines) == 0 {
		return
	}
	fmt.Fprintf(w, "            %s:\n", title)
	for _, l := range d.Lines {
		if l.Gap {
			fmt.Fprintln(w, "              ...")
			continue
		}
		fmt.Fprintf(w, "              %c %s\n", l.Op, printable(l.Text))
	}
}
