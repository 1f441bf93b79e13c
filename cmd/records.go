package cmd

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"iter"
	"sync"

	"github.com/toonkit/toonkit/pkg/capture"
	"github.com/toonkit/toonkit/pkg/codec"
	"github.com/toonkit/toonkit/pkg/codec/binary"
	"github.com/toonkit/toonkit/pkg/codec/jsonv"
	"github.com/toonkit/toonkit/pkg/codec/tabular"
	"github.com/toonkit/toonkit/pkg/codec/toon"
)

// The encodings that convert reads and writes.
var convertFormats = []codec.Format{codec.JSON, codec.NDJSON, codec.Tabular, codec.Binary, codec.TOON, codec.Chiffon, codec.Trace, codec.Narratoria}

// source reads the records of one input as compact JSON values (unless
// raw, for a caller that needs them compact only sometimes): the
// elements of a JSON array (or the values of a JSON stream), NDJSON lines,
// the rows of a table, or the frames of a capture as decode's records.
type source struct {
	name   string
	format codec.Format
	in     *input
	br     *bufio.Reader
	flat   bool // binary frames as flat records (the rows of a table)
	raw    bool // JSON records as they are written, not compacted
	// whole reads a JSON or TOON document as one record, a root array
	// too (query: each value an input, as in jq); payload gives binary
	// frames' payloads alone. Both are set before the first next.
	whole, payload bool

	jr *jsonv.Reader
	td *tabular.Decoder
	ts *toonSource // TOON: decoded in a goroutine, read as NDJSON by jr

	toonOpts toon.DecodeOptions // TOON: the decoder's options
	bd       *binary.Reader
	rec      []byte
	capNext  func() (*capture.Record, error, bool) // a capture's records (iter.Pull2)
	capStop  func()

	cur   recPos // the position of the record next last read
	shown recPos // the position of the record last handed out, for messages

	pipelined bool // each reads ahead in a goroutine (see each)
}

// recPos is a record's place in its input: a text position, or a frame.
type recPos struct {
	pos   jsonv.Position
	frame int
}

// openSource opens an input and, without from, detects its format.
func openSource(ios *IOStreams, name string, from codec.Format, maxSize int) (*source, error) {
	return openSourceBlank(ios, name, from, maxSize, "")
}

// openSourceBlank is openSource, but an input that detection finds to hold
// only white space is read as blank ("": an error, as for openSource):
// query reads it as JSON, no values, as jq does.
func openSourceBlank(ios *IOStreams, name string, from codec.Format, maxSize int, blank codec.Format) (*source, error) {
	in, err := openInput(ios, name)
	if err != nil {
		return nil, err
	}
	s := &source{name: in.Name, in: in, br: bufio.NewReaderSize(in.R, 64<<10), format: from}
	switch from {
	case codec.Chiffon, codec.Trace, codec.Narratoria:
		s.format = codec.JSON // messages: a JSON array of them, or NDJSON
	}
	if s.format == "" {
		d, err := sniff(s.br)
		if err != nil {
			in.Close()
			return nil, readError(in.Name, err)
		}
		switch d.Format {
		case codec.JSON, codec.Tabular, codec.Binary, codec.TOON, codec.Pcap:
			s.format = d.Format
		case "":
			if _, err := s.br.Peek(1); err == io.EOF {
				s.format = codec.JSON // an empty input: no records
				break
			}
			if p, _ := s.br.Peek(s.br.Buffered()); blank != "" && len(jsonv.TrimSpace(bytes.TrimPrefix(p, utf8BOM))) == 0 {
				s.format = blank
				break
			}
			in.Close()
			return nil, invalidError(fmt.Errorf("%s: cannot tell the input format: %s", in.Name, d.Why),
				"name it with --from (json, ndjson, tabular, binary, toon)")
		default:
			in.Close()
			return nil, invalidError(fmt.Errorf("%s: the input looks like %s, which convert does not read yet", in.Name, d.Format), "")
		}
	}
	switch s.format {
	case codec.JSON, codec.NDJSON:
		s.jr = jsonv.NewReader(s.br, jsonv.Options{MaxValueSize: int64(maxSize), Elements: s.format == codec.JSON})
	case codec.Tabular:
		s.td = tabular.NewDecoder(s.br, tabular.DecoderOptions{MaxLineSize: maxSize})
	case codec.Binary:
		s.bd = binary.NewReader(s.br, binary.ReaderOptions{MaxFrameSize: maxSize})
	case codec.Pcap:
		s.capNext, s.capStop = iter.Pull2(capture.Records(s.br, capture.Options{MaxFrameSize: maxSize}))
	}
	return s, nil
}

// sniff detects the format from as few bytes as decide it, so that a live
// stream is not held back waiting for more: what is buffered, then one
// byte more at a time. White space before the first value is passed over
// as far as br's buffer reaches (64 KiB for the commands' readers); an
// input that does not tell by then needs --from.
func sniff(br *bufio.Reader) (codec.Detection, error) {
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
			if len(jsonv.TrimSpace(bytes.TrimPrefix(p, utf8BOM))) == 0 {
				d.Why = fmt.Sprintf("its first %d KiB hold only white space", n>>10)
			} else {
				d.Why = fmt.Sprintf("its first %d KiB do not tell", n>>10)
			}
			return d, nil
		}
	}
}

// next returns the next record, valid until the next call; io.EOF at the end.
func (s *source) next() ([]byte, error) {
	if s.format == codec.TOON && s.ts == nil {
		var r io.Reader
		s.ts, r = startTOONSource(s.br, s.toonOpts, !s.whole)
		s.jr = jsonv.NewReader(r, jsonv.Options{MaxValueSize: 1 << 62})
	}
	switch {
	case s.jr != nil:
		v, pos, err := s.jr.Next()
		if err != nil {
			if s.ts != nil {
				if terr := s.ts.failure(); terr != nil {
					return nil, toonError(s.name, nil, terr)
				}
			}
			if err == io.EOF {
				return nil, err
			}
			return nil, jsonReadError(s.name, err)
		}
		s.cur.pos = pos
		if s.raw {
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
				return nil, &ExitError{Code: ExitInvalid, Err: fmt.Errorf("%s:%w", s.name, se), Excerpt: se}
			}
			return nil, readError(s.name, err)
		}
		s.cur.pos = jsonv.Position{Line: line, Column: 1}
		return obj, nil
	}
	if s.capNext != nil {
		return s.nextCaptured()
	}
	f, err := s.bd.Next()
	if err != nil {
		if err == io.EOF {
			return nil, err
		}
		if binary.IsFrameError(err) {
			return nil, frameError(s.name, err, false)
		}
		return nil, readError(s.name, err)
	}
	js, err := s.bd.JSON(f)
	if err != nil {
		return nil, frameError(s.name, err, false)
	}
	s.cur.frame = f.Index
	if s.payload {
		return js, nil
	}
	if s.flat {
		s.rec = binary.AppendFlatRecord(s.rec[:0], f.Header, f.Compressed(), js)
	} else {
		s.rec = binary.AppendRecord(s.rec[:0], f.Header, f.Compressed(), js)
	}
	return s.rec, nil
}

// nextCaptured returns the next frame of a capture as decode's record (or
// a flat one, without its source). A problem in the capture (a hole, a bad
// frame) is an error; notes and WebSocket text messages are passed over.
func (s *source) nextCaptured() ([]byte, error) {
	for {
		r, err, ok := s.capNext()
		switch {
		case !ok:
			return nil, io.EOF
		case err != nil:
			var fe *capture.FormatError
			if errors.As(err, &fe) {
				return nil, invalidError(fmt.Errorf("%s: %w", s.name, err), "")
			}
			return nil, readError(s.name, err)
		case r.Kind == capture.Problem:
			return nil, captureError(s.name, r.Err, true) // no --keep-going here
		case r.Kind != capture.Frame:
			continue
		}
		s.cur.frame++
		if s.flat {
			s.rec = binary.AppendFlatRecord(s.rec[:0], r.Frame.Header, r.Frame.Compressed(), r.JSON)
		} else {
			s.rec = capture.AppendRecord(s.rec[:0], r)
		}
		return s.rec, nil
	}
}

// where names the last record's place, for messages: FILE:LINE:COL for
// text, FILE: frame N for binary.
func (s *source) where() string {
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

// idle reports whether nothing more is buffered, so that output may be
// flushed for a live stream.
func (s *source) idle() bool {
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

func (s *source) close() {
	if s.capStop != nil {
		s.capStop()
	}
	if s.ts != nil {
		s.ts.close()
	}
	s.in.Close()
}

// each calls f with every record, then closes the source. It stops at the
// first error, of the source or of f. A regular file is read ahead by a
// goroutine, in batches of records, so that reading and checking the input
// runs beside the work of f on a second core; other inputs (a pipe, a live
// stream) are read record by record, as f goes.
func (s *source) each(f func(rec []byte) error) error {
	defer s.close()
	s.pipelined = isRegular(s.in)
	if !s.pipelined {
		for {
			rec, err := s.next()
			if err == io.EOF {
				return nil
			}
			if err != nil {
				return err
			}
			s.shown = s.cur
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
	defer wg.Wait() // the reader is done before the file is closed
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

// isRegular reports whether an input is a regular file (not standard
// input, a pipe or a device).
func isRegular(in *input) bool {
	if in.f == nil {
		return false
	}
	st, err := in.f.Stat()
	return err == nil && st.Mode().IsRegular()
}

// sink writes records in one encoding.
type sink interface {
	write(rec []byte) error
	end() error
}

// jsonSink writes the records as one JSON array, indented by two spaces or
// compact on one line; or, single, the one record of an input that is one
// value (oneValue) as itself.
type jsonSink struct {
	w       io.Writer
	compact bool
	single  bool // until a second record comes: then it is an array
	held    []byte
	n       int
	buf     []byte
}

func (s *jsonSink) write(rec []byte) error { return s.writeIndented(rec, nil) }

// writeIndented writes rec, given indented as an element of the indented
// array (jsonv.AppendIndent(nil, rec, "  ", "  ")) when it is not nil.
func (s *jsonSink) writeIndented(rec, indented []byte) error {
	if s.single {
		if s.n == 0 {
			s.held, s.n = append(s.held[:0], rec...), 1
			return nil
		}
		s.single, s.n = false, 0
		if err := s.element(s.held, nil); err != nil {
			return err
		}
	}
	return s.element(rec, indented)
}

// element writes a record as the array's next element.
func (s *jsonSink) element(rec, indented []byte) error {
	s.buf = s.buf[:0]
	switch {
	case s.compact && s.n == 0:
		s.buf = append(s.buf, '[')
	case s.compact:
		s.buf = append(s.buf, ',')
	case s.n == 0:
		s.buf = append(s.buf, "[\n  "...)
	default:
		s.buf = append(s.buf, ",\n  "...)
	}
	switch {
	case s.compact:
		s.buf = append(s.buf, rec...)
	case indented != nil:
		s.buf = append(s.buf, indented...)
	default:
		s.buf = jsonv.AppendIndent(s.buf, rec, "  ", "  ")
	}
	s.n++
	_, err := s.w.Write(s.buf)
	return err
}

func (s *jsonSink) end() error {
	var err error
	switch {
	case s.single && s.n == 1 && s.compact:
		_, err = s.w.Write(append(append(s.buf[:0], s.held...), '\n'))
	case s.single && s.n == 1:
		_, err = s.w.Write(append(jsonv.AppendIndent(s.buf[:0], s.held, "", "  "), '\n'))
	case s.n == 0:
		_, err = io.WriteString(s.w, "[]\n")
	case s.compact:
		_, err = io.WriteString(s.w, "]\n")
	default:
		_, err = io.WriteString(s.w, "\n]\n")
	}
	return err
}

// ndjsonSink writes one compact record per line.
type ndjsonSink struct{ w io.Writer }

func (s *ndjsonSink) write(rec []byte) error {
	if _, err := s.w.Write(rec); err != nil {
		return err
	}
	_, err := s.w.Write(newline)
	return err
}

func (s *ndjsonSink) end() error { return nil }

// binarySink writes a frame per record: decode's records, or the flat rows
// of a capture as a table.
type binarySink struct {
	w    *binary.Writer
	opts EncodeOptions
	seq  uint64
	buf  []byte
	src  *source // the source of the record being written, for messages
	// what, with no src, names the records for messages: "result" makes
	// "result 3" (query's results)
	what string
	n    int
}

// where names the record being written, for messages.
func (s *binarySink) where() string {
	if s.src == nil {
		return fmt.Sprintf("%s %d", s.what, s.n)
	}
	return s.src.where()
}

func (s *binarySink) write(rec []byte) error {
	s.n++
	v := rec
	if nested, ok := binary.UnflattenRecord(s.buf[:0], rec); ok {
		s.buf, v = nested, nested
	}
	if r, err := binary.ParseRecord(v); err == nil && !r.IsRecord {
		return invalidError(fmt.Errorf("%s: not a record as decode writes it ({\"header\":{...},\"payload\":...})", s.where()),
			"to make frames from bare payloads: toonkit encode --to binary")
	}
	h, p, err := frameFor(&s.opts, func(rel int64, ptr, msg string) *jsonv.SyntaxError {
		if s.src == nil {
			return &jsonv.SyntaxError{Pointer: ptr, Msg: msg}
		}
		return &jsonv.SyntaxError{Pos: s.src.shown.pos, Pointer: ptr, Msg: msg}
	}, v, s.seq)
	if err != nil {
		if s.src == nil || s.src.bd != nil {
			return invalidError(fmt.Errorf("%s: %w", s.where(), err), "")
		}
		return positionedError(s.src.name, err)
	}
	s.seq++
	_, err = s.w.WriteFrame(h, jsonv.CompactInPlace(p))
	return err
}

func (s *binarySink) end() error { return nil }
