// Package static embeds the console's CSS, JavaScript and icon.
//
// htmx.min.js is committed, so `go build ./cmd/toolgate` and `go install`
// work from a fresh clone with only Go. It is the file of the htmx.org
// version pinned in package-lock.json; TestHTMXMatchesLock fails when the
// two drift apart, and `make htmx` copies a new pinned version in.
package static

import "embed"

// FS holds the static files served under /static/ (and /favicon.ico).
//
//go:embed *.css *.js *.ico
var FS embed.FS
