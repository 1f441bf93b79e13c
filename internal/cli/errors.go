package cli

import (
	"errors"
	"fmt"

	"github.com/toonkit/toonkit/internal/capture"
	"github.com/toonkit/toonkit/internal/codec/jsonv"
	"github.com/toonkit/toonkit/internal/codec/tabular"
	"github.com/toonkit/toonkit/internal/records"
	"github.com/toonkit/toonkit/kado"
)

// FrameError turns a reader error into a user-facing one with the file name
// and a hint where one is known, for a command that has --keep-going.
func FrameError(name string, err error, keepGoing bool) error {
	return FrameErrorSkip(name, err, keepGoing, "--keep-going")
}

// FrameErrorSkip is frameError for any command: skipper is what skips bad
// frames, the command's own --keep-going or decode's.
func FrameErrorSkip(name string, err error, keepGoing bool, skipper string) error {
	var fe *kado.FrameError
	if !errors.As(err, &fe) {
		return InvalidError(fmt.Errorf("%s: %w", name, err), "")
	}
	hint := ""
	switch {
	case keepGoing:
		// The run goes on; the notes that follow say what was skipped.
	case fe.Frame == 0 && fe.Offset == 0 && (fe.Kind == kado.BadVersion || fe.Kind == kado.BadType || fe.Kind == kado.TruncatedHeader):
		hint = "this does not look like binary TOON frames; 'toonkit inspect' shows the bytes"
		if len(fe.Header) > 0 && (fe.Header[0] == '{' || fe.Header[0] == '[') {
			hint = "the input looks like JSON; to encode it: " + EncodeCommands(name)
		}
	case fe.Kind == kado.TooLarge || errors.Is(err, kado.ErrTooLarge):
		hint = "raise --max-frame-size if such frames are expected"
	default:
		hint = fmt.Sprintf("toonkit inspect --frame %d %s shows the bytes; %s skips bad frames", fe.Frame, ShellArg(name), skipper)
	}
	return InvalidError(fmt.Errorf("%s: %w", name, err), hint)
}

// EncodeCommands names, runnable as printed, the commands that encode the
// JSON input that was given to decode.
func EncodeCommands(name string) string {
	return fmt.Sprintf("toonkit encode --to toon %[1]s (TOON text), or toonkit encode --to binary %[1]s (frames)", ShellArg(name))
}

// MoveNotes says how far the reader moved on after the bad frame of err.
func MoveNotes(notef func(format string, args ...any), err error, m kado.Moved) {
	for _, n := range m.Notes(err) {
		notef("%s", n)
	}
}

// Plural is one for n == 1, many otherwise.
func Plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

// CaptureError is a problem in a capture as the user sees it.
func CaptureError(name string, err error, keepGoing bool) error {
	hint := ""
	var fe *kado.FrameError
	switch {
	case keepGoing:
	case errors.As(err, &fe) && (fe.Kind == kado.TooLarge || errors.Is(err, kado.ErrTooLarge)):
		hint = "raise --max-frame-size if such frames are expected"
	case errors.Is(err, capture.ErrTooManyConns):
		hint = "--port N reads only the connections on port N"
	default:
		hint = "--keep-going reports each problem and goes on"
	}
	return InvalidError(fmt.Errorf("%s: %w", name, err), hint)
}

// IsExitError tells whether err is, or wraps, an *ExitError.
func IsExitError(err error) bool {
	var ee *ExitError
	return errors.As(err, &ee)
}

// NoConnError is a --conn or --port that selects no connection of the
// capture.
func NoConnError(name string, err error) (error, bool) {
	var ne *capture.NoConnError
	if !errors.As(err, &ne) {
		return err, false
	}
	hint := "--conn takes one of the connections listed, either end first"
	switch {
	case len(ne.Conns) == 0:
		hint = "--port and --conn select among the TCP connections of a capture"
	case len(ne.Ports) > 0 && ne.Want.IsValid():
		hint = "with both, a connection is read when it is on a --port and is the --conn"
	case len(ne.Ports) > 0:
		hint = "--port takes a port of one of the connections listed"
	}
	return InvalidError(fmt.Errorf("%s: %w", name, err), hint), true
}

// EncodeError renders an error of kado.EncodeStream on input name.
func EncodeError(name string, err error) error {
	var ee *kado.EncodeError
	if !errors.As(err, &ee) {
		var x *ExitError
		if errors.As(err, &x) {
			return err // the handler's: the output failed
		}
		return ReadError(name, err)
	}
	var se *jsonv.SyntaxError
	switch {
	case ee.Kind == kado.ValueTooLarge:
		return InvalidError(fmt.Errorf("%s:%w", name, ee.Err), "raise --max-frame-size if such values are expected")
	case errors.As(ee.Err, &se):
		return &ExitError{Code: ExitInvalid, Err: fmt.Errorf("%s:%w", name, se), Excerpt: se, Hint: EncodeHint(ee.Kind)}
	}
	return InvalidError(fmt.Errorf("%s:%w", name, ee), "")
}

// EncodeHint is the hint for a value that cannot be framed.
func EncodeHint(kind kado.EncodeProblem) string {
	switch kind {
	case kado.UnknownType:
		return "name it with --type (instruction, tool_call, tool_result, status, error, heartbeat, context_request, context_response)"
	case kado.SeqOverflow:
		return "start lower with --seq"
	case kado.TextMessage:
		return "--skip-text leaves such records out (decode shows text messages; no frame carries them)"
	}
	return ""
}

// JSONReadError reports an error of the JSON stream reader.
func JSONReadError(name string, err error) error {
	var se *jsonv.SyntaxError
	if errors.As(err, &se) {
		return &ExitError{Code: ExitInvalid, Err: fmt.Errorf("%s:%w", name, se), Excerpt: se}
	}
	if errors.Is(err, jsonv.ErrTooLarge) {
		return InvalidError(fmt.Errorf("%s:%w", name, err), "raise --max-frame-size if such values are expected")
	}
	return ReadError(name, err)
}

// PositionedError prefixes a positioned error with the file name.
func PositionedError(name string, err error) error {
	var ee *ExitError
	if errors.As(err, &ee) {
		if se, ok := ee.Err.(*jsonv.SyntaxError); ok {
			ee.Err = fmt.Errorf("%s:%w", name, se)
			ee.Excerpt = se
		}
		return ee
	}
	var se *jsonv.SyntaxError
	if errors.As(err, &se) {
		return &ExitError{Code: ExitInvalid, Err: fmt.Errorf("%s:%w", name, se), Excerpt: se}
	}
	return InvalidError(fmt.Errorf("%s: %w", name, err), "")
}

// TOONError makes a TOON decoding error a user-facing one: a syntax error
// with its line, column and excerpt, or a failed read or write.
func TOONError(name string, out *Output, err error) error {
	var se *jsonv.SyntaxError
	switch {
	case out != nil && out.Err() != nil:
		return out.Err()
	case errors.As(err, &se):
		return &ExitError{Code: ExitInvalid, Err: fmt.Errorf("%s:%w", name, se), Excerpt: se}
	}
	return ReadError(name, err)
}

// Failure prefers the output's own error (which names the output) to the
// error a writer returned for it.
func Failure(out *Output, err error) error {
	if out.Err() != nil {
		return out.Err()
	}
	return err
}

// RowError renders an error of a records.TableSink: a record that is no
// object (with hint), or no row; other errors pass as they are.
func RowError(err error, hint string) error {
	var re *records.RowError
	switch {
	case errors.Is(err, tabular.ErrNotObject):
		return InvalidError(err, hint)
	case errors.As(err, &re):
		return InvalidError(err, "")
	}
	return err
}

// RefuseLossy names the first lossy cells of a table that would not read
// back as written, and refuses it.
func RefuseLossy(rep *Reporter, lossy *records.LossyError, hint string) error {
	for _, l := range lossy.First {
		rep.Errorf("%s: %s", l.Input, l.Lossy)
	}
	return InvalidError(lossy, hint)
}

// DuplicateKeysHint is the hint of a JSON object whose member names
// repeat, for the commands that have --duplicate-keys.
const DuplicateKeysHint = "--duplicate-keys last keeps the last value, as jq does"

// DuplicateKeys gives err, when it is the *ExitError of a repeated member
// name (jsonv.SyntaxError.DuplicateName) without a hint, DuplicateKeysHint;
// it returns err.
func DuplicateKeys(err error) error {
	var ee *ExitError
	var se *jsonv.SyntaxError
	if errors.As(err, &ee) && ee.Hint == "" && errors.As(err, &se) && se.DuplicateName {
		ee.Hint = DuplicateKeysHint
	}
	return err
}
