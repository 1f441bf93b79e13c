package inspect

import (
	"encoding/binary"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/toonkit/toonkit/internal/isotime"
	"github.com/toonkit/toonkit/internal/paint"
	"github.com/toonkit/toonkit/kado"
)

// maxDamagedDump bounds the bytes shown after the header of a frame that
// broke a rule (the rest of a truncated payload, or skipped bytes).
const maxDamagedDump = 4096

// status is the outcome of one check.
type status int

const (
	statusOK        status = iota
	statusInvalid          // the field breaks a rule
	statusUnchecked        // the reader stopped before this check
	statusMissing          // the field is not there: the input ended
	statusCut              // the field or payload was cut off by --length
)

func (s status) String() string {
	return [...]string{"ok", "invalid", "unchecked", "missing", "cut"}[s]
}

// field is one header field with its bytes, its value and its check.
type field struct {
	name   string
	role   paint.Role
	off    int    // within the frame
	size   int    // in the header
	raw    []byte // the bytes present (fewer than size when the input ended)
	value  string // decoded, for display; "" when incomplete
	num    uint64 // decoded number, when complete
	iso    string // timestamp as ISO-8601, when complete and in range
	check  string // "ok", "INVALID: ...", ...
	status status
	msg    string // the rule broken, for errors: "expected 1, found 2 (0x02)"
}

// lengthFacts is what the reader learnt about the payload of a frame.
type lengthFacts struct {
	reached bool // the reader got as far as the payload
	avail   int  // payload bytes that were there
	cut     bool // the input ended at --length, not for real
}

// fieldLayout is the order, place and size of the header fields.
var fieldLayout = []struct {
	name string
	role paint.Role
	off  int
	size int
}{
	{"version", paint.HeaderVersion, kado.OffVersion, 1},
	{"type", paint.HeaderType, kado.OffType, 1},
	{"payloadLength", paint.HeaderLength, kado.OffPayloadLength, 4},
	{"timestamp", paint.HeaderTimestamp, kado.OffTimestamp, 8},
	{"sequenceId", paint.HeaderSequence, kado.OffSequenceID, 4},
}

// checkFields appends to out the header fields in hdr, decoded and checked (up to
// HeaderSize bytes; fewer when the input ended). Each field is checked on
// its own: version and type against the spec, payloadLength against
// maxSize and, when the reader got that far, against the bytes that
// followed.
func checkFields(out []field, hdr []byte, maxSize int, lf lengthFacts) []field {
	cutShown := false
	for _, l := range fieldLayout {
		f := field{name: l.name, role: l.role, off: l.off, size: l.size}
		if l.off < len(hdr) {
			f.raw = hdr[l.off:min(len(hdr), l.off+l.size)]
		}
		if len(f.raw) < l.size {
			switch {
			case lf.cut:
				f.status, f.check = statusCut, "cut off by --length"
			case !cutShown:
				f.status = statusInvalid
				f.msg = fmt.Sprintf("only %d of its %d bytes remain", len(f.raw), l.size)
				f.check = "INVALID: " + f.msg
				if len(f.raw) == 0 {
					f.msg = "missing: the input ends"
					f.check = "INVALID: missing"
				}
				cutShown = true
			default:
				f.status, f.check = statusMissing, "missing"
			}
			out = append(out, f)
			continue
		}
		var le [8]byte
		copy(le[:], f.raw)
		f.num = binary.LittleEndian.Uint64(le[:])
		f.value = strconv.FormatUint(f.num, 10)
		f.check = "ok"
		switch l.name {
		case "version":
			if err := (kado.Header{Version: uint8(f.num), Type: kado.Instruction}).Check(0); err != nil {
				f.fail(err.(*kado.FieldError))
			}
		case "type":
			t := kado.MessageType(f.num)
			name := "UNKNOWN"
			if t.Valid() {
				name = t.String()
			}
			f.value = name + " (0x" + strings.ToUpper(hexCell[f.num&0xff]) + ")"
			if err := (kado.Header{Version: kado.Version, Type: t}).Check(0); err != nil {
				f.fail(err.(*kado.FieldError))
			}
		case "payloadLength":
			h := kado.Header{Version: kado.Version, Type: kado.Instruction, PayloadLength: uint32(f.num)}
			switch err := h.Check(maxSize); {
			case err != nil:
				f.fail(err.(*kado.FieldError))
			case lf.cut:
				f.status = statusCut
				f.check = fmt.Sprintf("cut off by --length: %d of %d bytes read", lf.avail, f.num)
			case !lf.reached:
				f.status, f.check = statusUnchecked, "unchecked"
			case uint64(lf.avail) < f.num:
				f.status = statusInvalid
				f.msg = fmt.Sprintf("expected %d payload bytes, found only %d %s", f.num, lf.avail, plural(lf.avail, "byte remains", "bytes remain"))
				f.check = fmt.Sprintf("INVALID: only %d %s", lf.avail, plural(lf.avail, "byte remains", "bytes remain"))
			default:
				f.check = "ok: " + f.value + " " + plural(int(f.num), "byte", "bytes") + " present"
			}
		case "timestamp":
			if iso, ok := isoTime(f.num); ok {
				f.iso = iso
				f.value += " (" + iso + ")"
			} else {
				f.value += " (after year 9999)"
			}
		}
		out = append(out, f)
	}
	return out
}

func (f *field) fail(fe *kado.FieldError) {
	f.status = statusInvalid
	f.msg = fmt.Sprintf("expected %s, found %s", fe.Expected, fe.Found)
	f.check = "INVALID: " + f.msg
}

// maxISO is 9999-12-31T23:59:59.999Z in Unix milliseconds.
const maxISO = 253402300799999

// isoTime formats Unix milliseconds as ISO-8601 UTC with milliseconds,
// 2025-01-01T00:00:00.123Z. It reports false past the year 9999.
func isoTime(ms uint64) (string, bool) {
	if ms > maxISO {
		return "", false
	}
	return string(isotime.Append(nil, time.UnixMilli(int64(ms)), 3)), true
}

// problem is a broken rule or a warning, at an absolute offset.
type problem struct {
	field  string
	offset int64
	size   int // bytes marked; 0: a place between bytes
	msg    string
}

// skipInfo is a Resync after a frame that broke a rule.
type skipInfo struct {
	from   int64
	bytes  int64
	found  bool
	resume int64
}

// report is everything known about one frame, for rendering.
type report struct {
	index  int
	offset int64
	ok     bool             // the reader accepted the frame (its header and length)
	cut    bool             // cut off by --length
	kind   kado.Problem     // the rule broken, when !ok && !cut
	typ    kado.MessageType // the frame's type, when ok
	src    *source          // where in a capture the frame was, or nil
	size   int              // bytes of the frame, when ok
	avail  int              // bytes of the frame that were there, when cut

	title     string // the first rule broken, or the frame's type and sequence
	header    []byte // up to HeaderSize bytes
	fields    []field
	fieldsBuf [5]field // fields' array: one allocation with the report
	srcBuf    source   // src's, for a frame of a capture

	payload       []byte // the wire payload (ok), or the bytes after the header that are shown
	payloadAt     int64
	payloadLength uint32
	more          int64 // bytes after payload not shown (damaged frames)

	compressed   bool
	decompressed int    // size, when decompression worked
	json         []byte // compact JSON, when the payload is JSON
	jsonErr      *problem

	errors   []problem
	warnings []problem
	problem  *Problem // the rule broken, as the reader reports it

	skip *skipInfo
}

// analyze looks at a frame that the reader accepted: its payload is
// decompressed and checked as JSON.
func (in *Inspector) analyze(rd *kado.Reader, f *kado.Frame) *report {
	rep := &report{}
	in.analyzeInto(rep, rd, f)
	return rep
}

// analyzeInto is analyze into a report that it overwrites, so that a
// caller may reuse one.
func (in *Inspector) analyzeInto(rep *report, rd *kado.Reader, f *kado.Frame) {
	in.analyzeFrameInto(rep, f)
	// The reader's check words a failure exactly as decode reports it.
	js, err := rd.JSON(f)
	rep.decompressed = rd.DecompressedLen()
	if err != nil {
		rep.payloadError(err)
		return
	}
	rep.json = js
}

// analyzeFrame is analyze without the payload's JSON: the header, its
// checks and the RLE oddities.
func (in *Inspector) analyzeFrame(f *kado.Frame) *report {
	rep := &report{}
	in.analyzeFrameInto(rep, f)
	return rep
}

// analyzeFrameInto is analyzeFrame into a report that it overwrites, so
// that a caller may reuse one.
func (in *Inspector) analyzeFrameInto(rep *report, f *kado.Frame) {
	wire := f.Payload()
	*rep = report{
		index: f.Index, offset: f.Offset, ok: true, size: f.Size(),
		header: f.Raw[:kado.HeaderSize], payload: wire, payloadAt: f.Offset + kado.HeaderSize,
		payloadLength: f.Header.PayloadLength, compressed: f.Compressed(),
	}
	rep.typ = f.Header.Type
	if in.opts.Format != OneLine && !in.opts.SummaryOnly { // the only views without the title and table
		rep.title = f.Header.Type.String() + ", seq " + strconv.FormatUint(uint64(f.Header.SequenceID), 10) + ", " + strconv.Itoa(f.Size()) + " bytes"
		rep.fields = checkFields(rep.fieldsBuf[:0], rep.header, in.max, lengthFacts{reached: true, avail: len(wire)})
	}
	if rep.compressed {
		body := wire[1:]
		for _, o := range kado.RLEOddities(body) {
			at := rep.payloadAt + 1 + int64(o.Offset)
			var msg string
			size := len(body) - o.Offset
			if o.What == "zero count" {
				size = 3
				msg = fmt.Sprintf("RLE zero count: FF %02X 00 expands to nothing (an encoder never writes it)", body[o.Offset+1])
			} else {
				msg = fmt.Sprintf("RLE truncated escape: FF with %d %s after it is taken literally (an encoder never writes it)", size-1, plural(size-1, "byte", "bytes"))
			}
			rep.warnings = append(rep.warnings, problem{field: "payload", offset: at, size: size, msg: msg})
		}
	}
}

// payloadError records that the frame's payload is not JSON (err from
// Reader.JSON).
func (rep *report) payloadError(err error) {
	var fe *kado.FrameError
	if !errors.As(err, &fe) {
		fe = &kado.FrameError{Field: "payload", ByteOffset: rep.payloadAt, Err: err}
	}
	p := problem{field: "payload", offset: fe.ByteOffset, msg: strings.TrimPrefix(frameErrorText(fe), "payload: ")}
	if !rep.compressed && fe.ByteOffset >= rep.payloadAt && fe.ByteOffset < rep.payloadAt+int64(len(rep.payload)) {
		p.size = 1 // the byte is on the wire: mark it
	}
	rep.errors = append(rep.errors, p)
	rep.jsonErr = &rep.errors[len(rep.errors)-1]
	rep.problem = &Problem{Kind: kado.BadPayload, Frame: rep.index, Offset: fe.ByteOffset, Msg: frameErrorText(fe)}
	if errors.Is(err, kado.ErrTooLarge) {
		rep.problem.Kind = kado.TooLarge
	}
}

// analyzeBad describes a frame that broke a rule, from the bytes buffered
// at its start, and the Resync that followed.
func (in *Inspector) analyzeBad(fe *kado.FrameError, pending []byte, buffered int, skipped int64, found bool) *report {
	rep := &report{index: fe.Frame, offset: fe.Offset, kind: fe.Kind, avail: buffered}
	rep.header = pending[:min(len(pending), kado.HeaderSize)]
	rep.title = "INVALID: " + frameErrorText(fe)
	rep.problem = &Problem{Kind: fe.Kind, Frame: fe.Frame, Offset: fe.ByteOffset, Msg: frameErrorText(fe)}
	lf := lengthFacts{}
	if fe.Kind == kado.TruncatedPayload {
		lf.reached = true
		lf.avail = buffered - kado.HeaderSize
	}
	rep.fields = checkFields(rep.fieldsBuf[:0], rep.header, in.max, lf)
	rep.errors = fieldErrors(rep.fields, fe.Offset)
	if fe.Kind == kado.TruncatedHeader {
		rep.errors = append(rep.errors, problem{field: "header", offset: fe.ByteOffset, msg: fmt.Sprintf("expected %s, found %s", fe.Expected, fe.Found)})
		// The per-field note of the cut field is enough in the table; the
		// error is the header's.
		rep.errors = dropField(rep.errors, firstCutField(rep.fields))
	}
	if len(rep.errors) == 0 {
		// Cannot happen: the reader and checkFields apply the same rules.
		// Report the reader's word all the same.
		rep.errors = append(rep.errors, problem{field: fe.Field, offset: fe.ByteOffset, msg: fmt.Sprintf("expected %s, found %s", fe.Expected, fe.Found)})
	}
	if len(rep.header) == kado.HeaderSize {
		rep.payloadLength = binary.LittleEndian.Uint32(rep.header[kado.OffPayloadLength:])
	}
	rep.skip = &skipInfo{from: fe.Offset, bytes: skipped, found: found, resume: fe.Offset + skipped}
	// The bytes after the header up to where reading resumes.
	end := int64(len(pending))
	if found {
		end = min(end, skipped)
	}
	if end > kado.HeaderSize {
		rep.payload = pending[kado.HeaderSize:end]
		rep.payloadAt = fe.Offset + kado.HeaderSize
	}
	if all := skipped; all > max(end, kado.HeaderSize) {
		rep.more = all - max(end, kado.HeaderSize)
	}
	return rep
}

// analyzeCut describes a frame cut off by the end of the --length window.
func (in *Inspector) analyzeCut(fe *kado.FrameError, pending []byte, avail int) *report {
	rep := &report{index: fe.Frame, offset: fe.Offset, cut: true, avail: avail}
	rep.header = pending[:min(len(pending), kado.HeaderSize)]
	lf := lengthFacts{cut: true}
	if len(pending) >= kado.HeaderSize {
		lf.reached = true
		lf.avail = avail - kado.HeaderSize
		rep.payload = pending[kado.HeaderSize:]
		rep.payloadAt = fe.Offset + kado.HeaderSize
		rep.payloadLength = binary.LittleEndian.Uint32(rep.header[kado.OffPayloadLength:])
		rep.more = int64(avail - len(pending))
	}
	rep.title = fmt.Sprintf("cut off by --length at byte %d, not checked", fe.Offset+int64(avail))
	rep.fields = checkFields(rep.fieldsBuf[:0], rep.header, in.max, lf)
	return rep
}

func frameErrorText(fe *kado.FrameError) string {
	msg := fe.Field
	if fe.Expected != "" || fe.Found != "" {
		msg += fmt.Sprintf(": expected %s, found %s", fe.Expected, fe.Found)
	}
	if fe.Err != nil {
		msg += ": " + fe.Err.Error()
	}
	return msg
}

func fieldErrors(fields []field, frameAt int64) []problem {
	var out []problem
	for _, f := range fields {
		if f.status == statusInvalid {
			out = append(out, problem{field: f.name, offset: frameAt + int64(f.off), size: max(len(f.raw), 1), msg: f.msg})
		}
	}
	return out
}

func firstCutField(fields []field) string {
	for _, f := range fields {
		if len(f.raw) < f.size {
			return f.name
		}
	}
	return ""
}

func dropField(ps []problem, name string) []problem {
	out := ps[:0]
	for _, p := range ps {
		if p.field != name {
			out = append(out, p)
		}
	}
	return out
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}
