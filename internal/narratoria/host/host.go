// Package host is a Narratoria host for trying tools out: it reads what a
// tool writes on stdout as it arrives, checks each event with the
// Narratoria rules of package validate, and applies it as the Narratoria
// application would: state_patch events merged into a session state (JSON
// Merge Patch, RFC 7396), assets registered (their files checked), the done
// event taken as the end of the invocation and events after it ignored. At
// the end it says what the invocation came to (Result).
//
// A Host reads an io.Reader and calls back for each event and violation;
// starting the tool, ending it, and showing events are the caller's:
// RunExec (command.go) is toonkit exec's run, with internal/toolproc
// running the tool and a Printer showing the events. StdinObject is what a host writes on the tool's stdin,
// its input one JSON object (ParseObject).
package host

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"
	"github.com/toonkit/toonkit/internal/codec/jsonv"
	"github.com/toonkit/toonkit/internal/toolproc"
	"github.com/toonkit/toonkit/internal/validate"
)

// Options configure a Host.
type Options struct {
	// Name names the stream in violations; "stdout" when empty.
	Name string
	// MaxLineSize bounds a line of the stream (a longer one is a violation
	// that stops the reading); 0: 64 MiB.
	MaxLineSize int
	// RequestID is the requestId sent to the tool, "" when none was: an
	// event that carries another one is a warning (EXE002).
	RequestID string
	// Dir is the folder that relative asset paths are taken from (the
	// tool's working directory); "": the working directory.
	Dir string
	// KeepViolations bounds how many violations Result lists (every one is
	// passed to OnViolation, and counted); 0: 1000.
	KeepViolations int
}

// The codes of the rules a host checks beyond those of validate.
const (
	CodeAssetFile = "EXE001" // an asset's path is not a readable file (spec 4.3)
	CodeRequestID = "EXE002" // an event's requestId is not the request's (a warning)
	CodeInternal  = "EXE000" // an event the rules passed that the host cannot apply: a bug
)

// Event is one line of the tool's stdout, as the host took it. The byte
// slices are valid only during OnEvent.
type Event struct {
	Line   int    // 1-based line number on the tool's stdout
	Raw    []byte // the line as read, without its LF
	Event  []byte // the JSON object it holds, without a CR; nil when none
	Type   string // the event's type; "" when it has none
	Errors int    // errors found in it (its violations follow OnEvent)
	// Ignored says why the host did not apply the event ("" when it did):
	// IgnoredAfterDone, IgnoredUnknownType, IgnoredInvalid.
	Ignored string

	// The fields of a valid event, by type. JSON values are compact.
	Level, Message          string         // log
	Fields                  jsontext.Value // log
	Patch                   jsontext.Value // state_patch
	Asset                   *Asset         // asset
	UIEvent                 string         // ui_event
	Payload                 jsontext.Value // ui_event
	ErrorCode, ErrorMessage string         // error
	Details                 jsontext.Value // error
	OK                      bool           // done
	Summary                 string         // done
}

// Why an event was not applied.
const (
	IgnoredAfterDone   = "after done"
	IgnoredUnknownType = "unknown type"
	IgnoredInvalid     = "breaks the rules"
)

// Asset is a registered asset.
type Asset struct {
	Line      int // the line of its event
	ID        string
	Kind      string
	MediaType string
	Path      string
	Metadata  jsontext.Value // nil when absent
	// Readable says the file at Path could be opened for reading when the
	// event came; Problem says why not.
	Readable bool
	Problem  string
}

// Done is the done event.
type Done struct {
	Line    int
	OK      bool // ok is true, in an event that breaks no rule
	Summary string
	Valid   bool // the event breaks no rule
}

// Host applies the events of one tool invocation.
type Host struct {
	// OnEvent, when set, is called for each line as it is read, before
	// the line's violations.
	OnEvent func(*Event)
	// OnViolation, when set, is called for each violation as it is found.
	OnViolation func(validate.Finding)

	opts   Options
	state  *State
	assets []Asset

	done             *Done
	lines            int
	errors, warnings int
	violations       []validate.Finding
	omitted          int
	pending          []validate.Finding
	stop             string // why the reading stopped before the end
	ev               Event
}

// New returns a host whose session state starts as state (nil: empty).
func New(opts Options, state *State) *Host {
	if opts.Name == "" {
		opts.Name = "stdout"
	}
	if opts.MaxLineSize <= 0 {
		opts.MaxLineSize = jsonv.DefaultMaxValueSize
	}
	if opts.KeepViolations <= 0 {
		opts.KeepViolations = 1000
	}
	if state == nil {
		state, _ = NewState(nil)
	}
	return &Host{opts: opts, state: state}
}

// Read reads the tool's stdout line by line, as it arrives, and applies
// each event. It returns at the end of the stream (end true), or before it
// (end false) when the protocol says to stop reading: an event of an
// unknown type (spec 5.2), a line longer than MaxLineSize. The caller then
// ends the tool. A read error is returned as it is.
func (h *Host) Read(r io.Reader) (end bool, err error) {
	n, end, err := validate.NarratoriaLines(r, h.opts.Name, validate.Options{MaxFrameSize: h.opts.MaxLineSize},
		func(f validate.Finding) bool { h.pending = append(h.pending, f); return true }, h.line)
	if !end && err == nil && h.stop == "" {
		h.stop = fmt.Sprintf("a line longer than %d bytes at %s", h.opts.MaxLineSize, where(h.opts.Name, n+1))
	}
	h.lines = n
	h.flush()
	return end, err
}

func where(name string, line int) string { return fmt.Sprintf("%s:%d", name, line) }

// flush hands on the violations found since the last call.
func (h *Host) flush() {
	for _, f := range h.pending {
		if f.Severity == validate.Warning {
			h.warnings++
		} else {
			h.errors++
		}
		if len(h.violations) < h.opts.KeepViolations {
			h.violations = append(h.violations, f)
		} else {
			h.omitted++
		}
		if h.OnViolation != nil {
			h.OnViolation(f)
		}
	}
	h.pending = h.pending[:0]
}

// line takes one line as the rules made it.
func (h *Host) line(l validate.Line) {
	h.ev = Event{Line: l.Number, Raw: l.Raw, Event: l.Event, Type: l.Type, Errors: l.Errors}
	ev := &h.ev
	isDone := l.Type == "done" && l.Event != nil && !l.AfterDone
	switch {
	case l.Stop:
		ev.Ignored = IgnoredUnknownType
		h.stop = fmt.Sprintf("an event of unknown type %q at %s", l.Type, where(h.opts.Name, l.Number))
	case l.AfterDone:
		ev.Ignored = IgnoredAfterDone
		if l.Event != nil && l.Errors == 0 {
			h.decode(l, ev) // to be shown
		}
	case l.Event == nil || l.Errors > 0:
		if !isDone {
			ev.Ignored = IgnoredInvalid
		}
	default:
		if err := h.decode(l, ev); err != nil {
			// The rules passed it, so this is not expected; say it.
			h.violate(l, "", CodeInternal, validate.Error, "cannot read the event: "+err.Error())
			ev.Ignored = IgnoredInvalid
			break
		}
		h.apply(l, ev)
	}
	if isDone {
		h.done = &Done{Line: l.Number, OK: ev.OK && l.Errors == 0, Summary: ev.Summary, Valid: l.Errors == 0}
	}
	if h.OnEvent != nil {
		h.OnEvent(ev)
	}
	h.flush()
}

// fields are the members of an event that the host reads, raw: a member
// that is another type's is ignored, whatever its value.
type fields struct {
	RequestID    jsontext.Value `json:"requestId"`
	Level        jsontext.Value `json:"level"`
	Message      jsontext.Value `json:"message"`
	Fields       jsontext.Value `json:"fields"`
	Patch        jsontext.Value `json:"patch"`
	AssetID      jsontext.Value `json:"assetId"`
	Kind         jsontext.Value `json:"kind"`
	MediaType    jsontext.Value `json:"mediaType"`
	Path         jsontext.Value `json:"path"`
	Metadata     jsontext.Value `json:"metadata"`
	Event        jsontext.Value `json:"event"`
	Payload      jsontext.Value `json:"payload"`
	ErrorCode    jsontext.Value `json:"errorCode"`
	ErrorMessage jsontext.Value `json:"errorMessage"`
	Details      jsontext.Value `json:"details"`
	OK           jsontext.Value `json:"ok"`
	Summary      jsontext.Value `json:"summary"`
}

// set sets the field of a member, read from a compact event in place.
func (f *fields) set(name []byte, v jsontext.Value) {
	switch string(name) {
	case "requestId":
		f.RequestID = v
	case "level":
		f.Level = v
	case "message":
		f.Message = v
	case "fields":
		f.Fields = v
	case "patch":
		f.Patch = v
	case "assetId":
		f.AssetID = v
	case "kind":
		f.Kind = v
	case "mediaType":
		f.MediaType = v
	case "path":
		f.Path = v
	case "metadata":
		f.Metadata = v
	case "event":
		f.Event = v
	case "payload":
		f.Payload = v
	case "errorCode":
		f.ErrorCode = v
	case "errorMessage":
		f.ErrorMessage = v
	case "details":
		f.Details = v
	case "ok":
		f.OK = v
	case "summary":
		f.Summary = v
	}
}

// decodeOptions take the escaped lone surrogates that the rules allow.
var decodeOptions = jsontext.AllowInvalidUTF8(true)

// decode fills in the fields of an event that broke no rule.
func (h *Host) decode(l validate.Line, ev *Event) error {
	var f fields
	escaped := false
	compact := jsonv.Members(ev.Event, func(name []byte, esc bool, v []byte) {
		escaped = escaped || esc
		f.set(name, v)
	})
	if !compact || escaped {
		// An escaped name: decoded (any white space is split as it is).
		f = fields{}
		if err := json.Unmarshal(ev.Event, &f, decodeOptions); err != nil {
			return err
		}
	}
	switch ev.Type {
	case "log":
		ev.Level, ev.Message, ev.Fields = str(f.Level), str(f.Message), compactValue(f.Fields)
	case "state_patch":
		ev.Patch = compactValue(f.Patch)
	case "asset":
		ev.Asset = &Asset{Line: ev.Line, ID: str(f.AssetID), Kind: str(f.Kind), MediaType: str(f.MediaType), Path: str(f.Path),
			Metadata: bytes.Clone(compactValue(f.Metadata))} // kept: not the line's bytes
	case "ui_event":
		ev.UIEvent, ev.Payload = str(f.Event), compactValue(f.Payload)
	case "error":
		ev.ErrorCode, ev.ErrorMessage, ev.Details = str(f.ErrorCode), str(f.ErrorMessage), compactValue(f.Details)
	case "done":
		ev.OK, ev.Summary = string(jsonv.TrimSpace(f.OK)) == "true", str(f.Summary)
	}
	if id := str(f.RequestID); f.RequestID != nil && h.opts.RequestID != "" && id != h.opts.RequestID {
		h.violate(l, "/requestId", CodeRequestID, validate.Warning,
			fmt.Sprintf("the requestId %q is not the request's, %q", id, h.opts.RequestID))
	}
	return nil
}

// str is a JSON string's value; "" for none.
func str(v jsontext.Value) string {
	if v = jsonv.TrimSpace(v); len(v) == 0 || v[0] != '"' {
		return ""
	}
	s, _ := jsontext.AppendUnquote(nil, v) // an escaped lone surrogate becomes U+FFFD
	return string(s)
}

// compactValue returns the compact form of a JSON value (itself when it is
// compact already), nil for none.
func compactValue(v jsontext.Value) jsontext.Value {
	if len(v) == 0 {
		return nil
	}
	return jsontext.Value(jsonv.Compacted(nil, v))
}

// apply applies a valid event before done.
func (h *Host) apply(l validate.Line, ev *Event) {
	switch ev.Type {
	case "state_patch":
		if err := h.state.Merge(ev.Patch); err != nil {
			h.violate(l, "/patch", CodeInternal, validate.Error, "cannot merge the patch: "+err.Error())
			ev.Ignored = IgnoredInvalid
		}
	case "asset":
		a := ev.Asset
		a.Readable, a.Problem = readable(h.opts.Dir, a.Path)
		if !a.Readable {
			h.violate(l, "/path", CodeAssetFile, validate.Error, fmt.Sprintf("the asset's file %q %s (spec 4.3: a file readable by the host)", a.Path, a.Problem))
		}
		h.assets = append(h.assets, *a)
	}
}

// readable says whether path (taken from dir when relative) is a file
// that can be opened for reading, and if not why.
func readable(dir, path string) (bool, string) {
	if !filepath.IsAbs(path) && dir != "" {
		path = filepath.Join(dir, path)
	}
	f, err := os.Open(path)
	if err != nil {
		var pe *fs.PathError
		switch {
		case errors.Is(err, fs.ErrNotExist):
			return false, "does not exist"
		case errors.As(err, &pe):
			return false, "cannot be read: " + pe.Err.Error()
		}
		return false, "cannot be read: " + err.Error()
	}
	defer f.Close()
	if fi, err := f.Stat(); err == nil && fi.IsDir() {
		return false, "is a directory"
	}
	return true, ""
}

// violate adds a violation of the host's rules at the field ptr of a line.
func (h *Host) violate(l validate.Line, ptr, code string, sev validate.Severity, msg string) {
	col, off := 1, int64(0)
	if l.Event != nil && ptr != "" {
		off = jsonv.PointerOffset(l.Event, ptr)
		col = len([]rune(string(l.Event[:off]))) + 1
	}
	h.pending = append(h.pending, validate.Finding{File: h.opts.Name, Line: l.Number, Column: col, Frame: -1,
		Offset: l.Offset + off, Record: l.Number - 1, Pointer: ptr, Code: code, Severity: sev, Message: msg})
}

// Exit is how the tool's process ended, as the caller saw it: the tool
// runner's (toolproc.Exit).
type Exit = toolproc.Exit

// Result is what the invocation came to.
type Result struct {
	Name     string // the stream's name, as in Options
	OK       bool
	ExitCode int // 0 ok; 1 failed; 3 the tool could not be started; or Exit.InterruptedCode
	// Reasons say why it failed, most telling first.
	Reasons []string
	Exit    Exit
	Done    *Done // nil when there was none
	Lines   int   // lines read from the tool's stdout
	// Stopped says why the reading stopped before the end of the stream;
	// "" when it did not.
	Stopped          string
	Errors, Warnings int
	// Violations holds the first Options.KeepViolations violations;
	// Omitted counts the others.
	Violations []validate.Finding
	Omitted    int
	Assets     []Asset
	State      *State
}

// Result says what the invocation came to, once the stream is read (or
// was not, when the tool could not be started) and the tool has ended: ok
// when the tool exited 0 and its one done event has ok true, with no
// protocol error (spec 4.6, 5.3).
func (h *Host) Result(e Exit) Result {
	r := Result{Name: h.opts.Name, Exit: e, Done: h.done, Lines: h.lines, Stopped: h.stop, Errors: h.errors, Warnings: h.warnings,
		Violations: h.violations, Omitted: h.omitted, Assets: h.assets, State: h.state}
	ended := false // the host ended the tool: its signal is no surprise
	switch {
	case e.StartError != "":
		r.Reasons = append(r.Reasons, "cannot start the tool: "+e.StartError)
		r.ExitCode = 3
		return r
	case e.Timeout > 0:
		r.Reasons = append(r.Reasons, "timed out after "+e.Timeout.String())
		ended = true
	case e.Interrupted != "":
		r.Reasons = append(r.Reasons, "interrupted by "+e.Interrupted)
		ended = true
	}
	if h.stop != "" {
		r.Reasons = append(r.Reasons, "reading stopped at "+h.stop)
		ended = true
	}
	switch {
	case e.Signal != "" && !ended:
		r.Reasons = append(r.Reasons, "the tool was ended by "+e.Signal)
	case e.Signal == "" && e.Status != 0:
		r.Reasons = append(r.Reasons, fmt.Sprintf("the tool exited with status %d", e.Status))
	}
	switch {
	case h.done == nil:
		r.Reasons = append(r.Reasons, "no done event")
	case !h.done.Valid:
		r.Reasons = append(r.Reasons, "the done event breaks the rules")
	case !h.done.OK:
		r.Reasons = append(r.Reasons, "done has ok false")
	}
	switch {
	case h.errors == 1:
		r.Reasons = append(r.Reasons, "1 protocol error")
	case h.errors > 1:
		r.Reasons = append(r.Reasons, fmt.Sprintf("%d protocol errors", h.errors))
	}
	r.OK = len(r.Reasons) == 0
	switch {
	case e.Interrupted != "":
		r.ExitCode = e.InterruptedCode
	case !r.OK:
		r.ExitCode = 1
	}
	return r
}
