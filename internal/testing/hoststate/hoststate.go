// Package hoststate records what a machine runs as services, so that `make
// test` can show it leaves none behind: the systemd units enabled under
// /etc/systemd/system (the symlinks in *.wants and *.requires), the SysV
// start links in /etc/rc2.d–rc5.d, and the TCP sockets listening in this
// network namespace. It reads files only, so it works the same whether or
// not systemd is running, and every path is under a root directory the
// tests point at a fixture tree.
package hoststate

import (
	"bufio"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"net/netip"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
)

// Kinds of entry, the first word of each line of a saved state.
const (
	Enabled = "enabled" // a unit enabled by a symlink: "multi-user.target.wants/postgresql.service"
	SysV    = "sysv"    // a SysV start link: "rc2.d/S01docker-registry"
	Listen  = "listen"  // a listening TCP socket: "tcp 127.0.0.1:5432", "tcp6 [::]:5000"
)

// State is the set of entries found, one per line as "kind value", sorted.
// Inodes maps a listening socket's line to its socket inode, to name the
// process that owns it; it is not saved.
type State struct {
	Lines  []string
	Inodes map[string]string
}

// Read records the state of the machine whose filesystem is root ("/" for
// this one). A directory that does not exist holds nothing (a machine
// without systemd has no /etc/systemd); any other read error is returned.
func Read(root string) (State, error) {
	s := State{Inodes: map[string]string{}}
	units := filepath.Join(root, "etc", "systemd", "system")
	for _, pattern := range []string{"*.wants/*", "*.requires/*"} {
		ms, err := filepath.Glob(filepath.Join(units, pattern))
		if err != nil {
			return State{}, err
		}
		for _, m := range ms {
			rel, _ := filepath.Rel(units, m)
			s.Lines = append(s.Lines, Enabled+" "+filepath.ToSlash(rel))
		}
	}
	for level := 2; level <= 5; level++ {
		dir := fmt.Sprintf("rc%d.d", level)
		ms, err := filepath.Glob(filepath.Join(root, "etc", dir, "S*"))
		if err != nil {
			return State{}, err
		}
		for _, m := range ms {
			s.Lines = append(s.Lines, SysV+" "+dir+"/"+filepath.Base(m))
		}
	}
	for _, proto := range []string{"tcp", "tcp6"} {
		if err := readListeners(filepath.Join(root, "proc", "net", proto), proto, &s); err != nil {
			return State{}, err
		}
	}
	slices.Sort(s.Lines)
	s.Lines = slices.Compact(s.Lines)
	return s, nil
}

// readListeners adds the sockets of a /proc/net/tcp{,6} table in state
// LISTEN (0A).
func readListeners(path, proto string, s *State) error {
	f, err := os.Open(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return err
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Scan() // the header
	for sc.Scan() {
		fields := strings.Fields(sc.Text())
		if len(fields) < 10 || fields[3] != "0A" {
			continue
		}
		addr, err := parseAddr(fields[1])
		if err != nil {
			return fmt.Errorf("%s: %w", path, err)
		}
		line := Listen + " " + proto + " " + addr.String()
		s.Lines = append(s.Lines, line)
		s.Inodes[line] = fields[9]
	}
	return sc.Err()
}

// parseAddr reads the kernel's "ADDR:PORT" hex form: the address is the
// in-memory bytes of 32-bit words in host order (little-endian here), the
// port big-endian hex.
func parseAddr(s string) (netip.AddrPort, error) {
	a, p, ok := strings.Cut(s, ":")
	raw, err := hex.DecodeString(a)
	if !ok || err != nil || (len(raw) != 4 && len(raw) != 16) {
		return netip.AddrPort{}, fmt.Errorf("address %q is not ADDR:PORT in hex", s)
	}
	port, err := strconv.ParseUint(p, 16, 16)
	if err != nil {
		return netip.AddrPort{}, fmt.Errorf("address %q: port: %w", s, err)
	}
	for i := 0; i < len(raw); i += 4 {
		binary.BigEndian.PutUint32(raw[i:], binary.LittleEndian.Uint32(raw[i:]))
	}
	addr, _ := netip.AddrFromSlice(raw)
	return netip.AddrPortFrom(addr, uint16(port)), nil
}

// Encode renders s one entry per line.
func (s State) Encode() []byte {
	if len(s.Lines) == 0 {
		return nil
	}
	return []byte(strings.Join(s.Lines, "\n") + "\n")
}

// Parse reads what Encode wrote; a line of another kind is an error, so a
// wrong file is not taken for an empty machine.
func Parse(b []byte) (State, error) {
	var s State
	for i, line := range strings.Split(string(b), "\n") {
		if line == "" {
			continue
		}
		kind, _, _ := strings.Cut(line, " ")
		if kind != Enabled && kind != SysV && kind != Listen {
			return State{}, fmt.Errorf("line %d: %q is not an entry of a saved host state", i+1, line)
		}
		s.Lines = append(s.Lines, line)
	}
	slices.Sort(s.Lines)
	return s, nil
}

// Added returns the entries of after that before does not have: what was
// enabled, linked or opened in between. Entries that went away are not
// reported; removing a service is not leaving one behind.
func Added(before, after State) []string {
	var out []string
	for _, l := range after.Lines {
		if _, found := slices.BinarySearch(before.Lines, l); !found {
			out = append(out, l)
		}
	}
	return out
}

// Owner names the process holding the socket with the given inode, as
// "pid 123: /usr/bin/docker-registry serve /etc/…", or "" when no process
// under root/proc has it open (it exited, or belongs to another user).
func Owner(root, inode string) string {
	target := "socket:[" + inode + "]"
	procs, _ := filepath.Glob(filepath.Join(root, "proc", "[0-9]*"))
	for _, p := range procs {
		fds, _ := os.ReadDir(filepath.Join(p, "fd"))
		for _, fd := range fds {
			if l, err := os.Readlink(filepath.Join(p, "fd", fd.Name())); err == nil && l == target {
				cmd, _ := os.ReadFile(filepath.Join(p, "cmdline"))
				return fmt.Sprintf("pid %s: %s", filepath.Base(p), strings.TrimSpace(strings.ReplaceAll(string(cmd), "\x00", " ")))
			}
		}
	}
	return ""
}
