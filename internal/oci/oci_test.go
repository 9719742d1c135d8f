package oci_test

import (
	"bytes"
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"oras.land/oras-go/v2/registry/remote"

	"github.com/toolgate/toolgate/internal/oci"
	"github.com/toolgate/toolgate/internal/testing/ocitest"
)

func client(t *testing.T, target oci.Target, creds oci.Credentials) *oci.Client {
	t.Helper()
	c, err := oci.New(target, oci.Options{PlainHTTP: true, Credentials: creds, MaxBytes: 1 << 20})
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func artifact(v int64) oci.Artifact {
	return oci.Artifact{Version: v, Signed: []byte("header.payload-v" + string(rune('0'+v)) + ".sig"),
		IssuedAt: time.Date(2026, 1, 1, 0, 0, int(v), 0, time.UTC)}
}

func TestPushPullRoundTrip(t *testing.T) {
	reg := ocitest.Start(t, ocitest.Options{Auth: true})
	ctx := t.Context()
	c := client(t, reg.Target("toolgate/bundles"), reg.Credentials)
	a := artifact(1)
	p, err := c.Push(ctx, a)
	if err != nil {
		t.Fatal(err)
	}
	if !p.Latest || p.LatestVersion != 1 || !strings.HasPrefix(p.Digest, "sha256:") {
		t.Fatalf("push = %+v", p)
	}
	// Idempotent: the same artifact again is the same manifest.
	if again, err := c.Push(ctx, a); err != nil || again.Digest != p.Digest {
		t.Fatalf("second push = %+v, %v; want digest %s", again, err, p.Digest)
	}
	for _, tag := range []string{oci.TagLatest, "v1"} {
		got, err := c.Pull(ctx, tag, "")
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got.Signed, a.Signed) || got.Digest != p.Digest || got.NotModified {
			t.Fatalf("pull %s = %+v", tag, got)
		}
	}
	got, err := c.Pull(ctx, oci.TagLatest, p.Digest)
	if err != nil || !got.NotModified || got.Signed != nil {
		t.Fatalf("conditional pull = %+v, %v; want not modified", got, err)
	}
	if _, err := c.Pull(ctx, "v9", ""); !errors.Is(err, oci.ErrNotFound) {
		t.Fatalf("pull of a missing tag: %v, want ErrNotFound", err)
	}
}

func TestPushNeverMovesLatestBack(t *testing.T) {
	reg := ocitest.Start(t, ocitest.Options{})
	ctx := t.Context()
	c := client(t, reg.Target("bundles"), oci.Credentials{})
	for _, v := range []int64{1, 3} {
		if _, err := c.Push(ctx, artifact(v)); err != nil {
			t.Fatal(err)
		}
	}
	// v2 arrives late (a retried push, or a second console).
	p, err := c.Push(ctx, artifact(2))
	if err != nil {
		t.Fatal(err)
	}
	if p.Latest || p.LatestVersion != 3 {
		t.Fatalf("late push of v2 = %+v, want latest left at v3", p)
	}
	if v, _, err := c.LatestVersion(ctx); err != nil || v != 3 {
		t.Fatalf("latest = v%d, %v", v, err)
	}
	if got, err := c.Pull(ctx, "v2", ""); err != nil || !bytes.Equal(got.Signed, artifact(2).Signed) {
		t.Fatalf("v2 tag: %+v, %v", got, err)
	}
}

func TestRepairLatestAfterRace(t *testing.T) {
	reg := ocitest.Start(t, ocitest.Options{})
	ctx := t.Context()
	c := client(t, reg.Target("bundles"), oci.Credentials{})
	for _, v := range []int64{4, 5} {
		if _, err := c.Push(ctx, artifact(v)); err != nil {
			t.Fatal(err)
		}
	}
	// A pusher of v4 read latest (v3) before v5 was tagged and tagged
	// latest after it: latest points back at v4.
	repo, err := remote.NewRepository(reg.Addr + "/bundles")
	if err != nil {
		t.Fatal(err)
	}
	repo.PlainHTTP = true
	desc, err := repo.Resolve(ctx, "v4")
	if err != nil {
		t.Fatal(err)
	}
	if err := repo.Tag(ctx, desc, oci.TagLatest); err != nil {
		t.Fatal(err)
	}
	// That pusher checks after tagging (as every Push does) and repairs.
	p, err := c.Push(ctx, artifact(4))
	if err != nil || p.Latest || p.LatestVersion != 5 {
		t.Fatalf("push v4 = %+v, %v; want latest repaired to v5", p, err)
	}
	if v, _, err := c.LatestVersion(ctx); err != nil || v != 5 {
		t.Fatalf("latest = v%d, %v; want v5", v, err)
	}
}

func TestCredentialsNeverInErrors(t *testing.T) {
	reg := ocitest.Start(t, ocitest.Options{Auth: true})
	ctx, cancel := context.WithTimeout(t.Context(), 20*time.Second)
	defer cancel()
	wrong := oci.Credentials{Username: reg.Credentials.Username, Password: "wrong-password-zyx"}
	c := client(t, reg.Target("bundles"), wrong)
	_, err := c.Push(ctx, artifact(1))
	if err == nil {
		t.Fatal("push with a wrong password succeeded")
	}
	if strings.Contains(err.Error(), wrong.Password) || strings.Contains(err.Error(), reg.Credentials.Password) {
		t.Fatalf("error leaks the password: %v", err)
	}
	if _, err := client(t, reg.Target("bundles"), oci.Credentials{}).Pull(ctx, "latest", ""); err == nil {
		t.Fatal("anonymous pull from an authenticated registry succeeded")
	}
	if s := wrong.String() + " " + wrong.GoString(); strings.Contains(s, wrong.Password) {
		t.Fatalf("Credentials formatting leaks the password: %s", s)
	}
}

func TestPullRefusesForeignArtifacts(t *testing.T) {
	reg := ocitest.Start(t, ocitest.Options{})
	ctx := t.Context()
	target := reg.Target("bundles")
	big, err := oci.New(target, oci.Options{PlainHTTP: true})
	if err != nil {
		t.Fatal(err)
	}
	a := oci.Artifact{Version: 1, Signed: bytes.Repeat([]byte("x"), 4096)}
	if _, err := big.Push(ctx, a); err != nil {
		t.Fatal(err)
	}
	small, err := oci.New(target, oci.Options{PlainHTTP: true, MaxBytes: 1024})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := small.Pull(ctx, "latest", ""); err == nil || !strings.Contains(err.Error(), "want 1..1024") {
		t.Fatalf("oversized layer: %v", err)
	}
}
