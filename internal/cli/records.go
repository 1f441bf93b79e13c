package cli

import (
	"context"
	"errors"
	"fmt"

	"github.com/toonkit/toonkit/internal/capture"
	"github.com/toonkit/toonkit/internal/codec"
	"github.com/toonkit/toonkit/internal/codec/jsonv"
	"github.com/toonkit/toonkit/internal/codec/yamlin"
	"github.com/toonkit/toonkit/internal/records"
	"github.com/toonkit/toonkit/internal/records/pcapsrc"
	"github.com/toonkit/toonkit/kado"
)

// Source is an opened input's records (records.Source), its errors made
// the CLI's.
type Source struct {
	*records.Source
	In *Input
}

// OpenSource opens an input and, without from, detects its format.
// sel selects the connections of a packet capture.
func OpenSource(ios *IOStreams, name string, from codec.Format, maxSize int, sel capture.Options) (*Source, error) {
	in, err := OpenInput(ios, name)
	if err != nil {
		return nil, err
	}
	s, err := records.NewSource(in.R, in.Name, records.SourceOptions{Format: from, MaxSize: maxSize, Regular: in.Regular(), Capture: pcapsrc.Reader(sel)})
	if err != nil {
		in.Close()
		return nil, SourceError(err)
	}
	return &Source{Source: s, In: in}, nil
}

// EachRecord calls f with every record (records.Source.Each), then closes the
// Source.
func (s *Source) EachRecord(f func(rec []byte) error) error {
	defer s.In.Close()
	return SourceError(s.Source.Each(f))
}

// Copy writes the records of s to snk, on jobs workers where it can
// (records.Copy), st counting them, flushing out whenever the input has
// nothing more buffered (a live stream); it closes s, and says how many
// records snk was given.
func (s *Source) Copy(snk Sink, jobs int, out *Output, st *Stats) (int, error) {
	defer s.In.Close()
	n, err := records.Copy(context.Background(), s.Source, snk, CopyOptions(jobs, out, st))
	return n, Failure(out, SourceError(err))
}

// CopyOptions are records.Copy's options for jobs workers, st counting
// the records, out flushed whenever the input has nothing more buffered.
func CopyOptions(jobs int, out *Output, st *Stats) records.CopyOptions {
	o := records.CopyOptions{Workers: jobs, Idle: out.Flush}
	if st != nil {
		o.Record = st.Record
	}
	return o
}

// SourceError makes an error of a records.Source the CLI's: the input's
// name, its place, an excerpt and a hint. Other errors pass unchanged.
func SourceError(err error) error {
	e, ok := err.(*records.Error)
	if !ok {
		return err
	}
	switch e.Kind {
	case records.Undetected:
		return InvalidError(fmt.Errorf("%s: cannot tell the input format: %s", e.Name, e.Err),
			"name it with --from (json, ndjson, tabular, binary, toon)")
	case records.Unsupported:
		return InvalidError(fmt.Errorf("%s: the input looks like %s, which convert does not read yet", e.Name, e.Format), "")
	case records.BadJSON:
		return JSONReadError(e.Name, e.Err)
	case records.BadTOON:
		return TOONError(e.Name, nil, e.Err)
	case records.BadTable:
		var se *jsonv.SyntaxError
		errors.As(e.Err, &se)
		return &ExitError{Code: ExitInvalid, Err: fmt.Errorf("%s:%w", e.Name, se), Excerpt: se}
	case records.BadFrame:
		return FrameErrorSkip(e.Name, e.Err, false, "'toonkit decode --keep-going'") // no --keep-going here
	case records.BadCapture:
		if cerr, ok := NoConnError(e.Name, e.Err); ok {
			return cerr
		}
		return InvalidError(fmt.Errorf("%s: %w", e.Name, e.Err), "")
	case records.CaptureProblem:
		return CaptureError(e.Name, e.Err, true) // no --keep-going here
	case records.Invalid:
		return InvalidError(e.Err, "")
	case records.BadYAML, records.BadCSV:
		// The reader's hint, if any, is the *jsonv.SyntaxError's, which
		// the reporter prints.
		var se *jsonv.SyntaxError
		if errors.As(e.Err, &se) {
			return &ExitError{Code: ExitInvalid, Err: fmt.Errorf("%s:%w", e.Name, se), Excerpt: se}
		}
		hint := ""
		if yamlin.IsLimit(e.Err) {
			hint = "YAML input is read whole; raise the size limit (--max-frame-size, query's --max-size) if such inputs are expected"
		}
		return InvalidError(fmt.Errorf("%s: %w", e.Name, e.Err), hint)
	case records.TooLarge:
		return InvalidError(fmt.Errorf("%s: %w", e.Name, e.Err),
			"several inputs or values made into one array, --stats, --duplicate-keys and --to cheapest read the document into memory; raise --max-frame-size if that is expected")
	}
	return ReadError(e.Name, e.Err)
}

// Sink writes records in one encoding.
type Sink = records.Sink

// BinarySink is a records.BinarySink whose errors are the CLI's.
type BinarySink struct{ records.BinarySink }

// Write writes a record as a frame; its errors are the CLI's.
func (s *BinarySink) Write(rec []byte) error {
	err := s.BinarySink.Write(rec)
	e, ok := err.(*records.EncodeError)
	if !ok {
		return err
	}
	if e.Err == records.ErrNotRecord {
		return InvalidError(fmt.Errorf("%s: %w", e.Where, e.Err), "to make frames from bare payloads: toonkit encode --to binary")
	}
	err = e.Err
	if se, ok := err.(*jsonv.SyntaxError); ok {
		switch e.Kind {
		case kado.UnknownType:
			err = &ExitError{Code: ExitInvalid, Err: se, Excerpt: se, Hint: EncodeHint(e.Kind)}
		case kado.SeqOverflow:
			err = &ExitError{Code: ExitInvalid, Err: se, Hint: EncodeHint(e.Kind)}
		}
	}
	if !e.Text {
		return InvalidError(fmt.Errorf("%s: %w", e.Where, err), "")
	}
	return PositionedError(e.Name, err)
}
