package openapi

import (
	"errors"
	"fmt"
)

// ErrorKind says what class of problem stopped an import, so the console and
// the CLI can explain it without parsing the message.
type ErrorKind string

// The kinds of import failure. Each one is a distinct thing the admin must fix.
const (
	KindSyntax      ErrorKind = "syntax"      // invalid JSON or YAML
	KindNotOpenAPI  ErrorKind = "not_openapi" // no openapi/swagger key, or not a mapping
	KindVersion     ErrorKind = "version"     // an OpenAPI version we do not read
	KindRefOutside  ErrorKind = "ref_outside" // $ref to the network or outside the file set
	KindRefMissing  ErrorKind = "ref_missing" // $ref whose target does not exist
	KindRefCycle    ErrorKind = "ref_cycle"   // $ref chain that never reaches a value
	KindAliasBomb   ErrorKind = "alias_bomb"  // YAML aliases that expand without bound
	KindTooLarge    ErrorKind = "too_large"   // the set is over Options.MaxBytes
	KindBinary      ErrorKind = "binary"      // NUL bytes or invalid UTF-8
	KindFileSet     ErrorKind = "file_set"    // no root, several roots, unreadable archive
	KindInvalid     ErrorKind = "invalid"     // the document breaks the OpenAPI structure
	KindUnsupported ErrorKind = "unsupported" // valid input we deliberately do not handle
	// KindTooManyOperations: over Options.MaxOperations.
	KindTooManyOperations ErrorKind = "too_many_operations"
	// KindSchemaBudget: the expanded input schemas of all operations
	// together are over Options.MaxTotalSchemaBytes.
	KindSchemaBudget ErrorKind = "schema_budget"
)

// ImportError is the one error type Load returns for bad input. Line and Col
// are 1-based and zero when unknown.
type ImportError struct {
	Kind ErrorKind
	File string
	Line int
	Col  int
	Msg  string
	Err  error // the underlying library error, when there is one
}

// Error renders the one-line form shown to admins, e.g.
// "openapi.yaml:12:5: $ref to the network is not allowed: http://x/y".
func (e *ImportError) Error() string {
	loc := e.File
	switch {
	case e.Line > 0 && e.Col > 0:
		loc = fmt.Sprintf("%s:%d:%d", e.File, e.Line, e.Col)
	case e.Line > 0:
		loc = fmt.Sprintf("%s:%d", e.File, e.Line)
	}
	if loc == "" {
		return e.Msg
	}
	return loc + ": " + e.Msg
}

// Unwrap exposes the library error for errors.Is/As.
func (e *ImportError) Unwrap() error { return e.Err }

// KindOf returns the ErrorKind of err, or "" when err is not an ImportError.
func KindOf(err error) ErrorKind {
	var ie *ImportError
	if errors.As(err, &ie) {
		return ie.Kind
	}
	return ""
}

func importErr(kind ErrorKind, file string, line, col int, format string, args ...any) *ImportError {
	return &ImportError{Kind: kind, File: file, Line: line, Col: col, Msg: fmt.Sprintf(format, args...)}
}
