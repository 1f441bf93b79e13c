package records

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"iter"
	"sync"

	"github.com/toonkit/toonkit/internal/codec"
	"github.com/toonkit/toonkit/internal/codec/csvin"
	"github.com/toonkit/toonkit/internal/codec/jsonv"
	"github.com/toonkit/toonkit/internal/codec/tabular"
	"github.com/toonkit/toonkit/internal/codec/yamlin"
	"github.com/toonkit/toonkit/internal/toonx"
	"github.com/toonkit/toonkit/kado"
)

// utf8BOM is the UTF-8 byte order mark, which JSON and TOON readers skip.
var utf8BOM = []byte("\xEF\xBB\xBF")

// TrimBOM is p without the UTF-8 byte order mark it may start with.
func TrimBOM(p []byte) []byte { return bytes.TrimPrefix(p, utf8BOM) }

// SourceOptions configure NewSource.
type SourceOptions struct {
	// Format is the input's encoding; "" takes it from the name's
	// extension for YAML, CSV and TSV (.yaml, .yml, .csv, .tsv: these are
	// never detected from the bytes), and detects it otherwise (Sniff).
	// Chiffon, trace and Narratoria messages are read as JSON (an array
	// of them, or NDJSON).
	Format codec.Format
	// Blank is the format of an input that detection finds to hold only
	// white space; "" makes such an input an Undetected error.
	Blank codec.Format
	// MaxSize bounds a record, a line or a frame (the readers' limits);
	// 0: their defaults.
	MaxSize int
	// Regular says that the input is a regular file, which never waits
	// for more: Each then reads it ahead in a goroutine, unless
	// NoReadAhead.
	Regular bool
	// NoReadAhead makes Each read on the caller's goroutine: for a caller
	// whose work per record is small (decode writing frames' records),
	// the read-ahead's copies cost more than they save (decode -j 1 of
	// 200 MB of frames: 0.27 s at 114% CPU read ahead, 0.24 s at 100%
	// without).
	NoReadAhead bool
	// Capture reads a packet capture (pcapsrc.Reader, which selects its
	// connections), its frames at most MaxSize bytes long; nil: a capture
	// is Unsupported.
	Capture CaptureReader
}

// A CaptureReader reads the frames of a packet capture for a Source.
// records does not import internal/capture, so that a program that reads
// no capture does not link gopacket: internal/records/pcapsrc holds the
// one toonkit uses.
type CaptureReader interface {
	// Frames yields the frames of the capture in r, each at most
	// maxFrameSize bytes long, or errors: a *Error of kind BadCapture
	// (its Name left for the Source to set), a *CaptureEvent, or a read
	// error.
	Frames(r io.Reader, maxFrameSize int) iter.Seq2[CaptureFrame, error]
}

// A CaptureEvent is what a CaptureReader yields, as its error, for a
// problem in the capture that reading goes on past (Problem: a hole, a
// bad frame), or for a note of how it went on (a resynchronisation, the
// packets passed over). Source passes a problem to Skip, or stops with it
// as a CaptureProblem; a note goes to Note, or is passed over.
type CaptureEvent struct {
	Problem bool
	Err     error
	Moved   *kado.Moved // how the reader moved on past a problem, when known
}

func (e *CaptureEvent) Error() string { return e.Err.Error() }

// A CaptureFrame appends a frame of a capture to dst as decode's record
// (flat: a flat one, without its source). It is valid until the next
// frame is read.
type CaptureFrame func(dst []byte, flat bool) []byte

// Source reads the records of one input as compact JSON values (unless
// Raw): the elements of a JSON array (or the values of a JSON stream),
// NDJSON lines, the records of a TOON document (decoded in a goroutine),
// the rows of a Genesis table, Kado frames as decode's records (or flat,
// or their payloads), or the frames of a packet capture. It knows the
// place of each record (Where), and whether the input has nothing more
// buffered (Idle), so that a caller may flush its output for a live
// stream. Its errors are *Error.
//
// The fields are set, if at all, before the first Next or Each.
type Source struct {
	// Flat gives binary frames as flat records (the rows of a table).
	Flat bool
	// Raw gives JSON records as they are written, not compacted.
	Raw bool
	// Whole reads a JSON or TOON document as one record, a root array
	// too (query: each value an input, as in jq).
	Whole bool
	// Payload gives binary frames' payloads alone.
	Payload bool
	// TOON are the TOON decoder's options.
	TOON toonx.DecodeOptions
	// CSVStrings keeps every cell of CSV and TSV input a string
	// (csvin.Options.Strings: --csv-strings).
	CSVStrings bool
	// Skip, when not nil, makes a bad binary frame and a capture's
	// problem (a hole, a bad frame) no error: Next gives it to Skip, an
	// *Error of Kind BadFrame or CaptureProblem, with how the reader moved
	// on past it when that is known (decode --keep-going's notes), and
	// goes on with the next record.
	Skip func(err *Error, moved *kado.Moved)
	// Note, when not nil, receives a capture's notes (how reading went on
	// after a hole, the packets passed over), which Next passes over.
	Note func(err error)

	name    string
	format  codec.Format
	regular bool
	maxSize int // SourceOptions.MaxSize

	noReadAhead bool
	br          *bufio.Reader

	jr      *jsonv.Reader
	jopts   jsonv.Options // jr's, for JSON input
	td      *tabular.Decoder
	yr      *yamlin.Reader // YAML, made at the first record (Whole is known then)
	cr      *csvin.Reader  // CSV and TSV, likewise
	ts      *toonSource    // TOON: decoded in a goroutine, read as NDJSON by jr
	bd      *kado.Reader
	rec     []byte
	capNext func() (CaptureFrame, error, bool) // a capture's frames (iter.Pull2)
	capStop func()

	cur   recPos // the position of the record next last read
	shown recPos // the position of the record last handed out, for messages
	frame []byte // the binary frame last read (Frame)

	pipelined bool // Each reads ahead in a goroutine
}

// recPos is a record's place in its input: a text position, or a frame.
type recPos struct {
	pos   jsonv.Position
	frame int
}

// ErrorKind tells what a Source's *Error is about.
type ErrorKind int

const (
	// ReadFailed: reading the input failed; Err is the reader's error.
	ReadFailed ErrorKind = iota
	// Undetected: the input's format cannot be told; Err says why.
	Undetected
	// Unsupported: the input looks like Format, which a Source does not
	// read.
	Unsupported
	// BadJSON: a JSON or NDJSON record is not valid or passes MaxSize
	// (a *jsonv.SyntaxError, or jsonv.ErrTooLarge).
	BadJSON
	// BadTOON: the TOON decoder failed (a *jsonv.SyntaxError with the
	// position, or another of its errors).
	BadTOON
	// BadTable: a row of a table is not valid (a *jsonv.SyntaxError).
	BadTable
	// BadFrame: a binary frame is not valid (a *kado.FrameError), or
	// its payload is not JSON.
	BadFrame
	// BadCapture: the capture file is not a valid pcap or pcapng file
	// (a *capture.FormatError), or holds no connection that
	// the SourceOptions.Capture selects (a *capture.NoConnError).
	BadCapture
	// CaptureProblem: a problem in a capture's streams (a hole, a bad
	// frame): the error of a capture.Problem record.
	CaptureProblem
	// TooLarge: a document read whole (ReadAll) passes its limit.
	TooLarge
	// Invalid: a value is not valid where a reader of the records found
	// it (query.Inputs: not valid JSON, not a JSON value); Err's message
	// says what and where, the input's name first.
	Invalid
	// BadYAML: YAML that is not valid or has no JSON form, or passes a
	// limit (a *yamlin.Error).
	BadYAML
	// BadCSV: a CSV or TSV table that is not valid: a ragged row, a bad
	// header, a quote out of place, a row too large (a *csvin.Error).
	BadCSV
)

// Error is an error of a Source: the input's Name, what went wrong (Kind)
// and the reader's error (Err), which carries the position where there is
// one.
type Error struct {
	Name   string
	Kind   ErrorKind
	Format codec.Format // Unsupported: the format detected
	Err    error
}

func (e *Error) Error() string {
	switch e.Kind {
	case Undetected:
		return fmt.Sprintf("%s: cannot tell the input format: %v", e.Name, e.Err)
	case Unsupported:
		return fmt.Sprintf("%s: the input looks like %s, which is not read as records", e.Name, e.Format)
	case Invalid:
		return e.Err.Error()
	}
	var se *jsonv.SyntaxError
	if errors.As(e.Err, &se) {
		return fmt.Sprintf("%s:%v", e.Name, se) // FILE:LINE:COL: ...
	}
	return fmt.Sprintf("%s: %v", e.Name, e.Err)
}

func (e *Error) Unwrap() error { return e.Err }

// JSONError is the error of a jsonv.Reader reading input name: BadJSON for
// a value that is not valid or too large, ReadFailed otherwise.
func JSONError(name string, err error) *Error {
	var se *jsonv.SyntaxError
	if errors.As(err, &se) || errors.Is(err, jsonv.ErrTooLarge) {
		return &Error{Name: name, Kind: BadJSON, Err: err}
	}
	return &Error{Name: name, Kind: ReadFailed, Err: err}
}

// NewSource reads the records of r, named name in messages. Without
// opts.Format it detects the format from the first bytes (Sniff); an
// empty input is JSON, no records.
func NewSource(r io.Reader, name string, opts SourceOptions) (*Source, error) {
	s := &Source{name: name, br: bufio.NewReaderSize(r, 64<<10), format: opts.Format, regular: opts.Regular, maxSize: opts.MaxSize, noReadAhead: opts.NoReadAhead}
	switch opts.Format {
	case codec.Chiffon, codec.Trace, codec.Narratoria:
		s.format = codec.JSON // messages: a JSON array of them, or NDJSON
	}
	if s.format == "" {
		s.format, _ = codec.InputFormatForExt(name)
	}
	if s.format == "" {
		d, err := Sniff(s.br)
		if err != nil {
			return nil, &Error{Name: name, Kind: ReadFailed, Err: err}
		}
		switch d.Format {
		case codec.JSON, codec.Tabular, codec.Binary, codec.TOON, codec.Pcap:
			s.format = d.Format
		case "":
			if _, err := s.br.Peek(1); err == io.EOF {
				s.format = codec.JSON // an empty input: no records
				break
			}
			if p, _ := s.br.Peek(s.br.Buffered()); opts.Blank != "" && len(jsonv.TrimSpace(TrimBOM(p))) == 0 {
				s.format = opts.Blank
				break
			}
			return nil, &Error{Name: name, Kind: Undetected, Err: errors.New(d.Why)}
		default:
			return nil, &Error{Name: name, Kind: Unsupported, Format: d.Format}
		}
	}
	maxSize := opts.MaxSize
	switch s.format {
	case codec.JSON, codec.NDJSON:
		s.jopts = jsonv.Options{MaxValueSize: int64(maxSize), Elements: s.format == codec.JSON}
		s.jr = jsonv.NewReader(s.br, s.jopts)
	case codec.Tabular:
		s.td = tabular.NewDecoder(s.br, tabular.DecoderOptions{MaxLineSize: maxSize})
	case codec.Binary:
		s.bd = kado.NewReader(s.br, kado.ReaderOptions{MaxFrameSize: maxSize})
	case codec.Pcap:
		if opts.Capture == nil {
			return nil, &Error{Name: name, Kind: Unsupported, Format: s.format}
		}
		s.capNext, s.capStop = iter.Pull2(opts.Capture.Frames(s.br, maxSize))
	}
	return s, nil
}

// Name is the input's name, as NewSource was given it.
func (s *Source) Name() string { return s.name }

// Regular reports whether the input is a regular file
// (SourceOptions.Regular), which never waits for more; other inputs may be
// live.
func (s *Source) Regular() bool { return s.regular }

// Format is the input's encoding: the one named or detected.
func (s *Source) Format() codec.Format { return s.format }

// Reader is the buffered input. It is the Source's: a caller may peek at
// it before the first record, or hand the input to a reader of its own
// (Run) and go on with ReadOn or SetTable.
func (s *Source) Reader() *bufio.Reader { return s.br }

// ReadOn makes the JSON or NDJSON records come from jr, which reads on
// from where another reader of the input stopped (the Reader that Run
// returns).
func (s *Source) ReadOn(jr *jsonv.Reader) { s.jr = jr }

// AllowNonFinite, when allow is true, makes NaN, Infinity and -Infinity
// values of a JSON input, as Python's json.loads reads them
// (jsonv.Options.NonFinite), for TOON output, which writes them as null
// (toonx.EncodeOptions.NonFinite). It must come before the first record is
// read.
func (s *Source) AllowNonFinite(allow bool) {
	if allow && s.jr != nil && s.format != codec.TOON && !s.jopts.NonFinite {
		s.jopts.NonFinite = true
		s.jr = jsonv.NewReader(s.br, s.jopts)
	}
}

// KeepDuplicates makes a JSON input's objects whose member names repeat
// records with one member of each name, as keep says
// (jsonv.Options.Duplicates), instead of errors. It must come before the
// first record is read, and applies to the records Next gives: a Copy
// with Workers of 2 or more does not see it.
func (s *Source) KeepDuplicates(keep jsonv.Duplicates) {
	if s.jr != nil && s.format != codec.TOON && s.jopts.Duplicates != keep {
		s.jopts.Duplicates = keep
		s.jr = jsonv.NewReader(s.br, s.jopts)
	}
}

// Table is the decoder of a table's rows, nil for other formats.
func (s *Source) Table() *tabular.Decoder { return s.td }

// SetTable makes a table's rows come from td, which reads on from where
// another reader of the input stopped (tabular.DecodeStream's rest).
func (s *Source) SetTable(td *tabular.Decoder) { s.td = td }

// Sniff detects the format from as few bytes as decide it, so that a live
// stream is not held back waiting for more: what is buffered, then one
// byte more at a time. White space before the first value is passed over
// as far as br's buffer reaches (64 KiB for a Source's reader); an input
// that does not tell by then is left undecided, with the reason in Why.
func Sniff(br *bufio.Reader) (codec.Detection, error) {
	for n := 1; ; n++ {
		n = min(max(n, br.Buffered()), br.Size())
		p, err := br.Peek(n)
		if err != nil && err != io.EOF && err != bufio.ErrBufferFull {
			return codec.Detection{}, err
		}
		if len(p) < n {
			return codec.DetectWhole(p), nil
		}
		d := codec.Detect(p)
		if !d.NeedsMore() {
			return d, nil
		}
		if n == br.Size() {
			if len(jsonv.TrimSpace(TrimBOM(p))) == 0 {
				d.Why = fmt.Sprintf("its first %d KiB hold only white space", n>>10)
			} else {
				d.Why = fmt.Sprintf("its first %d KiB do not tell", n>>10)
			}
			return d, nil
		}
	}
}

// Next returns the next record, valid until the next call; io.EOF at the
// end. Where then names its place.
func (s *Source) Next() ([]byte, error) {
	rec, err := s.next()
	if err == nil {
		s.shown = s.cur
	}
	return rec, err
}

// next returns the next record and notes its place in cur.
func (s *Source) next() ([]byte, error) {
	if s.format == codec.TOON && s.ts == nil {
		s.jr = jsonv.NewReader(s.StartTOON(!s.Whole), jsonv.Options{MaxValueSize: 1 << 62})
	}
	if codec.InputOnly(s.format) {
		return s.nextInputOnly()
	}
	switch {
	case s.jr != nil:
		v, pos, err := s.jr.Next()
		if err != nil {
			if s.ts != nil {
				if terr := s.ts.failure(); terr != nil {
					return nil, &Error{Name: s.name, Kind: BadTOON, Err: terr}
				}
			}
			if err == io.EOF {
				return nil, err
			}
			return nil, JSONError(s.name, err)
		}
		s.cur.pos = pos
		if s.Raw {
			return v, nil
		}
		return jsonv.CompactInPlace(v), nil
	case s.td != nil:
		obj, line, err := s.td.Next()
		if err != nil {
			if err == io.EOF {
				return nil, err
			}
			var se *jsonv.SyntaxError
			if errors.As(err, &se) {
				return nil, &Error{Name: s.name, Kind: BadTable, Err: se}
			}
			return nil, &Error{Name: s.name, Kind: ReadFailed, Err: err}
		}
		s.cur.pos = jsonv.Position{Line: line, Column: 1}
		return obj, nil
	case s.capNext != nil:
		return s.nextCaptured()
	case s.bd == nil:
		return nil, io.EOF
	}
	f, js, err := s.nextFrame()
	if err != nil {
		return nil, err
	}
	s.cur.frame, s.frame = f.Index, f.Raw
	return s.frameRecord(f, js), nil
}

// yamlReader is the reader of a YAML input, made at the first call: a
// root sequence of one document gives its elements unless Whole.
func (s *Source) yamlReader() *yamlin.Reader {
	if s.yr == nil {
		s.yr = yamlin.NewReader(s.br, yamlin.Options{MaxSize: s.maxSize, Elements: !s.Whole})
	}
	return s.yr
}

// nextInputOnly returns the next record of YAML, CSV or TSV input.
func (s *Source) nextInputOnly() ([]byte, error) {
	var rec []byte
	var pos jsonv.Position
	var err error
	kind := BadYAML
	if s.format == codec.YAML {
		rec, pos, err = s.yamlReader().Next()
	} else {
		if s.cr == nil {
			opts := csvin.Options{Strings: s.CSVStrings, MaxSize: s.maxSize}
			if s.format == codec.TSV {
				opts.Comma = '\t'
			}
			s.cr = csvin.NewReader(s.br, opts)
		}
		kind = BadCSV
		rec, pos, err = s.cr.Next()
	}
	switch err.(type) {
	case nil:
		s.cur.pos = pos
		return rec, nil
	case *yamlin.Error, *csvin.Error:
		return nil, &Error{Name: s.name, Kind: kind, Err: err}
	}
	if err == io.EOF {
		return nil, err
	}
	return nil, &Error{Name: s.name, Kind: ReadFailed, Err: err}
}

// frameRecord is the record of frame f, whose payload is js: the payload
// alone with Payload, else its record (flat with Flat), in s.rec.
func (s *Source) frameRecord(f *kado.Frame, js []byte) []byte {
	switch {
	case s.Payload:
		return js
	case s.Flat:
		s.rec = kado.AppendFlatRecord(s.rec[:0], f.Header, f.Compressed(), js)
	default:
		s.rec = kado.AppendRecord(s.rec[:0], f.Header, f.Compressed(), js)
	}
	return s.rec
}

// nextFrame returns the next good frame of binary input and its payload,
// the bad ones given to Skip when it is set.
func (s *Source) nextFrame() (*kado.Frame, []byte, error) {
	for {
		f, err := s.bd.Next()
		if err == io.EOF {
			return nil, nil, err
		}
		var js []byte
		payload := err == nil // a payload's error is the frame's, whatever its type
		if payload {
			if js, err = s.bd.JSON(f); err == nil {
				return f, js, nil
			}
		}
		if !payload && !kado.IsFrameError(err) {
			return nil, nil, &Error{Name: s.name, Kind: ReadFailed, Err: err}
		}
		e := &Error{Name: s.name, Kind: BadFrame, Err: err}
		if s.Skip == nil || !kado.IsFrameError(err) {
			return nil, nil, e
		}
		m := s.bd.MoveOn(f, err)
		s.Skip(e, &m)
	}
}

// nextCaptured returns the next frame of a capture as decode's record (or
// a flat one, without its source). A problem in the capture (a hole, a bad
// frame) is an error; notes and WebSocket text messages are passed over.
func (s *Source) nextCaptured() ([]byte, error) {
	for {
		f, err, ok := s.capNext()
		switch {
		case !ok:
			return nil, io.EOF
		case err != nil:
			var ev *CaptureEvent
			if errors.As(err, &ev) {
				switch {
				case ev.Problem && s.Skip != nil:
					s.Skip(&Error{Name: s.name, Kind: CaptureProblem, Err: ev.Err}, ev.Moved)
				case ev.Problem:
					return nil, &Error{Name: s.name, Kind: CaptureProblem, Err: ev.Err}
				case s.Note != nil:
					s.Note(ev.Err)
				}
				continue
			}
			var e *Error
			if errors.As(err, &e) && e.Kind == BadCapture {
				return nil, &Error{Name: s.name, Kind: e.Kind, Err: e.Err}
			}
			return nil, &Error{Name: s.name, Kind: ReadFailed, Err: err}
		case f == nil:
			continue
		}
		s.cur.frame++
		s.rec = f(s.rec[:0], s.Flat)
		return s.rec, nil
	}
}

// Where names the place of the record last handed out, for messages:
// FILE:LINE:COL for JSON and tables, "FILE: record N" for TOON, "FILE:
// frame N" for binary frames, "FILE: frame N of the capture".
func (s *Source) Where() string {
	if s.capNext != nil {
		return fmt.Sprintf("%s: frame %d of the capture", s.name, s.shown.frame-1)
	}
	if s.bd != nil {
		return fmt.Sprintf("%s: frame %d", s.name, s.shown.frame)
	}
	if s.ts != nil {
		return fmt.Sprintf("%s: record %d", s.name, s.shown.pos.Line)
	}
	return fmt.Sprintf("%s:%s", s.name, s.shown.pos)
}

// Pos is the text position of the record last handed out (zero for
// frames).
func (s *Source) Pos() jsonv.Position { return s.shown.pos }

// Frame is the frame last read by Next from a binary input (Framed), its
// header and wire payload as read; valid until the next call of Next.
func (s *Source) Frame() []byte { return s.frame }

// Framed reports whether the records are binary frames read from the
// input (not a capture's), which are placed by frame number.
func (s *Source) Framed() bool { return s.bd != nil }

// Idle reports whether nothing more is buffered, so that output may be
// flushed for a live stream. Within Each, a regular file is never idle.
func (s *Source) Idle() bool {
	switch {
	case s.pipelined:
		return false // a regular file: no live stream to keep up with
	case s.ts != nil:
		return s.jr.Buffered() == 0 // br is the decoder's
	case s.jr != nil:
		return s.jr.Buffered() == 0 && s.br.Buffered() == 0
	case s.bd != nil:
		return len(s.bd.Buffered()) == 0 && s.br.Buffered() == 0
	}
	return s.br.Buffered() == 0
}

// Close stops the Source's goroutines (a capture's reader, the TOON
// decoder). It does not close the input.
func (s *Source) Close() {
	if s.capStop != nil {
		s.capStop()
	}
	if s.ts != nil {
		s.ts.close()
	}
}

// Each calls f with every record, then closes the source. It stops at the
// first error, of the source or of f. A regular file
// (SourceOptions.Regular) is read ahead by a goroutine, in batches of
// records, so that reading and checking the input runs beside the work of
// f on a second core; other inputs (a pipe, a live stream) are read record
// by record, as f goes.
func (s *Source) Each(f func(rec []byte) error) error {
	defer s.Close()
	s.pipelined = s.regular && !s.noReadAhead
	if !s.pipelined {
		for {
			rec, err := s.Next()
			if err == io.EOF {
				return nil
			}
			if err != nil {
				return err
			}
			if err := f(rec); err != nil {
				return err
			}
		}
	}
	type batch struct {
		buf  []byte
		ends []int
		pos  []recPos
		err  error
	}
	full, free := make(chan *batch, 2), make(chan *batch, 3)
	stop := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		defer close(full)
		for {
			var b *batch
			select {
			case b = <-free:
				b.buf, b.ends, b.pos = b.buf[:0], b.ends[:0], b.pos[:0]
			default:
				b = &batch{}
			}
			for len(b.buf) < 256<<10 && len(b.ends) < 4096 {
				rec, err := s.next()
				if err != nil {
					if err != io.EOF {
						b.err = err
					}
					select {
					case full <- b:
					case <-stop:
					}
					return
				}
				b.buf = append(b.buf, rec...)
				b.ends = append(b.ends, len(b.buf))
				b.pos = append(b.pos, s.cur)
			}
			select {
			case full <- b:
			case <-stop:
				return
			}
		}
	}()
	defer wg.Wait() // the reader is done before the source is closed
	defer close(stop)
	for b := range full {
		start := 0
		for i, end := range b.ends {
			s.shown = b.pos[i]
			if err := f(b.buf[start:end]); err != nil {
				return err
			}
			start = end
		}
		if b.err != nil {
			return b.err
		}
		select {
		case free <- b:
		default:
		}
	}
	return nil
}

// StartTOON starts decoding the input, a TOON document, in a goroutine
// and returns the decoder's JSON output: the root value, or with elements
// the elements of a root array (any other root a record of its own), one
// per line. A decoding error ends the output early; next (and Next)
// then return it as a BadTOON error, and TOONFailure tells it.
func (s *Source) StartTOON(elements bool) io.Reader {
	pr, pw := io.Pipe()
	ts := &toonSource{pr: pr, done: make(chan error, 1)}
	s.ts = ts
	opts, br := s.TOON, s.br
	opts.Elements = elements
	go func() {
		err := toonx.ToJSON(pw, br, opts)
		ts.done <- err
		pw.CloseWithError(err)
	}()
	return pr
}

// TOONFailure returns the TOON decoder's error once its output has ended
// with one (StartTOON); nil while it runs or when it succeeded.
func (s *Source) TOONFailure() error {
	if s.ts == nil {
		return nil
	}
	return s.ts.failure()
}

// DecodingTOON reports whether the input is decoded as TOON (StartTOON).
func (s *Source) DecodingTOON() bool { return s.ts != nil }

// toonSource is a TOON decoder running in a goroutine.
type toonSource struct {
	pr   *io.PipeReader
	done chan error
}

// failure returns the decoder's error once the pipe has ended with one.
func (ts *toonSource) failure() error {
	select {
	case err := <-ts.done:
		ts.done <- err
		return err
	default:
		return nil
	}
}

func (ts *toonSource) close() { ts.pr.Close() }
