package query

import (
	"bufio"
	"bytes"
	"fmt"
	"github.com/toonkit/toonkit/internal/records/pcapsrc"
	"io"
	"math"
	"unicode/utf8"

	"github.com/toonkit/toonkit/internal/capture"
	"github.com/toonkit/toonkit/internal/codec"
	"github.com/toonkit/toonkit/internal/codec/jsonv"
	"github.com/toonkit/toonkit/internal/records"
	"github.com/toonkit/toonkit/internal/toonx"
	"github.com/toonkit/toonkit/kado"
	"github.com/toonkit/toonkit/toon"
)

// Opened is an input that InputOptions.Open opened.
type Opened struct {
	R       io.Reader
	Name    string // for messages and input_filename
	Regular bool   // a regular file, which never waits for more
	Close   func()
}

// InputOptions configure Inputs.
type InputOptions struct {
	// Names are the inputs, read in order.
	Names []string
	// Open opens an input by its name; its errors are returned as they
	// are.
	Open func(name string) (*Opened, error)
	// From is the inputs' format; "" detects it (records.Sniff; YAML,
	// CSV and TSV by the name's extension), white
	// space alone being JSON with no values, as in jq. An input detected
	// as TOON that starts with a JSON scalar (`1 "x" 3`) is JSON values
	// back to back.
	From codec.Format
	// MaxSize bounds a value, a line, a frame; 0: jsonv.DefaultMaxValueSize.
	// With Raw, it bounds a line, and, slurped (Slurp), the text of all
	// the inputs together: a *TooLargeError past it.
	MaxSize int
	// Payload gives binary frames' payloads alone.
	Payload bool
	// Raw reads lines of text (jq -R): each line a string, without its
	// line end, invalid UTF-8 as U+FFFD.
	Raw bool
	// Capture selects the connections of a packet capture (Ports, Conn).
	Capture capture.Options
	// KeepFrames keeps the bytes of each binary frame read (not a
	// capture's, nor with Payload) with its record, for Frame.
	KeepFrames bool
	// Skip, when not nil, passes over bad binary frames and a capture's
	// problems, each given to it, as records.Source.Skip does
	// (--keep-going).
	Skip func(err *records.Error, moved *kado.Moved)
	// Note, when not nil, receives a capture's notes with the input's
	// name (records.Source.Note).
	Note func(name string, err error)
	// CSVStrings keeps every cell of CSV and TSV input a string
	// (records.Source.CSVStrings).
	CSVStrings bool
}

// Inputs reads the inputs of a query one value at a time, for the main
// loop (Read) and for the filter's input and inputs alike (Next, gojq's
// iterator): each input's records (records.Source, a TOON document or a
// JSON value whole), JSON and NDJSON decoded by a Stream as they are
// checked, in one pass. A failure stops it: Err holds it, and Next yields
// it once. Its errors are *records.Error (or Open's).
type Inputs struct {
	opts  InputOptions
	names []string
	dec   Decoder // Valid: toonkit's readers check UTF-8
	sdec  Decoder // for stream
	in    *Opened
	src   *records.Source
	// stream reads JSON and NDJSON: decoded as they are checked, in one
	// pass (src then only names the input and holds its buffer)
	stream *Stream
	// handed says that stream reads on where the workers stopped
	// (ReadOn): src.Reader() is then theirs, a read of it perhaps still
	// in progress
	handed bool
	raw    *bufio.Reader // -R
	// rawLine is the number of the line of raw input last read; line
	// holds it
	rawLine int
	line    []byte
	// frames are the binary frames read (KeepFrames), by their
	// records' identity, until ForgetFrames
	frames map[uintptr]keptFrame
	name   string // the input being read, for input_filename
	err    error
	done   bool
}

// NewInputs returns the Inputs of opts.Names. SetOrder is called before
// the first value is read.
func NewInputs(opts InputOptions) *Inputs {
	if opts.MaxSize <= 0 {
		opts.MaxSize = jsonv.DefaultMaxValueSize
	}
	return &Inputs{opts: opts, names: opts.Names}
}

// SetOrder makes the objects read keep their key order in order (the
// compiled query's, Query.NewOrder).
func (qi *Inputs) SetOrder(order *Order) {
	qi.dec = Decoder{Order: order, Valid: true}
	qi.sdec = Decoder{Order: order}
}

// SetNeed makes the values read hold only what need names of them (nil:
// all), the rest checked and passed over (Decoder.Need).
func (qi *Inputs) SetNeed(need *Need) { qi.dec.Need, qi.sdec.Need = need, need }

// Next is gojq's input iterator.
func (qi *Inputs) Next() (any, bool) {
	v, err := qi.Read()
	if err == io.EOF {
		return nil, false
	}
	if err != nil {
		return err, true
	}
	return v, true
}

// Err is the failure that stopped the inputs, nil before one.
func (qi *Inputs) Err() error { return qi.err }

// Name is the name of the input being read ("" before the first).
func (qi *Inputs) Name() string { return qi.name }

// Read returns the next input value, io.EOF after the last.
func (qi *Inputs) Read() (any, error) {
	for {
		if qi.err != nil {
			return nil, qi.err
		}
		if qi.done {
			return nil, io.EOF
		}
		if qi.src == nil && qi.raw == nil {
			if len(qi.names) == 0 {
				qi.done = true
				return nil, io.EOF
			}
			if _, err := qi.OpenNext(); err != nil {
				return nil, err
			}
		}
		if qi.raw != nil {
			line, err := qi.readLine()
			if err == io.EOF {
				qi.closeInput()
				continue
			}
			if err != nil {
				qi.err = err
				return nil, qi.err
			}
			v := validText(line)
			if cap(qi.line) > 1<<20 {
				qi.line = nil // a long line's buffer is not held for the next
			}
			return v, nil
		}
		if qi.stream != nil {
			v, err := qi.stream.Next()
			if err == nil {
				return v, nil
			}
			if err == io.EOF {
				qi.closeInput()
				continue
			}
			qi.err = qi.streamError(err)
			return nil, qi.err
		}
		rec, err := qi.src.Next()
		if err == io.EOF {
			qi.closeInput()
			continue
		}
		if err != nil {
			qi.err = err
			return nil, err
		}
		v, err := qi.dec.Decode(rec)
		if err != nil {
			qi.err = &records.Error{Name: qi.src.Name(), Kind: records.Invalid, Err: fmt.Errorf("%s: not a JSON value", qi.src.Where())}
			return nil, qi.err
		}
		if m, ok := v.(map[string]any); ok && qi.opts.KeepFrames && !qi.opts.Payload && qi.src.Framed() {
			if qi.frames == nil {
				qi.frames = map[uintptr]keptFrame{}
			}
			qi.frames[mapID(m)] = keptFrame{m, bytes.Clone(qi.src.Frame())}
		}
		return v, nil
	}
}

// readLine reads the next line of a raw input (-R), without its line end:
// io.EOF after the last, a *records.Error for a line longer than MaxSize
// (which is not held past the limit) or a failed read.
func (qi *Inputs) readLine() ([]byte, error) {
	qi.rawLine++
	qi.line = qi.line[:0]
	for {
		chunk, err := qi.raw.ReadSlice('\n')
		if len(qi.line)+len(bytes.TrimSuffix(chunk, newline)) > qi.opts.MaxSize {
			return nil, &records.Error{Name: qi.name, Kind: records.Invalid,
				Err: &TooLargeError{Name: qi.name, Line: qi.rawLine, Limit: qi.opts.MaxSize}}
		}
		if need := len(qi.line) + len(chunk); need > cap(qi.line) {
			// doubled: a long line costs twice its size in all, not
			// the five times of append's growth by a quarter
			grown := make([]byte, len(qi.line), min(max(2*cap(qi.line), need, 4<<10), qi.opts.MaxSize+1))
			copy(grown, qi.line)
			qi.line = grown
		}
		qi.line = append(qi.line, chunk...)
		switch {
		case err == nil:
			return qi.line[:len(qi.line)-1], nil
		case err == bufio.ErrBufferFull:
			continue
		case err == io.EOF && len(qi.line) > 0:
			return qi.line, nil
		case err == io.EOF:
			return nil, io.EOF
		}
		return nil, &records.Error{Name: qi.name, Kind: records.ReadFailed, Err: err}
	}
}

var newline = []byte{'\n'}

// TooLargeError is raw text that passes the size limit
// (InputOptions.MaxSize, VarFlags.MaxSize): a line of a raw input (Line
// from 1), the text of raw inputs slurped, all of them together (Slurp),
// or a file of --rawfile (Line 0). The text past the limit is not read.
type TooLargeError struct {
	Name  string // the input, or the file
	Line  int    // the line, from 1; 0: the whole text
	Limit int
}

func (e *TooLargeError) Error() string {
	if e.Line > 0 {
		return fmt.Sprintf("%s:%d: a line passes the limit of %d bytes", e.Name, e.Line, e.Limit)
	}
	return fmt.Sprintf("%s: the text passes the limit of %d bytes", e.Name, e.Limit)
}

// readText appends r's text, whole, to buf, which holds at most limit
// bytes: more is a *TooLargeError, the rest of r not read. The buffer
// grows by doubling, so that a text costs at most twice its size.
func readText(buf []byte, r io.Reader, name string, limit int) ([]byte, error) {
	for {
		if len(buf) == cap(buf) {
			grown := make([]byte, len(buf), min(max(2*cap(buf), 4<<10), limit+1))
			copy(grown, buf)
			buf = grown
		}
		n, err := r.Read(buf[len(buf):cap(buf)])
		buf = buf[:len(buf)+n]
		if len(buf) > limit {
			return nil, &records.Error{Name: name, Kind: records.Invalid, Err: &TooLargeError{Name: name, Limit: limit}}
		}
		if err == io.EOF {
			return buf, nil
		}
		if err != nil {
			return nil, &records.Error{Name: name, Kind: records.ReadFailed, Err: err}
		}
	}
}

// validText is text as a string, invalid UTF-8 as U+FFFD.
func validText(b []byte) string {
	if utf8.Valid(b) {
		return string(b)
	}
	return string(bytes.ToValidUTF8(b, []byte("\uFFFD")))
}

// keptFrame is a binary frame as read, and its record (held, so that its
// identity is not another map's).
type keptFrame struct {
	rec   map[string]any
	frame []byte
}

// Frame returns the bytes of the binary frame (header and wire payload,
// as read) whose record v is, passed through untouched: the map Read
// returned for it (gojq never changes a value in place: a filter that
// changes a record makes a new map). InputOptions.KeepFrames keeps them,
// until ForgetFrames.
func (qi *Inputs) Frame(v any) ([]byte, bool) {
	m, ok := v.(map[string]any)
	if !ok || qi.frames == nil {
		return nil, false
	}
	k, ok := qi.frames[mapID(m)]
	return k.frame, ok
}

// ForgetFrames lets go of the frames kept for Frame: RunInputs calls it
// after each input's run.
func (qi *Inputs) ForgetFrames() {
	if len(qi.frames) > 0 {
		clear(qi.frames)
	}
}

// Pending reports whether the next value is to come from an input not yet
// opened (OpenNext), with no failure before.
func (qi *Inputs) Pending() bool {
	return qi.src == nil && qi.raw == nil && qi.err == nil && len(qi.names) > 0
}

// OpenNext opens the next input, and reports whether it is JSON or NDJSON
// read by a Stream, which workers may read instead (Source, ReadOn,
// Finish).
func (qi *Inputs) OpenNext() (stream bool, err error) {
	name := qi.names[0]
	qi.names = qi.names[1:]
	if err := qi.open(name); err != nil {
		qi.err = err
		return false, err
	}
	return qi.stream != nil && !qi.src.DecodingTOON(), nil
}

func (qi *Inputs) open(name string) error {
	in, err := qi.opts.Open(name)
	if err != nil {
		return err
	}
	if qi.opts.Raw {
		qi.in, qi.raw, qi.name, qi.rawLine = in, bufio.NewReaderSize(in.R, 64<<10), in.Name, 0
		return nil
	}
	src, err := records.NewSource(in.R, in.Name, records.SourceOptions{Format: qi.opts.From, Blank: codec.JSON, MaxSize: qi.opts.MaxSize, Regular: in.Regular, Capture: pcapsrc.Reader(qi.opts.Capture)})
	if err != nil {
		in.Close()
		return err
	}
	src.Whole, src.Payload, src.Raw, src.Skip, src.CSVStrings = true, qi.opts.Payload, true, qi.opts.Skip, qi.opts.CSVStrings
	if note := qi.opts.Note; note != nil {
		src.Note = func(err error) { note(in.Name, err) }
	}
	format := src.Format()
	if qi.opts.From == "" && format == codec.TOON && jsonScalarFirst(src.Reader()) {
		format = codec.JSON // values back to back: 1 "x" 3
	}
	src.TOON = toonx.DecodeOptions{IndentSize: toon.DefaultIndentSize, MaxLineSize: qi.opts.MaxSize}
	switch format {
	case codec.JSON, codec.NDJSON:
		qi.stream = NewStream(src.Reader(), &qi.sdec, qi.opts.MaxSize)
	case codec.TOON:
		// the TOON decoder's JSON, one value, read by a Stream too
		qi.stream = NewStream(src.StartTOON(false), &qi.dec, math.MaxInt)
		qi.stream.made = true
	}
	qi.in, qi.src, qi.name = in, src, src.Name()
	return nil
}

// Source is the input just opened (OpenNext): its name, its buffered
// reader for workers.
func (qi *Inputs) Source() *records.Source { return qi.src }

// Regular reports whether the input being read is a regular file.
func (qi *Inputs) Regular() bool { return qi.in != nil && qi.in.Regular }

// StreamDecoder is the Decoder of JSON and NDJSON inputs, for workers.
func (qi *Inputs) StreamDecoder() *Decoder { return &qi.sdec }

// ReadOn makes the values of the current input come from rest, which
// reads on where workers stopped (RunJobs).
func (qi *Inputs) ReadOn(rest *Stream) { qi.stream, qi.handed = rest, true }

// Finish closes the current input, which workers have read to its end.
func (qi *Inputs) Finish() { qi.closeInput() }

// closeInput closes the input being read.
func (qi *Inputs) closeInput() {
	if qi.src != nil {
		qi.src.Close()
	}
	if qi.in != nil {
		qi.in.Close()
	}
	qi.in, qi.src, qi.stream, qi.handed, qi.raw = nil, nil, nil, false, nil
}

// jsonScalarFirst reports whether the input that detection takes for TOON
// starts with a JSON string, number, true, false or null that no ':'
// follows (so that it is not a TOON key): JSON values back to back, as jq
// reads them.
func jsonScalarFirst(br *bufio.Reader) bool {
	p, _ := br.Peek(br.Buffered())
	t := jsonv.TrimSpace(records.TrimBOM(p))
	if len(t) == 0 {
		return false
	}
	i := 0
	switch c := t[0]; {
	case c == '"':
		for i = 1; i < len(t) && t[i] != '"'; i++ {
			if t[i] == '\\' {
				i++
			}
		}
		i++
	case c == '-' || c >= '0' && c <= '9' || c == 't' || c == 'f' || c == 'n':
		for i < len(t) && (t[i] >= '0' && t[i] <= '9' || t[i] >= 'a' && t[i] <= 'z' || t[i] == '.' || t[i] == '+' || t[i] == '-' || t[i] == 'E') {
			i++
		}
		if w := string(t[:i]); (t[0] >= 'a' && t[0] <= 'z') && w != "true" && w != "false" && w != "null" {
			return false
		}
	default:
		return false
	}
	for i < len(t) && (t[i] == ' ' || t[i] == '\t') {
		i++
	}
	return i <= len(t) && (i == len(t) || t[i] != ':')
}

// streamError is the error of a JSON stream: toonkit's error, with the
// place and an excerpt, from the jsonv reader reading on from the bad value.
func (qi *Inputs) streamError(err error) error {
	name := qi.src.Name()
	if terr := qi.src.TOONFailure(); terr != nil {
		return &records.Error{Name: name, Kind: records.BadTOON, Err: terr}
	}
	if err != ErrInvalid {
		return records.JSONError(name, err)
	}
	rest, opts := qi.stream.Rest()
	if _, _, jerr := jsonv.NewReader(rest, opts).Next(); jerr != nil && jerr != io.EOF {
		return records.JSONError(name, jerr)
	}
	return &records.Error{Name: name, Kind: records.Invalid, Err: fmt.Errorf("%s:%s: not valid JSON", name, qi.stream.Position())}
}

// Idle reports whether nothing more of the input is buffered, so that
// output may be flushed for a live stream.
func (qi *Inputs) Idle() bool {
	if qi.stream != nil && qi.src.DecodingTOON() {
		return false // one document: nothing to flush before its end
	}
	if qi.stream != nil {
		return qi.stream.Buffered() == 0 && (qi.handed || qi.src.Reader().Buffered() == 0)
	}
	return qi.src != nil && qi.src.Idle()
}

// Where names the place of the input value last read, for messages.
func (qi *Inputs) Where() string {
	if qi.stream != nil && qi.src.DecodingTOON() {
		return qi.src.Name() // a TOON document: one value
	}
	if qi.stream != nil {
		return fmt.Sprintf("%s:%s", qi.src.Name(), qi.stream.Position())
	}
	if qi.src != nil {
		return qi.src.Where()
	}
	return qi.name
}

// Close closes the input being read.
func (qi *Inputs) Close() { qi.closeInput() }

// Slurp reads all the inputs: an array of their values, or with Raw the
// whole text as one string.
func (qi *Inputs) Slurp() (any, error) {
	if qi.opts.Raw {
		var text []byte
		for _, name := range qi.names {
			in, err := qi.opts.Open(name)
			if err != nil {
				return nil, err
			}
			text, err = readText(text, in.R, in.Name, qi.opts.MaxSize)
			in.Close()
			if err != nil {
				return nil, err
			}
		}
		qi.names = nil
		return validText(text), nil
	}
	all := []any{}
	for {
		v, err := qi.Read()
		if err == io.EOF {
			return all, nil
		}
		if err != nil {
			return nil, err
		}
		all = append(all, v)
	}
}
