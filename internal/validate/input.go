package validate

import (
	"bufio"
	"fmt"
	"io"
	"slices"

	"github.com/toonkit/toonkit/internal/capture"
	"github.com/toonkit/toonkit/internal/codec"
	"github.com/toonkit/toonkit/internal/records"
)

// Run is how `toonkit validate` checks each input: the format's built-in
// rules (As, or the format detected), a user's schema (User), or both.
//
// With User and no As, or As an encoding without rules (json, ndjson,
// toon), the records are checked against User alone, whatever they hold
// (no protocol need be detected). With As a format with rules and User,
// the rules run first, then User over a second read of the input
// (Input.Reopen), whose reader errors the first pass has reported.
type Run struct {
	As      codec.Format
	User    *UserSchema
	Options Options
	Capture capture.Options // the connections of a packet capture
}

// Input is one input of a Run.
type Input struct {
	Name string
	R    *bufio.Reader
	// Reopen reads the input again from its start, for As with rules and
	// User both (capture.ReopenFile gives one for a regular file); nil: it
	// cannot be read again.
	Reopen func() (io.Reader, error)
}

// ReadTwiceError is an input that a Run with rules and User both must read
// twice and cannot, having no Reopen (a pipe, say).
type ReadTwiceError struct{ Format codec.Format }

func (e *ReadTwiceError) Error() string {
	return fmt.Sprintf("a schema with the rules of %s reads each input twice: not a regular file", e.Format)
}

// UndetectedError is an input whose format (or, for JSON, protocol)
// cannot be told without As; Why says what was seen.
type UndetectedError struct {
	Protocol bool
	Why      string
}

// Hint is the next step to suggest.
func (e *UndetectedError) Hint() string {
	if e.Protocol {
		return "name it with --as (chiffon, trace, narratoria), or check it against a JSON Schema with --schema FILE"
	}
	return "name it with --as (binary, tabular, chiffon, trace, narratoria)"
}

func (e *UndetectedError) Error() string {
	if e.Protocol {
		return "cannot tell the protocol: " + e.Why
	}
	return "cannot tell the format: " + e.Why
}

// NoRulesError is an input of a format that has no built-in rules, met
// without a user's schema.
type NoRulesError struct{ Format codec.Format }

// Hint is the next step to suggest.
func (e *NoRulesError) Hint() string { return "check it against a JSON Schema with --schema FILE" }

func (e *NoRulesError) Error() string {
	return fmt.Sprintf("the input looks like %s, which validate does not check", e.Format)
}

// Formats are the formats Run.As takes: those with built-in rules, and
// with a user's schema json, ndjson and toon too, and no capture.
func Formats(user bool) []codec.Format {
	if user {
		return []codec.Format{codec.JSON, codec.NDJSON, codec.TOON, codec.Binary, codec.Tabular, codec.Chiffon, codec.Trace, codec.Narratoria}
	}
	return []codec.Format{codec.Binary, codec.Tabular, codec.TOON, codec.Chiffon, codec.Trace, codec.Narratoria, codec.Pcap}
}

// HasRules reports whether format has built-in rules (Check).
func HasRules(format codec.Format) bool { return slices.Contains(Formats(false), format) }

// File checks one input and returns its count of records. Its errors: an
// *UndetectedError, a *NoRulesError, a capture's *capture.FormatError or
// *capture.NoConnError, UserSchema.Validate's (ErrUserFormat, a
// *records.Error), or the input's read error.
func (run Run) File(in Input, emit Emit) (int, error) {
	uopts := UserOptions{Format: run.As, MaxFrameSize: run.Options.MaxFrameSize, TOONIndent: run.Options.TOONIndent}
	format := run.As
	if run.User != nil && format == "" && in.Reopen != nil {
		// A TOON document is checked as TOON first, its schema after.
		if d, err := records.Sniff(in.R); err == nil && d.Format == codec.TOON {
			format = codec.TOON
		}
	}
	if run.User != nil && !HasRules(format) {
		return run.User.Validate(in.R, in.Name, uopts, emit)
	}
	if format == "" {
		d, err := records.Sniff(in.R)
		if err != nil {
			return 0, err
		}
		if format = d.Format; format == "" {
			if _, err := in.R.Peek(1); err == io.EOF {
				return 0, nil // an empty file holds no records
			}
			return 0, &UndetectedError{Why: d.Why}
		}
	}
	if format == codec.JSON {
		prefix, _ := in.R.Peek(64 << 10)
		d := codec.DetectProtocol(prefix)
		if d.Format == "" {
			return 0, &UndetectedError{Protocol: true, Why: d.Why}
		}
		format = d.Format
	}
	if format == codec.TOON && run.User != nil && in.Reopen == nil {
		// Read once (a pipe): the schema's pass decodes the document,
		// and reports its first problem as TOON (SCH000).
		return run.User.Validate(in.R, in.Name, uopts, emit)
	}
	problems := 0
	if format == codec.TOON {
		inner := emit
		emit = func(f Finding) bool { problems++; return inner(f) }
	}
	n, err := Check(in.R, in.Name, format, run.Options, run.Capture, emit)
	if format == codec.TOON && problems > 0 {
		return n, err // a document that is not TOON has no value to check
	}
	if err == ErrNoRules {
		return 0, &NoRulesError{format}
	}
	if err != nil || run.User == nil {
		return n, err
	}
	if in.Reopen == nil {
		return n, &ReadTwiceError{Format: format}
	}
	again, err := in.Reopen()
	if err != nil {
		return n, err
	}
	uopts.Again = true
	_, err = run.User.Validate(again, in.Name, uopts, emit)
	return n, err
}
