package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func TestCheckNamesWhatTheTestsLeft(t *testing.T) {
	root := t.TempDir()
	file := filepath.Join(t.TempDir(), "before.txt")
	if err := save(root, file); err != nil {
		t.Fatal(err)
	}
	if err := check(root, file, 0); err != nil {
		t.Fatalf("nothing changed: %v", err)
	}
	// A package enables its unit and its daemon listens.
	wants := filepath.Join(root, "etc", "systemd", "system", "multi-user.target.wants")
	if err := os.MkdirAll(wants, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("/lib/systemd/system/docker-registry.service", filepath.Join(wants, "docker-registry.service")); err != nil {
		t.Fatal(err)
	}
	listening(t, root, "00000000:1388") // 0.0.0.0:5000
	start := time.Now()
	err := check(root, file, 5*time.Second)
	if err == nil {
		t.Fatal("a unit and a listener were added, check passed")
	}
	for _, want := range []string{"2 service entries", "enabled multi-user.target.wants/docker-registry.service", "listen tcp 0.0.0.0:5000"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q lacks %q", err, want)
		}
	}
	// An enabled unit does not go away by itself: check does not wait for it.
	if time.Since(start) > 2*time.Second {
		t.Errorf("check waited %v with an enabled unit", time.Since(start))
	}
}

// A listener that closes while check waits is not reported.
func TestCheckWaitsForAClosingListener(t *testing.T) {
	root := t.TempDir()
	file := filepath.Join(t.TempDir(), "before.txt")
	if err := save(root, file); err != nil {
		t.Fatal(err)
	}
	tcp := listening(t, root, "0100007F:1538") // 127.0.0.1:5432
	go func() {
		time.Sleep(300 * time.Millisecond)
		_ = os.WriteFile(tcp, []byte("header\n"), 0o644)
	}()
	if err := check(root, file, 5*time.Second); err != nil {
		t.Fatalf("the listener closed within the wait: %v", err)
	}
	if err := check(root, filepath.Join(root, "missing.txt"), 0); err == nil || !strings.Contains(err.Error(), "saved before the tests") {
		t.Errorf("a missing state file: %v", err)
	}
}

// listening writes root's /proc/net/tcp with one socket listening on addr
// (the kernel's hex form) and returns the file's path.
func listening(t *testing.T, root, addr string) string {
	t.Helper()
	tcp := filepath.Join(root, "proc", "net", "tcp")
	if err := os.MkdirAll(filepath.Dir(tcp), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(tcp, []byte("header\n   0: "+addr+" 00000000:0000 0A 0:0 0:0 0 0 0 77 1\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	return tcp
}
