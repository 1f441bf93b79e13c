package cli

import (
	"errors"
	"fmt"
	"io/fs"
	"strings"

	"github.com/toonkit/toonkit/internal/codec/jsonv"
	"github.com/toonkit/toonkit/internal/paint"
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

// Error is the message, or "exit status N" when there is none.
func (e *ExitError) Error() string {
	if e.Err == nil {
		return fmt.Sprintf("exit status %d", e.Code)
	}
	return e.Err.Error()
}

func (e *ExitError) Unwrap() error { return e.Err }

// UsageErrorf is a usage error (exit status 2) with a hint.
func UsageErrorf(hint, format string, args ...any) error {
	return &ExitError{Code: ExitUsage, Err: fmt.Errorf(format, args...), Hint: hint}
}

// InvalidError is err as an invalid input (exit status 1), with a hint.
func InvalidError(err error, hint string) error {
	return &ExitError{Code: ExitInvalid, Err: err, Hint: hint}
}

// IOErrorf is an I/O error (exit status 3).
func IOErrorf(format string, args ...any) error {
	return &ExitError{Code: ExitIO, Err: fmt.Errorf(format, args...)}
}

// Reported is the exit status of a run whose errors were already printed.
func Reported(code int) error { return &ExitError{Code: code, Reported: true} }

// ExitCode maps any error to an exit code. Errors that do not carry a code
// are usage errors when they come from parsing the command line (cobra),
// and I/O errors when they are file-system errors.
func ExitCode(err error, ranCommand bool) int {
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

// Reporter prints errors, warnings, notes and hints on stderr, each line
// "toonkit: LABEL: text", the labels painted (paint.Error, paint.Warning,
// paint.Hint) when stderr gets color.
type Reporter struct {
	ios *IOStreams
	pt  paint.Func
}

// NewReporter returns the reporter of ios's stderr.
func NewReporter(ios *IOStreams) *Reporter {
	return &Reporter{ios: ios, pt: ios.StderrPaint()}
}

// Errorf prints an error.
func (r *Reporter) Errorf(format string, args ...any) {
	fmt.Fprintf(r.ios.ErrOut, "toonkit: %s: %s\n", r.pt.Paint(paint.Error, "error"), fmt.Sprintf(format, args...))
}

// Warnf prints a warning, unless --quiet.
func (r *Reporter) Warnf(format string, args ...any) {
	if r.ios.Quiet {
		return
	}
	fmt.Fprintf(r.ios.ErrOut, "toonkit: %s: %s\n", r.pt.Paint(paint.Warning, "warning"), fmt.Sprintf(format, args...))
}

// Notef prints a note, unless --quiet.
func (r *Reporter) Notef(format string, args ...any) {
	if r.ios.Quiet {
		return
	}
	fmt.Fprintf(r.ios.ErrOut, "toonkit: %s\n", fmt.Sprintf(format, args...))
}

// Hint prints each line of h as a hint, unless --quiet.
func (r *Reporter) Hint(h string) {
	if h == "" || r.ios.Quiet {
		return
	}
	for _, line := range strings.Split(h, "\n") {
		fmt.Fprintf(r.ios.ErrOut, "toonkit: %s: %s\n", r.pt.Paint(paint.Hint, "hint"), line)
	}
}

// Excerpt prints a source line with a caret under the error's column.
func (r *Reporter) Excerpt(se *jsonv.SyntaxError) {
	if se == nil || se.Excerpt == "" {
		return
	}
	fmt.Fprintf(r.ios.ErrOut, "    %s\n    %s%s\n", se.Excerpt, strings.Repeat(" ", se.Caret), r.pt.Paint(paint.Error, "^"))
}

// Report prints an error (unless it was reported already) and returns its
// exit code.
func (r *Reporter) Report(err error, ranCommand bool) int {
	code := ExitCode(err, ranCommand)
	var ee *ExitError
	if errors.As(err, &ee) && ee.Reported {
		return code
	}
	r.Errorf("%s", err)
	if errors.As(err, &ee) {
		r.Excerpt(ee.Excerpt)
		r.Hint(ee.Hint)
		r.Hint(jsonv.Hint(err)) // the JSON reader's: NaN is not JSON
	}
	if code == ExitUsage && (ee == nil || ee.Hint == "" && !ee.NotUsage) {
		r.Hint("run 'toonkit --help' for usage")
	}
	return code
}

// ReportWriteError is the I/O error of a report (stdout) that could not be
// written: exit status 3.
func ReportWriteError(err error) error {
	return IOErrorf("cannot write the report: %s", PathErrText(err))
}

// EndReport ends a run that printed a report: closeErr and flush are the
// report's closing and the output's flush, either an I/O error; then the
// exit status of what the report said: 3 when an input could not be read,
// 1 when it found a problem, 0 otherwise (each reported already).
func EndReport(closeErr error, flush func() error, unreadable int, ok bool) error {
	if closeErr != nil {
		return ReportWriteError(closeErr)
	}
	if err := flush(); err != nil {
		return ReportWriteError(err)
	}
	switch {
	case unreadable > 0:
		return Reported(ExitIO)
	case !ok:
		return Reported(ExitInvalid)
	}
	return nil
}
