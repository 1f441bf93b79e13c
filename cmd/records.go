package cmd

import (
	"context"
	"errors"
	"fmt"
	"github.com/toonkit/toonkit/internal/records/pcapsrc"

	"github.com/toonkit/toonkit/internal/capture"
	"github.com/toonkit/toonkit/internal/codec"
	"github.com/toonkit/toonkit/internal/codec/jsonv"
	"github.com/toonkit/toonkit/internal/records"
	"github.com/toonkit/toonkit/kado"
)

// The encodings that convert reads and writes.
var convertFormats = []codec.Format{codec.JSON, codec.NDJSON, codec.Tabular, codec.Binary, codec.TOON, codec.Chiffon, codec.Trace, codec.Narratoria}

// source is an opened input's records (records.Source), its errors made
// the CLI's.
type source struct {
	*records.Source
	in *input
}

// openSource opens an input and, without from, detects its format.
// sel selects the connections of a packet capture.
func openSource(ios *IOStreams, name string, from codec.Format, maxSize int, sel capture.Options) (*source, error) {
	in, err := openInput(ios, name)
	if err != nil {
		return nil, err
	}
	s, err := records.NewSource(in.R, in.Name, records.SourceOptions{Format: from, MaxSize: maxSize, Regular: in.regular(), Capture: pcapsrc.Reader(sel)})
	if err != nil {
		in.Close()
		return nil, sourceError(err)
	}
	return &source{Source: s, in: in}, nil
}

// each calls f with every record (records.Source.Each), then closes the
// source.
func (s *source) each(f func(rec []byte) error) error {
	defer s.in.Close()
	return sourceError(s.Each(f))
}

// copy writes the records of s to snk, on jobs workers where it can
// (records.Copy), st counting them, flushing out whenever the input has
// nothing more buffered (a live stream); it closes s, and says how many
// records snk was given.
func (s *source) copy(snk sink, jobs int, out *output, st *stats) (int, error) {
	defer s.in.Close()
	n, err := records.Copy(context.Background(), s.Source, snk, copyOptions(jobs, out, st))
	return n, failure(out, sourceError(err))
}

// copyOptions are records.Copy's options for jobs workers, st counting
// the records, out flushed whenever the input has nothing more buffered.
func copyOptions(jobs int, out *output, st *stats) records.CopyOptions {
	o := records.CopyOptions{Workers: jobs, Idle: out.Flush}
	if st != nil {
		o.Record = st.record
	}
	return o
}

// sourceError makes an error of a records.Source the CLI's: the input's
// name, its place, an excerpt and a hint. Other errors pass unchanged.
func sourceError(err error) error {
	e, ok := err.(*records.Error)
	if !ok {
		return err
	}
	switch e.Kind {
	case records.Undetected:
		return invalidError(fmt.Errorf("%s: cannot tell the input format: %s", e.Name, e.Err),
			"name it with --from (json, ndjson, tabular, binary, toon)")
	case records.Unsupported:
		return invalidError(fmt.Errorf("%s: the input looks like %s, which convert does not read yet", e.Name, e.Format), "")
	case records.BadJSON:
		return jsonReadError(e.Name, e.Err)
	case records.BadTOON:
		return toonError(e.Name, nil, e.Err)
	case records.BadTable:
		var se *jsonv.SyntaxError
		errors.As(e.Err, &se)
		return &ExitError{Code: ExitInvalid, Err: fmt.Errorf("%s:%w", e.Name, se), Excerpt: se}
	case records.BadFrame:
		return frameErrorSkip(e.Name, e.Err, false, "'toonkit decode --keep-going'") // no --keep-going here
	case records.BadCapture:
		if cerr, ok := noConnError(e.Name, e.Err); ok {
			return cerr
		}
		return invalidError(fmt.Errorf("%s: %w", e.Name, e.Err), "")
	case records.CaptureProblem:
		return captureError(e.Name, e.Err, true) // no --keep-going here
	case records.Invalid:
		return invalidError(e.Err, "")
	case records.TooLarge:
		return invalidError(fmt.Errorf("%s: %w", e.Name, e.Err),
			"TOON output needs the whole document in memory; raise --max-frame-size if that is expected")
	}
	return readError(e.Name, e.Err)
}

// sink writes records in one encoding.
type sink = records.Sink

// binarySink is a records.BinarySink whose errors are the CLI's.
type binarySink struct{ records.BinarySink }

func (s *binarySink) Write(rec []byte) error {
	err := s.BinarySink.Write(rec)
	e, ok := err.(*records.EncodeError)
	if !ok {
		return err
	}
	if e.Err == records.ErrNotRecord {
		return invalidError(fmt.Errorf("%s: %w", e.Where, e.Err), "to make frames from bare payloads: toonkit encode --to binary")
	}
	err = e.Err
	if se, ok := err.(*jsonv.SyntaxError); ok {
		switch e.Kind {
		case kado.UnknownType:
			err = &ExitError{Code: ExitInvalid, Err: se, Excerpt: se, Hint: encodeHint(e.Kind)}
		case kado.SeqOverflow:
			err = &ExitError{Code: ExitInvalid, Err: se, Hint: encodeHint(e.Kind)}
		}
	}
	if !e.Text {
		return invalidError(fmt.Errorf("%s: %w", e.Where, err), "")
	}
	return positionedError(e.Name, err)
}
