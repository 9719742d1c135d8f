// Command hoststate saves what a machine runs as services and later checks
// that nothing was added: `make test` saves before it installs anything and
// checks after the last test.
//
//	hoststate [-root DIR] save FILE
//	hoststate [-root DIR] [-wait 10s] check FILE
//
// check exits 1 naming each unit enabled, SysV start link added or TCP
// socket listening that FILE does not have, with the process holding the
// socket. A socket may still be closing when the last test returns, so
// listeners are read again until they are gone or -wait has passed.
package main

import (
	"flag"
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/toolgate/toolgate/internal/testing/hoststate"
)

func main() {
	root := flag.String("root", "/", "the machine's filesystem root")
	wait := flag.Duration("wait", 10*time.Second, "how long check waits for new listeners to close")
	flag.Usage = func() {
		fmt.Fprintln(os.Stderr, "usage: hoststate [-root DIR] save FILE | hoststate [-root DIR] [-wait D] check FILE")
		flag.PrintDefaults()
	}
	flag.Parse()
	if flag.NArg() != 2 || (flag.Arg(0) != "save" && flag.Arg(0) != "check") {
		flag.Usage()
		os.Exit(2)
	}
	var err error
	if flag.Arg(0) == "save" {
		err = save(*root, flag.Arg(1))
	} else {
		err = check(*root, flag.Arg(1), *wait)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "hoststate:", err)
		os.Exit(1)
	}
}

func save(root, file string) error {
	s, err := hoststate.Read(root)
	if err != nil {
		return err
	}
	return os.WriteFile(file, s.Encode(), 0o644)
}

func check(root, file string, wait time.Duration) error {
	b, err := os.ReadFile(file)
	if err != nil {
		return fmt.Errorf("reading the state saved before the tests: %w", err)
	}
	before, err := hoststate.Parse(b)
	if err != nil {
		return fmt.Errorf("%s: %w", file, err)
	}
	deadline := time.Now().Add(wait)
	for {
		after, err := hoststate.Read(root)
		if err != nil {
			return err
		}
		added := hoststate.Added(before, after)
		if len(added) == 0 {
			fmt.Printf("hoststate: no service enabled or listening that was not before the tests (%d entries before and after)\n",
				len(before.Lines))
			return nil
		}
		if !onlyListeners(added) || time.Now().After(deadline) {
			var lines []string
			for _, l := range added {
				if owner := hoststate.Owner(root, after.Inodes[l]); owner != "" {
					l += " (" + owner + ")"
				}
				lines = append(lines, "  "+l)
			}
			return fmt.Errorf("the tests left %d service entries behind that were not there before (%s):\n%s",
				len(added), file, strings.Join(lines, "\n"))
		}
		time.Sleep(200 * time.Millisecond)
	}
}

func onlyListeners(lines []string) bool {
	for _, l := range lines {
		if !strings.HasPrefix(l, hoststate.Listen+" ") {
			return false
		}
	}
	return true
}
