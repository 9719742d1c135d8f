// Package static embeds the console's CSS and JavaScript. htmx.min.js is
// copied from node_modules (pinned in package.json) by `make static`, which
// every building make target depends on; it is not committed.
package static

import "embed"

// FS holds the static files served under /static/.
//
//go:embed *.css *.min.js
var FS embed.FS
