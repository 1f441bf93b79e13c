package inspect

import (
	"bytes"
	"errors"
	"fmt"
	"strconv"

	"github.com/toonkit/toonkit/pkg/capture"
	kado "github.com/toonkit/toonkit/pkg/codec/binary"
)

// Record renders one record of a capture or of a live connection
// (pkg/capture, pkg/tap) in the Text or OneLine view, each frame's title or
// line naming its capture time, connection and direction; offsets and
// frame indices are those of the record's direction. A frame is shown as
// Inspect shows it; a bad frame (a Problem with a *kado.FrameError) with
// the rule it breaks and how reading went on; a WebSocket text message,
// another problem and a note get a line of their own (marked "!" for a
// problem, "~" for a note). The JSON format writes nothing. Records are
// counted in the totals Close returns, and no summary is written for them.
func (in *Inspector) Record(rec *capture.Record) error {
	if in.opts.Format == JSON {
		return nil
	}
	src := string(capture.AppendTime(nil, rec.Time)) + " " + rec.Conn + " " + rec.Dir.String()
	var fe *kado.FrameError
	switch {
	case rec.Kind == capture.Frame:
		rd := kado.NewReader(bytes.NewReader(rec.Frame.Raw), kado.ReaderOptions{MaxFrameSize: in.max, BaseOffset: rec.Frame.Offset})
		f, err := rd.Next()
		if err != nil {
			// The capture's reader took it: not the input's fault.
			return fmt.Errorf("inspect: a frame of the capture does not read again: %w", err)
		}
		f.Index = rec.Frame.Index
		rep := in.analyze(rd, f)
		rep.source = src
		in.count(&in.total, rep)
		in.render(nil, rep)
	case rec.Kind == capture.Problem && errors.As(rec.Err, &fe) && rec.Moved != nil:
		rep := in.analyzeBad(fe, fe.Header, len(fe.Header), rec.Moved.Skipped, rec.Moved.Found)
		rep.source = src
		in.count(&in.total, rep)
		in.render(nil, rep)
	default:
		in.recordLine(rec, src)
	}
	if in.w.err != nil {
		return &WriteError{in.w.err}
	}
	return nil
}

// recordLine is the line of a record that is no frame.
func (in *Inspector) recordLine(rec *capture.Record, src string) {
	var role Role
	var text string
	switch rec.Kind {
	case capture.Text:
		role, text = Dim, "text "+strconv.Quote(string(rec.Text))
	case capture.Note:
		role, text = Warning, "~ "+causeText(rec.Err)
	default:
		in.total.Errors++
		role, text = Error, "! "+causeText(rec.Err)
	}
	p := in.printer()
	if in.opts.Format == Text {
		p.nl()
		p.str(FrameTitle, src+": ")
	} else {
		p.plain(fmt.Sprintf("%6s %10s  ", "-", "-"))
		p.str(Dim, src)
		p.plain("  ")
	}
	p.str(role, text)
	p.nl()
	in.done(p)
}

// causeText is a record's error without the connection and direction
// that the line already names.
func causeText(err error) string {
	var ce *capture.Error
	if errors.As(err, &ce) {
		return ce.Err.Error()
	}
	return err.Error()
}
