package importer

import (
	"fmt"
	"net/url"
	"strings"
)

// NormalizeOrigin checks that origin is scheme://host[:port] with scheme
// http or https and nothing else (no userinfo, path, query or fragment; one
// trailing slash is tolerated), and returns it in lower case. The origin is
// what a bundle pins every call of the source to (R8), so anything that
// could smuggle in credentials or a path prefix is refused. The error text
// is meant for people.
func NormalizeOrigin(origin string) (string, error) {
	s := strings.TrimSuffix(strings.TrimSpace(origin), "/")
	u, err := url.Parse(s)
	switch {
	case err != nil || u.Host == "" || u.Opaque != "":
		return "", fmt.Errorf("the origin %q is not scheme://host[:port]", origin)
	case u.Scheme != "http" && u.Scheme != "https":
		return "", fmt.Errorf("the origin %q must use http or https", origin)
	case u.User != nil:
		return "", fmt.Errorf("the origin %q must not carry a user name or password", origin)
	case u.Path != "" || u.RawQuery != "" || u.Fragment != "" || strings.ContainsAny(s[len(u.Scheme)+3:], "?#/"):
		return "", fmt.Errorf("the origin %q must have no path, query or fragment (the path comes from the document)", origin)
	case u.Port() == "" && strings.HasSuffix(u.Host, ":"):
		return "", fmt.Errorf("the origin %q has an empty port", origin)
	}
	return strings.ToLower(u.Scheme + "://" + u.Host), nil
}
