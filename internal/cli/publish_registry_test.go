package cli

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/toolgate/toolgate/internal/oci"
	"github.com/toolgate/toolgate/internal/testing/ocitest"
)

// TestPublishToRegistryCLI: `toolgate publish --publish-to-registry`
// publishes whatever the registry does: down, the version is printed, the
// failure goes to stderr (without the password) and stays queued; up, the
// next publish pushes both, latest is the newest and the timestamp names
// it; timestamp settings that cannot work are a usage error.
func TestPublishToRegistryCLI(t *testing.T) {
	dir := t.TempDir()
	seedOneTool(t, dir)
	ctx := context.Background()
	mustPublishCLI(t, dir, "keys", "rotate")

	reg := ocitest.New(t, ocitest.Options{Auth: true})
	credFile := filepath.Join(dir, "registry.json")
	if err := os.WriteFile(credFile, []byte(`{"username":"`+reg.Credentials.Username+`","password":"`+reg.Credentials.Password+`"}`), 0o600); err != nil {
		t.Fatal(err)
	}
	target := reg.Target("toolgate/bundles").String()
	publish := func() (string, string) {
		var out, errOut bytes.Buffer
		env := func(k string) string {
			if k == "TOOLGATE_DATA_DIR" {
				return dir
			}
			return ""
		}
		err := Run(ctx, []string{"publish", "--publish-to-registry", target, "--registry-credentials-file", credFile,
			"--registry-plain-http"}, env, strings.NewReader(""), &out, &errOut)
		if err != nil {
			t.Fatalf("publish: %v\n%s", err, errOut.String())
		}
		return strings.TrimSpace(out.String()), errOut.String()
	}
	v, stderr := publish()
	if v != "1" || !strings.Contains(stderr, "push to "+target+" failed") || strings.Contains(stderr, reg.Credentials.Password) {
		t.Fatalf("publish with the registry down: stdout %q, stderr %q", v, stderr)
	}
	reg.Start()
	v, stderr = publish()
	if v != "2" || strings.Contains(stderr, "failed") {
		t.Fatalf("publish with the registry up: stdout %q, stderr %q", v, stderr)
	}
	c, err := oci.New(reg.Target("toolgate/bundles"), oci.Options{PlainHTTP: true, Credentials: reg.Credentials})
	if err != nil {
		t.Fatal(err)
	}
	if latest, _, err := c.LatestVersion(ctx); err != nil || latest != 2 {
		t.Fatalf("latest = v%d, %v; want v2", latest, err)
	}
	// The push is followed by a timestamp naming v2 (R14).
	keyFile := filepath.Join(dir, "keys.json")
	writeCallFile(t, keyFile, []byte(mustPublishCLI(t, dir, "keys", "export")))
	wantTimestamp(t, c, keyFile, 2)

	for _, bad := range [][]string{{"--registry-timestamp-interval", "0s"}, {"--registry-timestamp-expiry", "30s"}} {
		_, err = publishCLI(t, dir, append([]string{"publish", "--publish-to-registry", target}, bad...)...)
		if exitCode(err) != 2 || !strings.Contains(err.Error(), "--registry-timestamp-expiry longer than it") {
			t.Fatalf("publish %v: %v, want a usage error", bad, err)
		}
	}

	_, err = publishCLI(t, dir, "publish", "--publish-to-registry", "https://x/y")
	if exitCode(err) != 2 || !strings.Contains(err.Error(), "want oci://") {
		t.Fatalf("bad registry location: %v", err)
	}
}
