package oci

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestParseTarget(t *testing.T) {
	good := map[string]Target{
		"oci://127.0.0.1:5000/toolgate/bundles": {Host: "127.0.0.1:5000", Repository: "toolgate/bundles"},
		"oci://registry.example.com/a-b/c_d.e":  {Host: "registry.example.com", Repository: "a-b/c_d.e"},
		"oci://[::1]:5000/x":                    {Host: "[::1]:5000", Repository: "x"},
	}
	for in, want := range good {
		got, err := ParseTarget(in)
		if err != nil || got != want {
			t.Errorf("ParseTarget(%q) = %+v, %v; want %+v", in, got, err, want)
		}
		if got.String() != in {
			t.Errorf("String() = %q, want %q", got.String(), in)
		}
	}
	bad := map[string]string{
		"https://host/repo":             "want oci://",
		"oci://host":                    "want oci://",
		"oci:///repo":                   "want oci://",
		"oci://user:hunter22@host/repo": "credentials do not belong",
		"oci://host/Repo":               "lower-case",
		"oci://host/repo:latest":        "lower-case",
		"oci://host/repo@sha256:abc":    "lower-case",
		"oci://host:/repo":              "want host[:port]",
		"oci://host/repo?x=1":           "lower-case",
	}
	for in, want := range bad {
		_, err := ParseTarget(in)
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("ParseTarget(%q) error %v, want it to contain %q", in, err, want)
		}
		if err != nil && strings.Contains(err.Error(), "hunter22") {
			t.Errorf("ParseTarget(%q) error leaks the password: %v", in, err)
		}
	}
}

func TestLoadCredentials(t *testing.T) {
	dir := t.TempDir()
	write := func(name, body string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(body), 0o600); err != nil {
			t.Fatal(err)
		}
		return p
	}
	env := map[string]string{EnvUsername: "envuser", EnvPassword: "envpass"}
	getenv := func(k string) string { return env[k] }
	none := func(string) string { return "" }
	cases := []struct {
		name, file string
		getenv     func(string) string
		want       Credentials
		err        string
	}{
		{"file wins", write("ok.json", `{"username":"u","password":"p4ss"}`), getenv, Credentials{"u", "p4ss"}, ""},
		{"env", "", getenv, Credentials{"envuser", "envpass"}, ""},
		{"anonymous", "", none, Credentials{}, ""},
		{"half", write("half.json", `{"username":"u"}`), none, Credentials{}, "both a username and a password"},
		{"bad json", write("bad.json", `{"username":"u","password":"leakme"`), none, Credentials{}, "want JSON"},
		{"unknown field", write("x.json", `{"user":"u","password":"leakme"}`), none, Credentials{}, "want JSON"},
		{"missing", filepath.Join(dir, "nope.json"), none, Credentials{}, "no such file"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got, err := LoadCredentials(c.file, c.getenv)
			if c.err == "" && (err != nil || got != c.want) {
				t.Fatalf("got %v, %v; want %v", got, err, c.want)
			}
			if c.err != "" && (err == nil || !strings.Contains(err.Error(), c.err) || strings.Contains(err.Error(), "leakme")) {
				t.Fatalf("error %v, want %q without the secret", err, c.err)
			}
		})
	}
}

func TestSanitize(t *testing.T) {
	creds := Credentials{Username: "robot", Password: "topsecret"}
	got := sanitizeText("401 for robot with topsecret\nnext line", creds)
	if strings.Contains(got, "topsecret") || strings.Contains(got, "robot") || strings.Contains(got, "\n") {
		t.Fatalf("sanitizeText = %q", got)
	}
	if long := sanitizeText(strings.Repeat("a", 1000), creds); len(long) != 300 {
		t.Fatalf("long text cut to %d bytes, want 300", len(long))
	}
}
