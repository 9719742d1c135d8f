package runtime

import (
	"fmt"
	"net"
	"net/http"
	"net/url"
	"strings"
)

// checkOrigin guards the streamable HTTP endpoint against browsers: the MCP
// transport requires servers to validate Origin, or a web page the user
// visits could call the runtime's tools on localhost (DNS rebinding or a
// plain cross-site POST). A request without Origin (a non-browser client)
// passes, so does one from a loopback origin (http(s)://localhost,
// 127.0.0.0/8, [::1], any port: a local browser-based client) or from an
// origin listed in allowed (normalized by normalizeOrigins). Any other
// Origin, "null" included, gets 403 and never reaches the MCP server.
func (r *Runtime) checkOrigin(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		origin := req.Header.Get("Origin")
		if originAllowed(origin, r.allowedOrigins) {
			next.ServeHTTP(w, req)
			return
		}
		r.log.Warn("MCP request refused: foreign Origin", "origin", origin, "remote", req.RemoteAddr)
		w.Header().Set("Content-Type", "text/plain; charset=utf-8")
		w.Header().Set("X-Content-Type-Options", "nosniff")
		w.WriteHeader(http.StatusForbidden)
		fmt.Fprintln(w, "403 Forbidden: requests from this Origin are not allowed (toolgate runtime --mcp-allowed-origin)")
	})
}

func originAllowed(origin string, allowed map[string]bool) bool {
	if origin == "" {
		return true
	}
	o, err := normalizeOrigin(origin)
	if err != nil {
		return false
	}
	if allowed[o] {
		return true
	}
	u, _ := url.Parse(o)
	host := u.Hostname()
	if strings.EqualFold(host, "localhost") {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// normalizeOrigin checks that s is an origin (http or https, a host, an
// optional port, nothing else) and returns it lower-cased.
func normalizeOrigin(s string) (string, error) {
	u, err := url.Parse(s)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || u.User != nil ||
		(u.Path != "" && u.Path != "/") || u.RawQuery != "" || u.Fragment != "" || u.Opaque != "" {
		return "", fmt.Errorf("origin %q: want http(s)://host[:port]", s)
	}
	return strings.ToLower(u.Scheme + "://" + u.Host), nil
}

// normalizeOrigins turns Options.AllowedOrigins into the set checkOrigin
// uses, refusing anything that is not an origin.
func normalizeOrigins(list []string) (map[string]bool, error) {
	out := make(map[string]bool, len(list))
	for _, s := range list {
		o, err := normalizeOrigin(strings.TrimSpace(s))
		if err != nil {
			return nil, fmt.Errorf("allowed origins: %w", err)
		}
		out[o] = true
	}
	return out, nil
}
