package hoststate

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

const tcpHeader = "  sl  local_address rem_address   st tx_queue rx_queue tr tm->when retrnsmt   uid  timeout inode\n"

// machine writes a fixture root: files maps a path under root to its
// content, links a symlink under root to its target.
func machine(t *testing.T, files, links map[string]string) string {
	t.Helper()
	root := t.TempDir()
	for p, content := range files {
		write(t, filepath.Join(root, p), content)
	}
	for p, target := range links {
		link(t, filepath.Join(root, p), target)
	}
	return root
}

func write(t *testing.T, path, content string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

func link(t *testing.T, path, target string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(target, path); err != nil {
		t.Fatal(err)
	}
}

func tcpRow(local, state, inode string) string {
	return "   0: " + local + " 00000000:0000 " + state + " 00000000:00000000 00:00000000 00000000     0        0 " + inode + " 1 0000000000000000 100 0 0 10 0\n"
}

func TestReadFindsUnitsLinksAndListeners(t *testing.T) {
	root := machine(t, map[string]string{
		"etc/rc2.d/S01postgresql":      "",
		"etc/rc2.d/K01docker-registry": "", // a stop link: nothing starts
		"etc/rc5.d/S01postgresql":      "",
		"etc/rc1.d/S01single":          "", // single-user level: not a running system
		"proc/net/tcp": tcpHeader +
			tcpRow("0100007F:1538", "0A", "111") + // 127.0.0.1:5432 listening
			tcpRow("00000000:1388", "0A", "222") + // 0.0.0.0:5000 listening
			tcpRow("0100007F:9C40", "01", "333"), // established: not a service
		"proc/net/tcp6": tcpHeader +
			tcpRow("00000000000000000000000001000000:1388", "0A", "444") + // [::1]:5000
			tcpRow("00000000000000000000000000000000:0050", "0A", "555"), // [::]:80
	}, map[string]string{
		"etc/systemd/system/multi-user.target.wants/postgresql.service": "/lib/systemd/system/postgresql.service",
		"etc/systemd/system/sockets.target.requires/x.socket":           "/lib/systemd/system/x.socket",
		"etc/systemd/system/postgresql.service.d/override.conf":         "/dev/null", // a drop-in, not an enablement
	})
	s, err := Read(root)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{
		"enabled multi-user.target.wants/postgresql.service",
		"enabled sockets.target.requires/x.socket",
		"listen tcp 0.0.0.0:5000",
		"listen tcp 127.0.0.1:5432",
		"listen tcp6 [::1]:5000",
		"listen tcp6 [::]:80",
		"sysv rc2.d/S01postgresql",
		"sysv rc5.d/S01postgresql",
	}
	if !slices.Equal(s.Lines, want) {
		t.Errorf("read\n%s\nwant\n%s", strings.Join(s.Lines, "\n"), strings.Join(want, "\n"))
	}
	if s.Inodes["listen tcp 127.0.0.1:5432"] != "111" || s.Inodes["listen tcp6 [::1]:5000"] != "444" {
		t.Errorf("inodes %v", s.Inodes)
	}
}

// A machine without systemd, SysV links or /proc/net (a minimal container)
// holds nothing, and saying so is not an error.
func TestReadEmptyMachine(t *testing.T) {
	s, err := Read(t.TempDir())
	if err != nil || len(s.Lines) != 0 {
		t.Fatalf("%v %v", s.Lines, err)
	}
	if b := s.Encode(); b != nil {
		t.Errorf("encoded %q", b)
	}
	if p, err := Parse(nil); err != nil || len(p.Lines) != 0 {
		t.Errorf("parse of empty: %v %v", p.Lines, err)
	}
}

func TestReadRefusesAMalformedTable(t *testing.T) {
	root := machine(t, map[string]string{"proc/net/tcp": tcpHeader + tcpRow("XYZ:1538", "0A", "1")}, nil)
	if _, err := Read(root); err == nil || !strings.Contains(err.Error(), `"XYZ:1538"`) {
		t.Fatalf("err %v, want the bad address named", err)
	}
}

// Added reports what appeared between two reads, whichever way the entries
// are ordered, and ignores what went away; a saved state parses back to
// the same lines.
func TestAddedAfterARoundTrip(t *testing.T) {
	before := State{Lines: []string{"enabled a.target.wants/x.service", "listen tcp 127.0.0.1:22", "sysv rc2.d/S01dbus"}}
	saved, err := Parse(before.Encode())
	if err != nil || !slices.Equal(saved.Lines, before.Lines) {
		t.Fatalf("round trip %v %v", saved.Lines, err)
	}
	after := State{Lines: []string{"enabled a.target.wants/x.service", "enabled multi-user.target.wants/docker-registry.service",
		"listen tcp6 [::]:5000", "sysv rc2.d/S01dbus"}}
	got := Added(saved, after)
	want := []string{"enabled multi-user.target.wants/docker-registry.service", "listen tcp6 [::]:5000"}
	if !slices.Equal(got, want) {
		t.Errorf("added %v, want %v", got, want)
	}
	if got := Added(after, after); len(got) != 0 {
		t.Errorf("nothing changed, added %v", got)
	}
}

func TestParseRefusesAnotherFile(t *testing.T) {
	if _, err := Parse([]byte("{\"Action\":\"pass\"}\n")); err == nil || !strings.Contains(err.Error(), "line 1") {
		t.Fatalf("err %v", err)
	}
}

func TestOwnerNamesTheProcess(t *testing.T) {
	root := machine(t, map[string]string{
		"proc/42/cmdline": "/usr/bin/docker-registry\x00serve\x00/etc/docker/registry/config.yml\x00",
		"proc/7/cmdline":  "sshd\x00",
	}, map[string]string{
		"proc/42/fd/0": "/dev/null",
		"proc/42/fd/5": "socket:[9001]",
		"proc/7/fd/3":  "socket:[12]",
	})
	if got, want := Owner(root, "9001"), "pid 42: /usr/bin/docker-registry serve /etc/docker/registry/config.yml"; got != want {
		t.Errorf("owner %q, want %q", got, want)
	}
	if got := Owner(root, "900"); got != "" {
		t.Errorf("an inode nobody holds: %q", got)
	}
}
