// Package pcapsrc reads packet captures for records.Source: the frames of
// their connections as decode's records. It is apart from records so that
// a program that reads no capture does not link gopacket.
package pcapsrc

import (
	"errors"
	"io"
	"iter"

	"github.com/toonkit/toonkit/internal/capture"
	"github.com/toonkit/toonkit/internal/records"
	"github.com/toonkit/toonkit/kado"
)

// Reader reads captures with opts (the connections it selects: Ports,
// Conn); records.Source sets their MaxFrameSize.
func Reader(opts capture.Options) records.CaptureReader { return reader(opts) }

type reader capture.Options

// Frames yields the frames of the capture in r; WebSocket text messages
// are passed over, a problem in the capture (a hole, a bad frame) and a
// note are a *records.CaptureEvent, a file that is not a capture (or holds no
// connection that Conn names) a BadCapture.
func (o reader) Frames(r io.Reader, maxFrameSize int) iter.Seq2[records.CaptureFrame, error] {
	copts := capture.Options(o)
	copts.MaxFrameSize = maxFrameSize
	return func(yield func(records.CaptureFrame, error) bool) {
		for rec, err := range capture.Records(r, copts) {
			var f records.CaptureFrame
			switch {
			case err != nil:
				var fe *capture.FormatError
				var ne *capture.NoConnError
				if errors.As(err, &fe) || errors.As(err, &ne) {
					err = &records.Error{Kind: records.BadCapture, Err: err}
				}
			case rec.Kind == capture.Problem:
				err = &records.CaptureEvent{Problem: true, Err: rec.Err, Moved: rec.Moved}
			case rec.Kind == capture.Note:
				err = &records.CaptureEvent{Err: rec.Err}
			case rec.Kind != capture.Frame:
				continue
			default:
				f = func(dst []byte, flat bool) []byte {
					if flat {
						return kado.AppendFlatRecord(dst, rec.Frame.Header, rec.Frame.Compressed(), rec.JSON)
					}
					return capture.AppendRecord(dst, rec)
				}
			}
			if !yield(f, err) {
				return
			}
		}
	}
}
