package validate

import (
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/toonkit/toonkit/kado"
)

// Options configure a validation.
type Options struct {
	// MaxFrameSize bounds a frame's payload, or a record; 0: the default.
	MaxFrameSize int
	// Workers is the number of goroutines that check messages; <= 1
	// checks them on the caller's goroutine. Chiffon, Trace and
	// Narratoria spread the messages over the workers and apply the rules
	// across the stream in one ordered pass: the findings, their order
	// and the count of records are those of one worker, whatever the
	// input.
	Workers int
	// TOONIndent is the spaces per level of a TOON document (--indent);
	// 0 means 2.
	TOONIndent int

	chunk int // the bytes of input a worker is given at a time (0: 256 KiB); tests make it small
}

// Emit receives findings; it returns false to stop the validation (say,
// when --max-errors is reached).
type Emit func(Finding) bool

// The codes of the binary rules. The payload rules' codes (BIN010-BIN023)
// are in the schemas binary-*.json.
var frameCodes = map[kado.Problem]string{
	kado.TruncatedHeader:  "BIN001", // rule 1: at least 18 bytes
	kado.BadVersion:       "BIN002", // rule 2: version 1
	kado.BadType:          "BIN003", // rule 3: a known type
	kado.TruncatedPayload: "BIN004", // rule 4: payloadLength bytes present
	kado.TooLarge:         "BIN005",
	kado.BadPayload:       "BIN006",
}

// schemaOf names the payload schema of each message type.
func schemaOf(t kado.MessageType) string {
	return "binary-" + strings.ReplaceAll(strings.ToLower(t.String()), "_", "-")
}

// Binary validates a stream of Kado frames: the four rules of the spec per
// frame, each payload against its type's schema, and, as warnings, sequence
// ids that do not go up, timestamps that go back, RLE oddities and bytes
// after the last frame. A bad frame is reported and the stream is read on
// from the next plausible header. It returns the number of frames, and a
// read error if the stream could not be read.
func Binary(r io.Reader, name string, opts Options, emit Emit) (int, error) {
	s := &frameRun{rd: kado.NewReader(r, kado.ReaderOptions{MaxFrameSize: opts.MaxFrameSize}), name: name, emit: emit}
	if opts.Workers > 1 {
		return s.jobs(opts.Workers, opts.chunk)
	}
	for {
		more, err := s.step(s.rd.Next())
		if err != nil || !more {
			return s.frames, err
		}
	}
}

// frameRun is a stream of frames being checked, and the state of the
// rules across frames.
type frameRun struct {
	rd     *kado.Reader
	name   string
	emit   Emit
	frames int
	seq    seqState
	found  []Finding
}

// step checks what one call of Next gave; more is false at the end of the
// stream or when emit asks to stop.
func (s *frameRun) step(f *kado.Frame, err error) (more bool, _ error) {
	if err == io.EOF {
		return false, nil
	}
	var fe *kado.FrameError
	if errors.As(err, &fe) {
		more, frame := frameFinding(s.rd, s.name, fe, s.emit)
		if frame {
			s.frames++
		}
		return more, nil
	}
	if err != nil {
		return false, err
	}
	s.frames++
	if !s.order(f) {
		return false, nil
	}
	var bad bool
	s.found, bad, err = frameLocal(s.rd, f, s.name, s.found[:0])
	for _, x := range s.found {
		if !s.emit(x) {
			return false, nil
		}
	}
	if err != nil {
		return false, err
	}
	if bad {
		// A payload that is not JSON may have a wrong length: go on
		// from the next plausible header when its end is not one.
		s.rd.SkipBadPayload(f)
	}
	return true, nil
}

// order applies the rules across frames to f: sequence ids go up,
// timestamps do not go back (warnings). False when emit asks to stop.
func (s *frameRun) order(f *kado.Frame) bool {
	return s.seq.order(Finding{File: s.name, Frame: f.Index, Offset: f.Offset, Record: f.Index, Severity: Warning}, f, s.emit)
}

// seqState is what the rules across frames remember of one sender's
// stream: the last sequence id and timestamp.
type seqState struct {
	prevSeq uint32
	prevTS  uint64
	have    bool
}

// order applies the rules across frames to f, with base as the finding's
// place. False when emit asks to stop.
func (s *seqState) order(base Finding, f *kado.Frame, emit Emit) bool {
	h := f.Header
	if s.have && h.SequenceID <= s.prevSeq {
		w := base
		w.Offset, w.Pointer, w.Code = f.Offset+kado.OffSequenceID, "/header/sequenceId", "BIN030"
		w.Message = fmt.Sprintf("must be more than the previous frame's %d, found %d", s.prevSeq, h.SequenceID)
		if !emit(w) {
			return false
		}
	}
	if s.have && h.Timestamp < s.prevTS {
		w := base
		w.Offset, w.Pointer, w.Code = f.Offset+kado.OffTimestamp, "/header/timestamp", "BIN031"
		w.Message = fmt.Sprintf("goes back: %d is before the previous frame's %d", h.Timestamp, s.prevTS)
		if !emit(w) {
			return false
		}
	}
	s.prevSeq, s.prevTS, s.have = h.SequenceID, h.Timestamp, true
	return true
}

// frameLocal appends the findings of the rules of the good frame f alone:
// RLE oddities, a payload that is not JSON (bad is then true), the
// payload's schema. dec reads the payload (Reader.JSON); it may be
// another reader than the one f came from.
func frameLocal(dec *kado.Reader, f *kado.Frame, name string, found []Finding) (_ []Finding, bad bool, _ error) {
	base := Finding{File: name, Frame: f.Index, Offset: f.Offset, Record: f.Index, Severity: Warning}
	if f.Compressed() {
		for _, o := range kado.RLEOddities(f.Payload()[1:]) {
			w := base
			w.Offset, w.Pointer, w.Code = f.Offset+kado.HeaderSize+1+int64(o.Offset), "/payload", "BIN032"
			if strings.Contains(o.What, "zero") {
				w.Code = "BIN033"
			}
			w.Message = "RLE " + o.What + " (the TypeScript encoder never writes it)"
			found = append(found, w)
		}
	}
	js, err := dec.JSON(f)
	if err != nil {
		var fe *kado.FrameError
		if errors.As(err, &fe) {
			found = append(found, badPayload(name, fe))
		}
		return found, true, nil
	}
	v, err := decodeAny(js)
	if err != nil {
		return found, false, nil // checked above: cannot happen
	}
	issues, err := checkSchema(schemaOf(f.Header.Type), v)
	if err != nil {
		return found, false, err
	}
	for _, it := range issues {
		e := base
		e.Offset = f.Offset + kado.HeaderSize
		e.Pointer, e.Code, e.Severity, e.Message = "/payload"+it.Pointer, it.Code, it.Severity, it.Message
		found = append(found, e)
	}
	return found, false, nil
}

// badPayload is the finding of a frame whose payload is not JSON.
func badPayload(name string, fe *kado.FrameError) Finding {
	return Finding{File: name, Frame: fe.Frame, Offset: fe.ByteOffset, Record: fe.Frame, Code: frameCodes[fe.Kind], Severity: Error,
		Pointer: "/payload", Message: strings.TrimPrefix(fe.Error(), fmt.Sprintf("frame %d at byte %d: payload: ", fe.Frame, fe.ByteOffset))}
}

// frameFinding reports a frame that breaks a rule and moves the reader on.
// Bytes after the last frame that hold no plausible header are a warning,
// and no frame (frame false). more is false when emit says to stop.
func frameFinding(rd *kado.Reader, name string, fe *kado.FrameError, emit Emit) (more, frame bool) {
	if fe.Kind == kado.BadPayload {
		return emit(badPayload(name, fe)), true
	}
	skipped, found := rd.Resync()
	fin, frame := headerFinding(name, fe, skipped, found)
	return emit(fin), frame
}

// headerFinding is the finding of a frame whose header or length broke a
// rule, after which the reader passed over skipped bytes and found (or
// not) a plausible header. Bytes after the last frame that hold no
// plausible header are a warning, and no frame (frame false).
func headerFinding(name string, fe *kado.FrameError, skipped int64, found bool) (_ Finding, frame bool) {
	fin := Finding{File: name, Frame: fe.Frame, Offset: fe.ByteOffset, Record: fe.Frame, Code: frameCodes[fe.Kind], Severity: Error}
	fin.Pointer = "/header/" + fe.Field
	if fe.Field == "header" {
		fin.Pointer = "/header"
	}
	fin.Message = fmt.Sprintf("expected %s, found %s", fe.Expected, fe.Found)
	garbage := len(fe.Header) == 0 || fe.Header[0] != kado.Version || len(fe.Header) > 1 && !kado.MessageType(fe.Header[1]).Valid()
	if !found && garbage {
		return Finding{File: name, Frame: fe.Frame, Offset: fe.Offset, Record: -1, Code: "BIN034", Severity: Warning,
			Message: fmt.Sprintf("%d %s after the last frame are not a frame", skipped, plural(int(skipped), "byte", "bytes"))}, false
	}
	return fin, true
}
