package kado

import (
	"errors"
	"fmt"
)

// FieldError says which header field broke a rule. Offset is relative to the
// start of the frame.
type FieldError struct {
	Kind     Problem
	Field    string
	Offset   int
	Size     int
	Expected string
	Found    string
}

func (e *FieldError) Error() string {
	return fmt.Sprintf("%s: expected %s, found %s", e.Field, e.Expected, e.Found)
}

// FrameError is a frame that could not be read. It carries the frame index
// (0-based), the absolute byte offset of the frame and of the failing byte,
// and the header bytes that were there (up to HeaderSize) for display.
type FrameError struct {
	Kind       Problem
	Frame      int
	Offset     int64 // where the frame starts
	ByteOffset int64 // the byte that broke the rule
	Field      string
	Expected   string
	Found      string
	Header     []byte // up to HeaderSize bytes from Offset
	Err        error  // the cause, when there is one (a JSON syntax error, say)
}

func (e *FrameError) Error() string {
	msg := fmt.Sprintf("frame %d at byte %d: %s", e.Frame, e.ByteOffset, e.Field)
	if e.Expected != "" || e.Found != "" {
		msg += fmt.Sprintf(": expected %s, found %s", e.Expected, e.Found)
	}
	if e.Err != nil {
		msg += ": " + e.Err.Error()
	}
	return msg
}

func (e *FrameError) Unwrap() error { return e.Err }

// Problem classifies a FrameError.
type Problem int

// The problems a frame can have.
const (
	BadVersion       Problem = iota + 1 // version byte is not 1
	BadType                             // type byte outside 1-8
	TooLarge                            // payloadLength above the limit
	TruncatedHeader                     // fewer than 18 bytes left
	TruncatedPayload                    // fewer than payloadLength bytes left
	BadPayload                          // payload does not decompress or is not JSON
)

// ErrTooLarge reports that a payload would exceed the configured maximum.
var ErrTooLarge = errors.New("payload exceeds the maximum frame size")
