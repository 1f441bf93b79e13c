package cmd

import (
	"errors"
	"fmt"
	"io/fs"
	"strings"

	"github.com/fatih/color"
	"github.com/toonkit/toonkit/internal/codec/jsonv"
)

// Exit codes, the same for every command.
const (
	ExitOK      = 0
	ExitInvalid = 1 // the input is invalid, a check failed, a signature did not verify
	ExitUsage   = 2 // the command line is wrong
	ExitIO      = 3 // an input could not be read or an output could not be written
)

// ExitError is an error that carries its exit code and, optionally, a hint
// for the next step. Reported means it was already printed.
type ExitError struct {
	Code     int
	Err      error
	Hint     string
	Excerpt  *jsonv.SyntaxError // a line with a caret under the error, for text input
	Reported bool
	// NotUsage marks a Code equal to ExitUsage that is no usage error
	// (query gives input errors jq's status 2): no usage hint is added.
	NotUsage bool
}

func (e *ExitError) Error() string {
	if e.Err == nil {
		return fmt.Sprintf("exit status %d", e.Code)
	}
	return e.Err.Error()
}

func (e *ExitError) Unwrap() error { return e.Err }

func usageErrorf(hint, format string, args ...any) error {
	return &ExitError{Code: ExitUsage, Err: fmt.Errorf(format, args...), Hint: hint}
}

func invalidError(err error, hint string) error {
	return &ExitError{Code: ExitInvalid, Err: err, Hint: hint}
}

func ioErrorf(format string, args ...any) error {
	return &ExitError{Code: ExitIO, Err: fmt.Errorf(format, args...)}
}

// reported is the exit status of a run whose errors were already printed.
func reported(code int) error { return &ExitError{Code: code, Reported: true} }

// exitCode maps any error to an exit code. Errors that do not carry a code
// are usage errors when they come from parsing the command line (cobra),
// and I/O errors when they are file-system errors.
func exitCode(err error, ranCommand bool) int {
	var ee *ExitError
	if errors.As(err, &ee) {
		return ee.Code
	}
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return ExitIO
	}
	if !ranCommand {
		return ExitUsage
	}
	return ExitInvalid
}

// reporter prints errors, warnings and hints on stderr.
type reporter struct {
	ios                          *IOStreams
	errLabel, warnLabel, hintLbl func(string) string
	dim                          func(string) string
}

func newReporter(ios *IOStreams) *reporter {
	c := ios.ColorStderr()
	return &reporter{ios: ios,
		errLabel:  paint(c, color.FgRed, color.Bold),
		warnLabel: paint(c, color.FgYellow, color.Bold),
		hintLbl:   paint(c, color.FgCyan),
		dim:       paint(c, color.Faint),
	}
}

func (r *reporter) errorf(format string, args ...any) {
	fmt.Fprintf(r.ios.ErrOut, "toonkit: %s: %s\n", r.errLabel("error"), fmt.Sprintf(format, args...))
}

func (r *reporter) warnf(format string, args ...any) {
	if r.ios.Quiet {
		return
	}
	fmt.Fprintf(r.ios.ErrOut, "toonkit: %s: %s\n", r.warnLabel("warning"), fmt.Sprintf(format, args...))
}

func (r *reporter) notef(format string, args ...any) {
	if r.ios.Quiet {
		return
	}
	fmt.Fprintf(r.ios.ErrOut, "toonkit: %s\n", fmt.Sprintf(format, args...))
}

func (r *reporter) hint(h string) {
	if h == "" || r.ios.Quiet {
		return
	}
	for _, line := range strings.Split(h, "\n") {
		fmt.Fprintf(r.ios.ErrOut, "toonkit: %s: %s\n", r.hintLbl("hint"), line)
	}
}

// excerpt prints a source line with a caret under the error's column.
func (r *reporter) excerpt(se *jsonv.SyntaxError) {
	if se == nil || se.Excerpt == "" {
		return
	}
	fmt.Fprintf(r.ios.ErrOut, "    %s\n    %s%s\n", se.Excerpt, strings.Repeat(" ", se.Caret), r.errLabel("^"))
}

// report prints an error (unless it was reported already) and returns its
// exit code.
func (r *reporter) report(err error, ranCommand bool) int {
	code := exitCode(err, ranCommand)
	var ee *ExitError
	if errors.As(err, &ee) && ee.Reported {
		return code
	}
	r.errorf("%s", err)
	if errors.As(err, &ee) {
		r.excerpt(ee.Excerpt)
		r.hint(ee.Hint)
		r.hint(jsonv.Hint(err)) // the JSON reader's: NaN is not JSON
	}
	if code == ExitUsage && (ee == nil || ee.Hint == "" && !ee.NotUsage) {
		r.hint("run 'toonkit --help' for usage")
	}
	return code
}
