// Package inspect renders a capture of Kado binary TOON frames for a person
// (an annotated, optionally colored view: header fields, a hexdump of the
// payload, the payload as indented JSON) or for a program (NDJSON facts, one
// object per frame). It reads one frame at a time, in memory bounded by the
// largest frame, whatever the size of the input.
//
// The package knows nothing of terminals: colors come from a Style supplied
// by the caller, which is given a Role for each piece of text.
package inspect

import (
	"errors"
	"fmt"
	"io"
	"time"

	"github.com/toonkit/toonkit/internal/capture"
	"github.com/toonkit/toonkit/internal/errwriter"
	"github.com/toonkit/toonkit/internal/paint"
	"github.com/toonkit/toonkit/kado"
)

// Format is the kind of output.
type Format int

const (
	// Text is the annotated view for a person.
	Text Format = iota
	// JSON is NDJSON: one object per frame and per skip, and a summary.
	JSON
	// OneLine is one line per frame (index, byte offset, type, sequence id,
	// payload length, compression, the start of the payload), as tshark
	// prints packets without -V; a bad frame and a skip get a marked line
	// of their own. No summary.
	OneLine
)

// Options configure an Inspector.
type Options struct {
	Format Format
	// Style colors the Text view; nil is plain text.
	Style paint.Func
	// MaxFrameSize bounds a payload, on the wire and decompressed;
	// 0 means kado.DefaultMaxFrameSize.
	MaxFrameSize int
	// Skip is the number of bytes to pass over before reading. Offsets in
	// the output stay those of the input.
	Skip int64
	// Length is the number of bytes to read from there; 0 means to the end.
	Length int64
	// OnlyFrame shows only the frame with index Frame (0-based, counted
	// from where reading starts); the summary and the counts are then
	// about that frame alone.
	OnlyFrame bool
	Frame     int
	// Workers render the JSON format's frames (their payloads checked,
	// decompressed and compacted) on that many goroutines (internal/pipeline),
	// with the output of one; <= 1, the Text format and OnlyFrame are
	// single-worker.
	Workers int
	// Name names the input of Record (a live capture) in the JSON
	// format; "" is "-".
	Name string
	// SummaryOnly writes only the closing summary (Text or JSON), with
	// the counts per type, per check and, for captures, per connection
	// and the time span.
	SummaryOnly bool
	// Flush, when set, is called after a frame is shown whenever the input
	// has nothing more buffered, so that a live capture (tail -f) is shown
	// frame by frame through a buffered writer.
	Flush func() error
}

// Summary counts what an Inspector saw.
type Summary struct {
	Files      int
	Frames     int   // frames met: valid, invalid and cut
	Valid      int   // frames that broke no rule and hold JSON
	Invalid    int   // frames that broke a rule or do not hold JSON
	Cut        int   // frames cut off by Options.Length, not checked
	Compressed int   // frames with an RLE-compressed payload
	Bytes      int64 // bytes covered by the frames and skips counted
	Skipped    int64 // bytes passed over to find the next plausible header
	Errors     int   // broken rules (a frame may break more than one)
	Warnings   int   // RLE oddities

	// Indices is the number of frame indices met in the input (for a
	// message when Options.Frame is not there); FrameFound reports whether
	// the selected frame was found.
	Indices    int
	FrameFound bool

	// Problems lists the invalid frames, in order, up to MaxProblems.
	// For a capture it also lists its other problems (holes, WebSocket
	// errors, connections not followed).
	Problems []Problem

	// Types counts the frames whose header was good, by type (the index
	// is the type byte, 1-8).
	Types [9]int
	// Checks counts the rules broken and the warnings, by check: the
	// header fields (version, type, payloadLength, header), payload (not
	// JSON or too large), rle (an RLE oddity), and in captures gap (bytes
	// missing), websocket and connections (one not followed: too many
	// open).
	Checks map[string]int
	// Warned marks the checks of Checks that are warnings, when Counted
	// set them (validate's rule codes); otherwise rle alone is.
	Warned map[string]bool

	// Of packet captures (InspectCapture): the connections in the order
	// they were met (up to MaxConns; the others are counted in the last),
	// the WebSocket text messages, the problems that are not frames
	// (Faults), the notes (a connection already open, a direction that is
	// not frames), and the capture times of the first and last record.
	Conns       []ConnSummary
	Texts       int
	Faults      int
	Notes       int
	First, Last time.Time

	// connAt indexes Conns by name (checked on use: a copied Summary
	// shares it); lastConn is the index conn returned last (checked too):
	// a request and its response follow each other.
	connAt   map[string]int
	lastConn int
}

// ConnSummary counts what one connection of a capture held.
type ConnSummary struct {
	Conn    string // "10.0.0.1:51234>10.0.0.2:7000"
	Frames  int    // frames met, valid and invalid
	Invalid int
	Texts   int // WebSocket text messages
	Faults  int // problems that are not frames: holes, WebSocket errors
}

// MaxConns bounds Summary.Conns: the connections after it are counted
// together under the name "(others)".
const MaxConns = 10000

// MaxProblems bounds Summary.Problems.
const MaxProblems = 100

// Problem is an invalid frame, or a problem of a capture, for a message.
type Problem struct {
	Kind   kado.Problem // BadPayload for a payload that is not JSON; 0 for a capture's problem that is no frame
	Frame  int          // -1 for a capture's problem that is no frame
	Offset int64        // the byte that broke the rule
	Msg    string       // as decode says it: "version: expected 1, found 2 (0x02)"
	// Where, in a capture: the connection and direction,
	// "10.0.0.1:51234>10.0.0.2:7000 c2s".
	Where string
}

func (p Problem) String() string {
	msg := p.Msg
	if p.Frame >= 0 {
		msg = fmt.Sprintf("frame %d at byte %d: %s", p.Frame, p.Offset, p.Msg)
	}
	if p.Where != "" {
		msg = p.Where + ": " + msg
	}
	return msg
}

func (s *Summary) add(o Summary) {
	s.Files += o.Files
	s.Frames += o.Frames
	s.Valid += o.Valid
	s.Invalid += o.Invalid
	s.Cut += o.Cut
	s.Compressed += o.Compressed
	s.Bytes += o.Bytes
	s.Skipped += o.Skipped
	s.Errors += o.Errors
	s.Warnings += o.Warnings
	s.Indices += o.Indices
	s.FrameFound = s.FrameFound || o.FrameFound
	for _, p := range o.Problems {
		if len(s.Problems) < MaxProblems {
			s.Problems = append(s.Problems, p)
		}
	}
	for i, n := range o.Types {
		s.Types[i] += n
	}
	for k, n := range o.Checks {
		s.check(k, n)
	}
	for _, c := range o.Conns {
		t := s.conn(c.Conn)
		t.Frames += c.Frames
		t.Invalid += c.Invalid
		t.Texts += c.Texts
		t.Faults += c.Faults
	}
	s.Texts += o.Texts
	s.Faults += o.Faults
	s.Notes += o.Notes
	s.seen(o.First)
	s.seen(o.Last)
}

// check counts n of a check.
func (s *Summary) check(name string, n int) {
	if s.Checks == nil {
		s.Checks = map[string]int{}
	}
	s.Checks[name] += n
}

// conn returns the counts of a connection, added when it is new.
func (s *Summary) conn(name string) *ConnSummary {
	if i := s.lastConn; i < len(s.Conns) && s.Conns[i].Conn == name {
		return &s.Conns[i]
	}
	if i, ok := s.connAt[name]; ok && i < len(s.Conns) && s.Conns[i].Conn == name {
		s.lastConn = i
		return &s.Conns[i]
	}
	if len(s.connAt) != len(s.Conns) {
		// Not built yet, or built for a Summary this one was copied from.
		s.connAt = make(map[string]int, len(s.Conns))
		for i := range s.Conns {
			s.connAt[s.Conns[i].Conn] = i
		}
		if i, ok := s.connAt[name]; ok {
			return &s.Conns[i]
		}
	}
	if len(s.Conns) >= MaxConns {
		name = "(others)"
		if last := &s.Conns[len(s.Conns)-1]; last.Conn == name {
			return last
		}
	}
	if s.connAt == nil {
		s.connAt = map[string]int{}
	}
	s.connAt[name] = len(s.Conns)
	s.Conns = append(s.Conns, ConnSummary{Conn: name})
	return &s.Conns[len(s.Conns)-1]
}

// seen widens the time span to t (the zero time is no time).
func (s *Summary) seen(t time.Time) {
	if t.IsZero() {
		return
	}
	if s.First.IsZero() || t.Before(s.First) {
		s.First = t
	}
	if s.Last.IsZero() || t.After(s.Last) {
		s.Last = t
	}
}

// ReadError is an error of the input reader. What was read before it has
// been rendered.
type ReadError struct{ Err error }

func (e *ReadError) Error() string { return e.Err.Error() }
func (e *ReadError) Unwrap() error { return e.Err }

// WriteError is an error of the output writer.
type WriteError struct{ Err error }

func (e *WriteError) Error() string { return e.Err.Error() }
func (e *WriteError) Unwrap() error { return e.Err }

// Inspector renders inputs one after the other, then a summary.
type Inspector struct {
	w     *errWriter
	opts  Options
	max   int
	total Summary
	files int

	// scratch, reused from frame to frame
	line, title []byte
	capRep      report            // the report of a capture's frame (classify)
	times       capture.TimeCache // the capture times of --oneline
}

// New returns an Inspector that writes to w.
func New(w io.Writer, opts Options) *Inspector {
	m := opts.MaxFrameSize
	if m <= 0 {
		m = kado.DefaultMaxFrameSize
	}
	return &Inspector{w: &errWriter{W: w}, opts: opts, max: m}
}

// Render inspects one input and writes the summary: New, Inspect, Close.
func Render(w io.Writer, r io.Reader, name string, opts Options) (Summary, error) {
	in := New(w, opts)
	if _, err := in.Inspect(name, r); err != nil {
		return in.total, err
	}
	return in.Close()
}

// Counted makes the summary's errors, warnings and checks those of
// another run of checks over the same inputs (validate's: its counts and
// its rule codes, warned marking the codes that are warnings), so that
// the two agree; the frame counts stay the inspector's. Call it before
// Close.
func (in *Inspector) Counted(errors, warnings int, checks map[string]int, warned map[string]bool) {
	in.total.Errors, in.total.Warnings, in.total.Checks, in.total.Warned = errors, warnings, checks, warned
}

// Close writes the closing summary and returns the totals of every input.
// When no input was inspected it writes nothing.
func (in *Inspector) Close() (Summary, error) {
	if in.w.Err != nil {
		return in.total, &WriteError{in.w.Err}
	}
	if in.files == 0 {
		return in.total, nil
	}
	if in.opts.Format == JSON {
		in.line = appendSummaryJSON(in.line[:0], &in.opts, in.total)
		in.w.Write(in.line)
	} else if in.opts.Format == Text || in.opts.SummaryOnly {
		in.writeSummaryText(in.total)
	}
	if in.w.Err != nil {
		return in.total, &WriteError{in.w.Err}
	}
	return in.total, nil
}

// Inspect reads one input to its end (or to the end of the selected frame)
// and writes its view, introduced by name. It returns the counts of this
// input; a *ReadError or *WriteError stops it.
func (in *Inspector) Inspect(name string, r io.Reader) (Summary, error) {
	in.files++
	s := Summary{Files: 1}
	err := in.inspect(name, r, &s)
	in.total.add(s)
	if err == nil && in.w.Err != nil {
		err = &WriteError{in.w.Err}
	}
	return s, err
}

func (in *Inspector) inspect(name string, r io.Reader, s *Summary) error {
	o := &in.opts
	if o.Format != JSON && !o.SummaryOnly {
		in.writeFileTitle(name)
	}
	skipped, err := skip(r, o.Skip)
	if err != nil {
		return &ReadError{err}
	}
	win := &window{r: r, n: o.Length, limited: o.Length > 0}
	rd := kado.NewReader(win, kado.ReaderOptions{MaxFrameSize: in.max, BaseOffset: o.Skip})
	fc := &frameContext{name: name}
	if skipped < o.Skip {
		in.note(fc, fmt.Sprintf("the input ends at byte %d, before --skip %d", skipped, o.Skip))
		return nil
	}
	if o.Format == JSON && o.Workers > 1 && !o.OnlyFrame && !o.SummaryOnly {
		return in.inspectJSONParallel(rd, win, fc, s)
	}
	met := false
	for {
		if in.w.Err != nil {
			return nil
		}
		f, err := rd.Next()
		if err == io.EOF {
			break
		}
		met = true
		if err == nil {
			s.Indices = f.Index + 1
			if o.OnlyFrame && f.Index != o.Frame {
				if f.Index > o.Frame {
					break
				}
				// A payload that is not JSON may have a wrong length: move
				// on as decode does, so that frame numbers agree with it.
				if _, err := rd.JSON(f); err != nil {
					rd.SkipBadPayload(f)
				}
				continue
			}
			rep := in.analyzeOwn(rd, f)
			in.count(s, rep)
			in.render(fc, rep)
			in.flushIdle(rd)
			if o.OnlyFrame {
				s.FrameFound = true
				break
			}
			continue
		}
		var fe *kado.FrameError
		if !errors.As(err, &fe) {
			return &ReadError{err}
		}
		s.Indices = fe.Frame + 1
		selected := !o.OnlyFrame || fe.Frame == o.Frame
		if o.OnlyFrame && fe.Frame > o.Frame {
			break
		}
		// For a truncation the reader has read to the end: every byte left
		// is buffered.
		var pending []byte
		buffered := len(rd.Buffered())
		if selected {
			pending = append(pending, rd.Peek(maxDamagedDump+kado.HeaderSize)...)
		}
		if (fe.Kind == kado.TruncatedHeader || fe.Kind == kado.TruncatedPayload) && win.cutShort() {
			if selected {
				rep := in.analyzeCut(fe, pending, buffered)
				in.count(s, rep)
				in.render(fc, rep)
				in.flushIdle(rd)
				in.flushIdle(rd)
				s.FrameFound = true
			}
			break
		}
		n, found := rd.Resync()
		if !selected {
			continue
		}
		rep := in.analyzeBad(fe, pending, buffered, n, found)
		in.count(s, rep)
		in.render(fc, rep)
		if o.OnlyFrame {
			s.FrameFound = true
			break
		}
	}
	if win.err != nil {
		return &ReadError{win.err}
	}
	if !met && o.Format != JSON {
		what := "the input is empty"
		if o.Skip > 0 {
			what = fmt.Sprintf("nothing after byte %d", o.Skip)
		}
		in.note(fc, "no frames: "+what)
	} else if o.OnlyFrame && !s.FrameFound && o.Format != JSON {
		in.note(fc, noFrameText(o.Frame, s.Indices))
	}
	return nil
}

// flushIdle calls Options.Flush when the reader has nothing buffered: the
// next read may wait for the input.
func (in *Inspector) flushIdle(rd *kado.Reader) {
	if in.opts.Flush != nil && in.w.Err == nil && len(rd.Buffered()) == 0 {
		if err := in.opts.Flush(); err != nil {
			in.w.Err = err
		}
	}
}

// NoFrame says that a selected frame is not in an input that holds indices
// frame indices.
func NoFrame(frame, indices int) string { return noFrameText(frame, indices) }

func noFrameText(frame, indices int) string {
	switch indices {
	case 0:
		return fmt.Sprintf("no frame %d: the input holds no frames", frame)
	case 1:
		return fmt.Sprintf("no frame %d: the input holds only frame 0", frame)
	}
	return fmt.Sprintf("no frame %d: the input holds frames 0-%d", frame, indices-1)
}

func (in *Inspector) count(s *Summary, rep *report) {
	s.Frames++
	switch {
	case rep.cut:
		s.Cut++
		s.Bytes += int64(rep.avail)
	case len(rep.errors) > 0:
		s.Invalid++
	default:
		s.Valid++
	}
	if rep.ok && rep.compressed {
		s.Compressed++
	}
	if rep.ok && rep.skip == nil {
		s.Bytes += int64(rep.size)
	}
	if rep.skip != nil {
		s.Bytes += rep.skip.bytes
		s.Skipped += rep.skip.bytes
	}
	s.Errors += len(rep.errors)
	s.Warnings += len(rep.warnings)
	if rep.ok && int(rep.typ) < len(s.Types) {
		s.Types[rep.typ]++
	}
	for _, e := range rep.errors {
		s.check(e.field, 1)
	}
	if len(rep.warnings) > 0 {
		s.check("rle", len(rep.warnings))
	}
	if rep.src != nil {
		c := s.conn(rep.src.conn)
		c.Frames++
		if len(rep.errors) > 0 {
			c.Invalid++
		}
		s.seen(rep.src.time)
	}
	if rep.problem != nil && len(s.Problems) < MaxProblems {
		s.Problems = append(s.Problems, *rep.problem)
	}
}

// countGood counts a good frame of a capture as count counts its report
// (frameReport's): valid, with warnings RLE oddities, from src.
func (in *Inspector) countGood(s *Summary, f *kado.Frame, warnings int, src *source) {
	s.Frames++
	s.Valid++
	if f.Compressed() {
		s.Compressed++
	}
	s.Bytes += int64(f.Size())
	s.Warnings += warnings
	if typ := f.Header.Type; int(typ) < len(s.Types) {
		s.Types[typ]++
	}
	if warnings > 0 {
		s.check("rle", warnings)
	}
	s.conn(src.conn).Frames++
	s.seen(src.time)
}

// skip passes over n bytes of r: by seeking when r can seek, else by
// reading. It returns how many bytes it passed over.
func skip(r io.Reader, n int64) (int64, error) {
	if n <= 0 {
		return 0, nil
	}
	if sk, ok := r.(io.Seeker); ok {
		if cur, err := sk.Seek(0, io.SeekCurrent); err == nil {
			end, err := sk.Seek(0, io.SeekEnd)
			if err == nil {
				to := min(cur+n, end)
				if _, err := sk.Seek(to, io.SeekStart); err == nil {
					return to - cur, nil
				}
			}
			// Not seekable after all (a pipe, say): put it back and read.
			if _, err := sk.Seek(cur, io.SeekStart); err != nil {
				return 0, err
			}
		}
	}
	m, err := io.CopyN(io.Discard, r, n)
	if err == io.EOF {
		err = nil
	}
	return m, err
}

// window reads at most n bytes of r when limited. When it has given all n,
// it looks one byte further to tell whether the input went on (cutShort).
type window struct {
	r       io.Reader
	n       int64
	limited bool
	probed  bool
	more    bool
	err     error // a read error other than io.EOF
}

func (w *window) Read(p []byte) (int, error) {
	if !w.limited {
		n, err := w.r.Read(p)
		w.keep(err)
		return n, err
	}
	if w.n <= 0 {
		if !w.probed {
			w.probed = true
			var b [1]byte
			k, err := io.ReadFull(w.r, b[:])
			w.more = k > 0
			if err != io.EOF && err != io.ErrUnexpectedEOF {
				w.keep(err)
			}
		}
		return 0, io.EOF
	}
	if int64(len(p)) > w.n {
		p = p[:w.n]
	}
	n, err := w.r.Read(p)
	w.n -= int64(n)
	w.keep(err)
	return n, err
}

func (w *window) keep(err error) {
	if err != nil && err != io.EOF && w.err == nil {
		w.err = err
	}
}

// cutShort reports whether the window ended before the input did.
func (w *window) cutShort() bool { return w.limited && w.n <= 0 && w.probed && w.more }

// errWriter keeps the first write error and drops writes after it.
type errWriter = errwriter.Writer
