package cli

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"

	"github.com/toonkit/toonkit/internal/toolproc"
)

// StartError is the error of toolproc's Start (or StartPiped) for a tool
// that was not started: a signal came first (the run ends with its exit
// status, nothing more said), no pipe could be made, or the tool cannot
// be started, with a hint that names how to run it: run is the command
// line before the tool ("toonkit exec --"). Its exit status is ExitIO.
func StartError(tool, run string, err error) error {
	var ie *toolproc.InterruptedError
	var pe *toolproc.PipeError
	switch {
	case errors.As(err, &ie):
		return Reported(ie.Code)
	case errors.As(err, &pe):
		return IOErrorf("%v", pe)
	}
	msg := toolproc.StartFailure(err)
	hint := ""
	switch {
	case errors.Is(err, exec.ErrNotFound) && !strings.ContainsRune(tool, filepath.Separator):
		if _, serr := os.Stat(tool); serr == nil {
			hint = fmt.Sprintf("a tool in this folder is named with its path: %s ./%s", run, tool)
		}
	case errors.Is(err, syscall.EACCES):
		hint = fmt.Sprintf("make it executable (chmod +x %s), or name its interpreter: %s sh %s", tool, run, tool)
	case errors.Is(err, syscall.ENOEXEC):
		hint = fmt.Sprintf("a script starts with a #! line, or name its interpreter: %s sh %s", run, tool)
	}
	return &ExitError{Code: ExitIO, Err: fmt.Errorf("cannot start %s: %s", tool, msg), Hint: hint}
}
