package oci_test

import (
	"bytes"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/toolgate/toolgate/internal/oci"
	"github.com/toolgate/toolgate/internal/testing/ocitest"
)

func TestTimestampPushPull(t *testing.T) {
	reg := ocitest.Start(t, ocitest.Options{Auth: true})
	ctx := t.Context()
	c := client(t, reg.Target("toolgate/bundles"), reg.Credentials)
	if _, err := c.PullTimestamp(ctx, ""); !errors.Is(err, oci.ErrNotFound) {
		t.Fatalf("pull before any push: %v, want ErrNotFound", err)
	}
	if _, err := c.Push(ctx, artifact(1)); err != nil {
		t.Fatal(err)
	}
	first := []byte("header.stamp-1.sig")
	d1, err := c.PushTimestamp(ctx, 1, first, time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC))
	if err != nil {
		t.Fatal(err)
	}
	got, err := c.PullTimestamp(ctx, "")
	if err != nil || !bytes.Equal(got.Signed, first) || got.Digest != d1 {
		t.Fatalf("pull = %+v, %v; want the pushed timestamp under %s", got, err, d1)
	}
	if got, err := c.PullTimestamp(ctx, d1); err != nil || !got.NotModified {
		t.Fatalf("conditional pull = %+v, %v; want not modified", got, err)
	}
	// Re-signed: the tag moves to the new manifest.
	second := []byte("header.stamp-2.sig")
	d2, err := c.PushTimestamp(ctx, 1, second, time.Date(2026, 1, 1, 0, 1, 0, 0, time.UTC))
	if err != nil || d2 == d1 {
		t.Fatalf("second push = %s, %v", d2, err)
	}
	if got, err := c.PullTimestamp(ctx, d1); err != nil || got.NotModified || !bytes.Equal(got.Signed, second) {
		t.Fatalf("pull after re-signing = %+v, %v", got, err)
	}
	// The two artifacts are not mistaken for each other, and the bundle
	// tags are untouched.
	if _, err := c.Pull(ctx, oci.TagTimestamp, ""); err == nil || !strings.Contains(err.Error(), "not a bundle") {
		t.Errorf("timestamp pulled as a bundle: %v", err)
	}
	if v, _, err := c.LatestVersion(ctx); err != nil || v != 1 {
		t.Errorf("latest = v%d, %v", v, err)
	}
	if _, err := c.PushTimestamp(ctx, 1, bytes.Repeat([]byte("x"), 5000), time.Now()); err == nil {
		t.Error("an oversized timestamp was pushed")
	}
}
