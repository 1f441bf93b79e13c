package bridge

import (
	"context"
	"fmt"

	"github.com/toonkit/toonkit/internal/codec"
	"github.com/toonkit/toonkit/internal/codec/jsonv"
	"github.com/toonkit/toonkit/internal/records"
)

// Inputs converts the messages of several inputs (records.Source), one
// after the other, to the protocol Options.To: each input's protocol is
// named (From) or detected (SourceProtocol), and the inputs of one protocol
// in a row are one run, on one Converter (ids, sequence numbers, chunks
// being joined go on from one input to the next); an input of another
// protocol starts a run of its own. For Kado, frames, and with no From the
// records of an input that holds no protocol's messages, are given to the
// sink as they are (as decode's records, which records.BinarySink frames).
type Inputs struct {
	// Options are the Converters' (From is each input's protocol).
	Options Options
	// From names the inputs' format; "": detected per input.
	From codec.Format
	// MaxSize bounds a message read on the workers; 0: jsonv's default.
	MaxSize int

	conv *Converter
}

// PairError says that the messages of an input (Name) do not convert to
// the target: they are of the target protocol already (From == To), or no
// mapping joins the two.
type PairError struct {
	Name     string
	From, To Protocol
}

func (e *PairError) Error() string {
	if e.From == e.To {
		return fmt.Sprintf("%s: the input is %s already", e.Name, e.From)
	}
	return fmt.Sprintf("%s: no mapping from %s to %s (mappings: %s)", e.Name, e.From, e.To, pairList())
}

// Copy converts the messages of src and writes what it makes to snk, as
// records.Copy writes records (it closes src, and does not End snk): with
// opts.Workers of 2 or more (and no opts.Record), the messages of a JSON or
// NDJSON input are mapped on the workers (Stream), the rest by
// Convert. Its errors are a *SourceError or *PairError for the input, a
// *records.Error of the source, an *Error of a message, or the sink's.
func (in *Inputs) Copy(ctx context.Context, src *records.Source, snk records.Sink, opts records.CopyOptions) error {
	to := in.Options.To
	from, err := SourceProtocol(src, in.From, to == Kado)
	switch {
	case err == nil && to == Kado && (from == "" || from == Kado):
		_, err := records.Copy(ctx, src, snk, opts)
		return err
	case err == nil && from == to:
		err = &PairError{Name: src.Name(), From: from, To: to}
	}
	if err != nil {
		src.Close()
		return err
	}
	if in.conv == nil || from != in.conv.opts.From {
		o := in.Options
		o.From = from
		if in.conv, err = New(o); err != nil {
			src.Close()
			return &PairError{Name: src.Name(), From: from, To: to}
		}
	}
	conv := in.conv
	if opts.Workers > 1 && opts.Record == nil && to != Kado && (src.Format() == codec.JSON || src.Format() == codec.NDJSON) {
		rest, err := conv.Stream(ctx, src.Reader(), StreamOptions{Workers: opts.Workers, Elements: src.Format() == codec.JSON,
			MaxValueSize: int64(in.MaxSize), Live: !src.Regular(), LeaveRead: true,
			Where: func(pos jsonv.Position) string { return fmt.Sprintf("%s:%s", src.Name(), pos) }},
			StreamHandler{Emit: snk.Write, Idle: opts.Idle})
		if err != nil || rest == nil {
			src.Close()
			if err != nil {
				return err
			}
			return conv.End()
		}
		src.ReadOn(rest)
	}
	opts.Workers = 1
	_, err = records.Copy(ctx, src, records.SinkFunc(func(rec []byte) error { return conv.Convert(rec, src.Where, snk.Write) }), opts)
	if err != nil {
		return err
	}
	return conv.End()
}
