package executor

import (
	"fmt"

	"github.com/google/uuid"

	"github.com/toolgate/toolgate/internal/bundle"
)

// CompileTool runs on one tool the compile step New runs on every tool of
// a bundle (the same functions, not a copy) and returns its refusal, or
// nil. The console calls it before anything is published, so a tool the
// executor would refuse never reaches a signed bundle: the person who
// asks for the change reads the executor's own reason.
func CompileTool(bt bundle.Tool, src bundle.Source) error {
	if bt.Source != src.Name {
		return fmt.Errorf("tool %q: source %q is not %q", bt.Name, bt.Source, src.Name)
	}
	s, err := compileSource(src)
	if err != nil {
		return err
	}
	_, err = compileTool(bt, s, uuid.NewString)
	return err
}
