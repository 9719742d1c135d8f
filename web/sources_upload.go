package web

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"mime/multipart"
	"net/http"
	"strings"

	"github.com/labstack/echo/v4"

	"github.com/toolgate/toolgate/internal/apperr"
	"github.com/toolgate/toolgate/internal/importer"
	"github.com/toolgate/toolgate/internal/openapi"
)

// maxUploadBytes bounds an import upload: the importer's own limit on a
// file set, plus room for the multipart framing and the other fields.
const maxUploadBytes = openapi.DefaultMaxBytes + 1<<20

// errTooLarge is the one message for any upload over the limit.
var errTooLarge = apperr.Errorf(apperr.TooLarge, "The upload is larger than %d MiB. Import a smaller document, or use `toolgate import` with --max-bytes.",
	openapi.DefaultMaxBytes>>20)

// upload is a parsed import upload: the document and the digest of the
// bytes it came from.
type upload struct {
	doc    *openapi.Document
	digest string
}

// readSourceUpload reads the files (one file, several files of a set, or a
// .zip) or the pasted text of an import form and parses them. Importer
// errors become Invalid errors carrying the importer's one-line message
// (file:line:col: problem), so the form can show exactly what is wrong.
func readSourceUpload(c echo.Context) (*upload, error) {
	// uploadGuard bounded the body to maxUploadBytes and checked the CSRF
	// token before anything parsed it.
	files, err := uploadedFiles(c)
	if err != nil {
		return nil, err
	}
	var doc *openapi.Document
	switch {
	case len(files) == 1 && strings.HasSuffix(strings.ToLower(files[0].Name), ".zip"):
		doc, err = openapi.LoadZip(files[0].Data, openapi.Options{})
	case len(files) == 1:
		doc, err = openapi.LoadBytes(files[0].Name, files[0].Data, openapi.Options{})
	case len(files) > 1:
		doc, err = openapi.LoadFiles(files, openapi.Options{})
	default:
		text := c.FormValue("document")
		if strings.TrimSpace(text) == "" {
			return nil, apperr.Invalidf("Choose a file to upload or paste a document.")
		}
		name := "pasted.yaml"
		if strings.HasPrefix(strings.TrimSpace(text), "{") {
			name = "pasted.json"
		}
		files = []openapi.File{{Name: name, Data: []byte(text)}}
		doc, err = openapi.LoadBytes(name, files[0].Data, openapi.Options{})
	}
	var ie *openapi.ImportError
	if errors.As(err, &ie) {
		return nil, errors.Join(apperr.Invalidf("%s", oneLine(ie.Error())), err)
	}
	if err != nil {
		return nil, fmt.Errorf("read upload: %w", err)
	}
	return &upload{doc: doc, digest: importer.Digest(files)}, nil
}

// uploadedFiles reads the "files" inputs of a multipart form; a form that
// is not multipart simply has no files.
func uploadedFiles(c echo.Context) ([]openapi.File, error) {
	form, err := c.MultipartForm()
	var mbe *http.MaxBytesError
	switch {
	case errors.As(err, &mbe):
		return nil, errTooLarge
	case errors.Is(err, http.ErrNotMultipart):
		return nil, nil
	case err != nil:
		return nil, apperr.Invalidf("The upload could not be read.")
	}
	var out []openapi.File
	var total int64
	for _, fh := range form.File["files"] {
		if fh.Size == 0 && fh.Filename == "" {
			continue // an empty file input
		}
		data, err := readPart(fh)
		if err != nil {
			return nil, err
		}
		if total += int64(len(data)); total > openapi.DefaultMaxBytes {
			return nil, errTooLarge
		}
		out = append(out, openapi.File{Name: fh.Filename, Data: data})
	}
	return out, nil
}

func readPart(fh *multipart.FileHeader) ([]byte, error) {
	f, err := fh.Open()
	if err != nil {
		return nil, fmt.Errorf("open upload %s: %w", fh.Filename, err)
	}
	defer f.Close()
	var buf bytes.Buffer
	if _, err := io.Copy(&buf, io.LimitReader(f, openapi.DefaultMaxBytes+1)); err != nil {
		return nil, fmt.Errorf("read upload %s: %w", fh.Filename, err)
	}
	if int64(buf.Len()) > openapi.DefaultMaxBytes {
		return nil, errTooLarge
	}
	return buf.Bytes(), nil
}

// oneLine folds whitespace so a parser message quoting input stays on one
// line.
func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }
