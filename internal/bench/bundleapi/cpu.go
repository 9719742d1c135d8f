package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"
)

// clockTick is the unit of utime and stime in /proc/PID/stat (USER_HZ,
// 100 on Linux).
const clockTick = 10 * time.Millisecond

// procCPU is the user and system CPU time the processes have used. A
// server's CPU time per request is what the rate of a dedicated machine
// would follow, and unlike the rate it barely moves when other programs
// share the cores: on a shared machine it is the steadier measure of what
// one request costs.
func procCPU(pids []int) (time.Duration, error) {
	var total time.Duration
	for _, pid := range pids {
		f, err := statFields(pid)
		if err != nil {
			return 0, err
		}
		for _, i := range []int{11, 12} { // utime, stime (fields 14 and 15 of proc(5))
			n, err := strconv.ParseInt(f[i], 10, 64)
			if err != nil {
				return 0, fmt.Errorf("cpu time of %d: %w", pid, err)
			}
			total += time.Duration(n) * clockTick
		}
	}
	return total, nil
}

// childrenOf lists the processes whose parent is pid (nginx's workers).
func childrenOf(pid int) ([]int, error) {
	dirs, err := filepath.Glob("/proc/[0-9]*")
	if err != nil {
		return nil, err
	}
	var out []int
	for _, d := range dirs {
		child, err := strconv.Atoi(filepath.Base(d))
		if err != nil {
			continue
		}
		f, err := statFields(child)
		if err != nil {
			continue // exited meanwhile
		}
		if f[1] == strconv.Itoa(pid) {
			out = append(out, child)
		}
	}
	return out, nil
}

// statFields are the fields of /proc/PID/stat after the command name (which
// may hold spaces): state is [0], ppid [1], utime [11], stime [12].
func statFields(pid int) ([]string, error) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return nil, err
	}
	s := string(b)
	i := strings.LastIndexByte(s, ')')
	if i < 0 {
		return nil, fmt.Errorf("/proc/%d/stat: no command name", pid)
	}
	f := strings.Fields(s[i+1:])
	if len(f) < 13 {
		return nil, fmt.Errorf("/proc/%d/stat: %d fields", pid, len(f))
	}
	return f, nil
}
