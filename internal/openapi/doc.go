// Package openapi reads OpenAPI 2.0, 3.0 and 3.1 descriptions into the
// operations toolgate turns into tools. It never reads the network and never
// reads a file outside the set of files it was given.
//
// # File sets
//
// An import reads a set of files: one uploaded file, several files or a
// .zip (the console), a directory, or a root file given by path (the CLI).
// A root file's set is its directory tree, read on demand through an
// os.Root: relative $refs reach siblings and sub-directories, never a parent
// directory, a symlink out of the tree, an absolute path or a URL. In every
// kind of set only the root and the files its $refs reach are decoded, so a
// file nothing references is ignored even when it is broken or binary; a
// referenced file that does not decode stops the import at its own
// file:line:col. A directory's root is Options.Root, else the one file with a
// top-level openapi/swagger key.
//
// # References
//
// A $ref is followed only where OpenAPI and JSON Schema put references. In
// literal data it is data: under example, examples (a 3.1 schema's list, an
// Example Object's value, any 2.0 examples), default, enum, const and x-
// keys, and a key of a names map (properties, components, media types,
// status codes...) is a name, so a property called "$ref" is a property
// and a header called "x-rate" is a header. Only the Paths object and an
// operation's Responses object mix names with extensions: an x- key there
// is an extension, data. Extension values are data in every file of a set:
// a referenced file the checker rewrote reaches libopenapi with its literal
// refs still renamed, and the library's own extension rule (any path
// segment starting with "x-", names included) is off.
// libopenapi itself follows a $ref under example, default, enum and const,
// so in the trees it reads such keys are renamed (literalRefKey) and renamed
// back when toolgate reads the values.
//
// A $ref toolgate cannot or will not follow (its target is missing, a file
// is not in the set, it leaves the set or points to the network, a
// plain-name anchor) does not refuse the description: it is replaced
// (unresolvedKey) and reported as a warning with its file:line:col. Where a
// schema was expected, that part of the input schema accepts any value and
// the operation lists it in Operation.SchemaGaps; where a parameter, a
// request body or a path item was expected, only the operations that need
// it are left out, each with a warning. A $ref chain that never reaches a
// value is still refused (KindRefCycle). JSON Pointers follow RFC 6901: only
// ~0 and ~1 are escapes (and %-encoding in a URI fragment), so a component
// named `a\B` resolves.
//
// # Duplicate keys
//
// YAML 1.2 forbids a key twice in one mapping and JSON leaves it undefined;
// real descriptions have both (two `/a:` path items, two `get:` in one item,
// a repeated JSON member). toolgate imports them: the later entry is used,
// as JSON.parse and most OpenAPI tools do, the earlier one is removed, and a
// warning names both positions ("api.yaml:5:5: duplicate key "get" (again
// at 6:5): the later one is used, this one is ignored"). Warnings are shown
// by inspect, by the CLI import and in the console's import preview.
//
// # Bounds
//
// A set is bounded in bytes (Options.MaxBytes, 25 MiB) and in YAML alias
// expansion. An import is bounded in operations (Options.MaxOperations,
// 20,000, counted before the model is built) and in expanded input schemas
// (Options.MaxTotalSchemaBytes, 64 MiB for all operations together); each
// bound refuses with its own one-line error. One operation's input schema
// is bounded by depth, recursion (a $ref inside itself is cut, so a required
// array of its own schema is fine), nodes and Options.MaxSchemaBytes (1 MiB);
// a body cut for size is a schema gap, like an unresolved $ref.
//
// An import's memory is bounded too: a document of more than 500
// operations is built batch by batch of 250 (eachBatch), each batch's
// model released, with its path items, before the next is built, so the
// heap peaks under 30× the document's bytes + 50 MiB (make bench-import)
// instead of holding the node tree, the whole model and its index at once.
//
// # Errors
//
// Bad input is an *ImportError whose Error() is "file:line:col: message"
// (line and column when known). Syntax errors say "invalid JSON" for a JSON
// file, worded by encoding/json, and "invalid YAML" otherwise; an unexpected
// end of input is placed at the end of the last line.
//
// # YAML 1.2 line separators
//
// YAML 1.2 breaks lines only at LF and CR; NEL (U+0085), LINE SEPARATOR
// (U+2028) and PARAGRAPH SEPARATOR (U+2029) are content (spec 5.4). The
// YAML reader follows 1.1 there, so before any decoding each of them is
// replaced by a character of the same UTF-8 width the text does not
// contain, and every decoded scalar gets the original back: no position
// moves.
//
// # YAML 1.2 and tabs
//
// The YAML reader (pb33f/go-yaml, the one libopenapi uses) refuses a tab
// after the indentation spaces of a block scalar's first line, which YAML
// 1.2 reads as content (test suite case Y79Y). When it refuses exactly that,
// a pre-pass writes the indentation the spec derives from that line as an
// explicit indentation indicator ("|" becomes "|3") and the file is read
// again; no line moves, so positions stay right.
package openapi
