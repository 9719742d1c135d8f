package cli

import (
	"github.com/alecthomas/kong"

	"fmt"
	"runtime/debug"
)

// Version is set at build time with -ldflags "-X ...cli.Version=v1.2.3";
// otherwise the module build info is used.
var Version = ""

func version() string {
	if Version != "" {
		return Version
	}
	if bi, ok := debug.ReadBuildInfo(); ok {
		for _, s := range bi.Settings {
			if s.Key == "vcs.revision" && len(s.Value) >= 12 {
				return "dev-" + s.Value[:12]
			}
		}
	}
	return "dev"
}

type versionCmd struct{}

func (versionCmd) Run(env *Env) error {
	_, err := fmt.Fprintf(env.Stdout, "toolgate %s\n", version())
	return err
}

type helpCmd struct {
	Command []string `arg:"" optional:"" help:"Show help for this command."`
}

func (h helpCmd) Run(k *kong.Context) error {
	args := append(append([]string{}, h.Command...), "--help")
	_, err := k.Kong.Parse(args)
	return err
}
