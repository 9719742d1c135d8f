package oci

import (
	"fmt"
	"net"
	"regexp"
	"strings"
)

// Scheme prefixes a registry location on the command line.
const Scheme = "oci://"

// Target is a repository in a registry, e.g. oci://127.0.0.1:5000/toolgate/bundles.
type Target struct {
	// Host is host[:port] of the registry.
	Host string
	// Repository is the repository path inside the registry.
	Repository string
}

// repoPattern is the distribution spec's repository name grammar.
var repoPattern = regexp.MustCompile(`^[a-z0-9]+(?:(?:[._]|__|[-]+)[a-z0-9]+)*(?:/[a-z0-9]+(?:(?:[._]|__|[-]+)[a-z0-9]+)*)*$`)

// ParseTarget reads "oci://host[:port]/repository". It refuses userinfo
// (credentials go in a file or the environment, never in the URL), tags,
// digests, queries and repository names the distribution spec forbids.
func ParseTarget(s string) (Target, error) {
	rest, ok := strings.CutPrefix(s, Scheme)
	if !ok {
		return Target{}, fmt.Errorf("registry location %q: want oci://host[:port]/repository", s)
	}
	host, repo, ok := strings.Cut(rest, "/")
	if !ok || host == "" || repo == "" {
		return Target{}, fmt.Errorf("registry location %q: want oci://host[:port]/repository", s)
	}
	if strings.Contains(host, "@") {
		return Target{}, fmt.Errorf("registry location %q: credentials do not belong in the URL; use --registry-credentials-file or TOOLGATE_REGISTRY_USERNAME/PASSWORD", redactUserinfo(s))
	}
	if err := checkHost(host); err != nil {
		return Target{}, fmt.Errorf("registry location %q: %w", s, err)
	}
	if !repoPattern.MatchString(repo) || len(repo) > 255 {
		return Target{}, fmt.Errorf("registry location %q: repository %q must be lower-case path components (a-z, 0-9, '.', '_', '-'), without tag or digest", s, repo)
	}
	return Target{Host: host, Repository: repo}, nil
}

func checkHost(host string) error {
	h := host
	if strings.Contains(host, ":") {
		var port string
		var err error
		if h, port, err = net.SplitHostPort(host); err != nil || port == "" {
			return fmt.Errorf("host %q: want host[:port]", host)
		}
	}
	if h == "" || strings.ContainsAny(h, "?#%/\\ ") {
		return fmt.Errorf("host %q: want host[:port]", host)
	}
	return nil
}

// redactUserinfo hides what sits between the scheme and '@'.
func redactUserinfo(s string) string {
	rest, _ := strings.CutPrefix(s, Scheme)
	if i := strings.Index(rest, "@"); i >= 0 {
		return Scheme + "***@" + rest[i+1:]
	}
	return s
}

// String is the location as given on the command line.
func (t Target) String() string { return Scheme + t.Host + "/" + t.Repository }

// reference is the repository reference oras expects: host/repository.
func (t Target) reference() string { return t.Host + "/" + t.Repository }
