package kado

import (
	"bytes"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/go-json-experiment/json/jsontext"
	"github.com/toonkit/toonkit/internal/codec/jsonv"
)

// AppendRecord appends the JSON record of a frame, as `toonkit decode`
// writes it, to dst:
//
//	{"header":{"version":1,"type":1,"typeName":"INSTRUCTION","payloadLength":60,
//	"timestamp":1735689600123,"sequenceId":1,"compressed":false},"payload":...}
//
// payload must be compact JSON (see Reader.JSON).
func AppendRecord(dst []byte, h Header, compressed bool, payload []byte) []byte {
	dst = append(dst, `{"header":{"version":`...)
	dst = strconv.AppendUint(dst, uint64(h.Version), 10)
	dst = append(dst, `,"type":`...)
	dst = strconv.AppendUint(dst, uint64(h.Type), 10)
	dst = append(dst, `,"typeName":"`...)
	dst = append(dst, h.Type.String()...)
	dst = append(dst, `","payloadLength":`...)
	dst = strconv.AppendUint(dst, uint64(h.PayloadLength), 10)
	dst = append(dst, `,"timestamp":`...)
	dst = strconv.AppendUint(dst, h.Timestamp, 10)
	dst = append(dst, `,"sequenceId":`...)
	dst = strconv.AppendUint(dst, uint64(h.SequenceID), 10)
	dst = append(dst, `,"compressed":`...)
	dst = strconv.AppendBool(dst, compressed)
	dst = append(dst, `},"payload":`...)
	dst = append(dst, payload...)
	return append(dst, '}')
}

// Record is a frame given as JSON: either decode's record form, with the
// header fields it sets, or a bare payload.
type Record struct {
	IsRecord bool // the value had the {"header":..., "payload":...} shape

	Version      *uint8
	Type         *MessageType
	Timestamp    *uint64
	SequenceID   *uint32
	Payload      jsontext.Value
	PayloadStart int64 // offset of Payload within the value
}

// RecordError is a field of a JSON record that cannot go into a frame.
type RecordError struct {
	Offset  int64  // within the value
	Pointer string // JSON pointer of the field
	Msg     string
}

func (e *RecordError) Error() string {
	if e.Pointer == "" {
		return e.Msg
	}
	return e.Pointer + ": " + e.Msg
}

// ParseRecord reads one JSON value meant for a frame. A value that is an
// object with exactly the members "header" (an object) and "payload" is a
// record: its header fields version, type, typeName, timestamp and
// sequenceId are checked to fit their fields; payloadLength and compressed
// are accepted and recomputed, capture (where decode found the frame in a
// packet capture) is accepted and left out. Any other value is a bare payload. v must be
// one valid JSON value, as jsonv.Reader returns it.
func ParseRecord(v jsontext.Value) (Record, error) {
	bare := Record{Payload: v}
	if v.Kind() != '{' {
		return bare, nil
	}
	header, headerAt, payload, payloadAt, split := splitRecord(v)
	if !split {
		header, headerAt, payload, payloadAt = splitRecordSlow(v)
	}
	if header == nil || payload == nil || header.Kind() != '{' {
		return bare, nil
	}
	return parseHeader(header, headerAt, payload, payloadAt)
}

// splitRecordSlow finds the members of a {"header":...,"payload":...}
// object with a decoder. header or payload is nil when v is not a record.
func splitRecordSlow(v jsontext.Value) (header jsontext.Value, headerAt int64, payload jsontext.Value, payloadAt int64) {
	dec := jsontext.NewDecoder(bytes.NewBuffer(v)) // in place, not copied
	if _, err := dec.ReadToken(); err != nil {
		return nil, 0, nil, 0
	}
	n := 0
	for dec.PeekKind() != '}' {
		tok, err := dec.ReadToken()
		if err != nil {
			return nil, 0, nil, 0
		}
		name := tok.String()
		if name != "header" && name != "payload" {
			return nil, 0, nil, 0 // not a record; do not read the rest
		}
		val, err := dec.ReadValue()
		if err != nil {
			return nil, 0, nil, 0
		}
		at := dec.InputOffset() - int64(len(val))
		val = v[at : at+int64(len(val))] // ReadValue's result is voided by the next read
		n++
		if name == "header" {
			header, headerAt = val, at
		} else {
			payload, payloadAt = val, at
		}
	}
	if n != 2 {
		return nil, 0, nil, 0
	}
	return header, headerAt, payload, payloadAt
}

// splitRecord is splitRecordSlow for a v that is valid JSON (as jsonv.Reader
// returns it): it finds the members' bounds without validating them again,
// by a structural scan. It reports ok = false, and the caller falls back on
// splitRecordSlow, for anything unusual (an escaped name, bad structure).
func splitRecord(v []byte) (header jsontext.Value, headerAt int64, payload jsontext.Value, payloadAt int64, ok bool) {
	i := skipSpace(v, 0)
	if i >= len(v) || v[i] != '{' {
		return nil, 0, nil, 0, false
	}
	i = skipSpace(v, i+1)
	if i < len(v) && v[i] == '}' {
		return nil, 0, nil, 0, skipSpace(v, i+1) == len(v) // {}: not a record
	}
	for n := 0; ; n++ {
		if i >= len(v) || v[i] != '"' {
			return nil, 0, nil, 0, false
		}
		end := jsonv.SkipValue(v, i) // a string
		if end < 0 {
			return nil, 0, nil, 0, false
		}
		name := v[i+1 : end-1]
		if bytes.IndexByte(name, '\\') >= 0 {
			return nil, 0, nil, 0, false
		}
		isHeader := string(name) == "header"
		if !isHeader && string(name) != "payload" || n == 2 {
			return nil, 0, nil, 0, true // not a record
		}
		i = skipSpace(v, end)
		if i >= len(v) || v[i] != ':' {
			return nil, 0, nil, 0, false
		}
		i = skipSpace(v, i+1)
		end = jsonv.SkipValue(v, i)
		if end < 0 {
			return nil, 0, nil, 0, false
		}
		if isHeader {
			header, headerAt = v[i:end], int64(i)
		} else {
			payload, payloadAt = v[i:end], int64(i)
		}
		i = skipSpace(v, end)
		if i >= len(v) {
			return nil, 0, nil, 0, false
		}
		switch v[i] {
		case ',':
			i = skipSpace(v, i+1)
		case '}':
			if skipSpace(v, i+1) != len(v) || n != 1 {
				return nil, 0, nil, 0, n == 0 && skipSpace(v, i+1) == len(v)
			}
			return header, headerAt, payload, payloadAt, true
		default:
			return nil, 0, nil, 0, false
		}
	}
}

// skipSpace passes over JSON white space, as json.dumps writes it
// (", ", ": ", indented, CRLF) or any other.
func skipSpace(v []byte, i int) int { return jsonv.SkipSpace(v, i) }

func parseHeader(header jsontext.Value, headerAt int64, payload jsontext.Value, payloadAt int64) (Record, error) {
	rec := Record{IsRecord: true, Payload: payload, PayloadStart: payloadAt}
	var typeName string
	var typeNameAt int64
	hd := jsontext.NewDecoder(bytes.NewBuffer(header)) // in place, not copied
	hd.ReadToken()
	for hd.PeekKind() != '}' {
		tok, _ := hd.ReadToken()
		name := tok.String()
		val, _ := hd.ReadValue()
		at := headerAt + hd.InputOffset() - int64(len(val))
		fail := func(format string, args ...any) error {
			return &RecordError{Offset: at, Pointer: "/header/" + escapePointer(name), Msg: fmt.Sprintf(format, args...)}
		}
		switch name {
		case "version":
			u, ok := wholeNumber(val, 0xFF)
			if !ok {
				return rec, fail("version must be a whole number from 0 to 255, found %s", val)
			}
			b := uint8(u)
			rec.Version = &b
		case "type":
			u, ok := wholeNumber(val, 0xFF)
			if !ok || !MessageType(u).Valid() {
				return rec, fail("type must be a message type from 1 to 8, found %s", val)
			}
			t := MessageType(u)
			rec.Type = &t
		case "typeName":
			if val.Kind() != '"' {
				return rec, fail("typeName must be a string, found %s", val)
			}
			var s string
			if err := unquote(val, &s); err != nil {
				return rec, fail("typeName: %v", err)
			}
			typeName, typeNameAt = s, at
		case "timestamp":
			u, ok := wholeNumber(val, ^uint64(0))
			if !ok {
				return rec, fail("timestamp must be a whole number of milliseconds from 0 to 18446744073709551615, found %s", val)
			}
			rec.Timestamp = &u
		case "sequenceId":
			u, ok := wholeNumber(val, 0xFFFFFFFF)
			if !ok {
				return rec, fail("sequenceId must be a whole number from 0 to 4294967295, found %s", val)
			}
			s := uint32(u)
			rec.SequenceID = &s
		case "payloadLength", "compressed":
			// Recomputed from the payload and --compress.
		case "capture":
			// Where decode found the frame in a packet capture: not a field
			// of the frame.
		default:
			return rec, fail("unknown header field %q (known: version, type, typeName, payloadLength, timestamp, sequenceId, compressed, capture)", name)
		}
	}
	if typeName != "" {
		t, err := ParseMessageType(typeName)
		if err != nil {
			return rec, &RecordError{Offset: typeNameAt, Pointer: "/header/typeName", Msg: err.Error()}
		}
		if rec.Type != nil && *rec.Type != t {
			return rec, &RecordError{Offset: typeNameAt, Pointer: "/header/typeName",
				Msg: fmt.Sprintf("typeName %s disagrees with type %d (%s)", typeName, uint8(*rec.Type), *rec.Type)}
		}
		rec.Type = &t
	}
	return rec, nil
}

func unquote(v jsontext.Value, s *string) error {
	tok, err := jsontext.NewDecoder(bytes.NewBuffer(v)).ReadToken() // in place, not copied
	if err != nil {
		return err
	}
	*s = tok.String()
	return nil
}

// wholeNumber parses a JSON number literal that is a non-negative integer
// written without fraction or exponent, no larger than max.
func wholeNumber(v jsontext.Value, max uint64) (uint64, bool) {
	if v.Kind() != '0' {
		return 0, false
	}
	u, err := strconv.ParseUint(string(v), 10, 64)
	if err != nil || u > max {
		return 0, false
	}
	return u, true
}

func escapePointer(s string) string { return jsonv.EscapePointerToken(s) }

// InferType names the message type of a bare payload from its top-level
// keys: instruction → INSTRUCTION, toolName+args → TOOL_CALL, success →
// TOOL_RESULT, status+progress → STATUS, code+message → ERROR, {} →
// HEARTBEAT. When no rule or more than one rule fits, it returns an error
// that says what it saw.
func InferType(payload jsontext.Value) (MessageType, error) {
	if payload.Kind() != '{' {
		return 0, fmt.Errorf("the payload is not an object, so its type cannot be inferred")
	}
	keys := map[string]bool{}
	var order []string
	dec := jsontext.NewDecoder(bytes.NewBuffer(payload)) // in place, not copied
	if _, err := dec.ReadToken(); err != nil {
		return 0, err
	}
	for dec.PeekKind() != '}' {
		tok, err := dec.ReadToken()
		if err != nil {
			return 0, err
		}
		keys[tok.String()] = true
		order = append(order, tok.String())
		if err := dec.SkipValue(); err != nil {
			return 0, err
		}
	}
	if len(keys) == 0 {
		return Heartbeat, nil
	}
	var fits []MessageType
	if keys["instruction"] {
		fits = append(fits, Instruction)
	}
	if keys["toolName"] && keys["args"] {
		fits = append(fits, ToolCall)
	}
	if keys["success"] {
		fits = append(fits, ToolResult)
	}
	if keys["status"] && keys["progress"] {
		fits = append(fits, Status)
	}
	if keys["code"] && keys["message"] {
		fits = append(fits, Error)
	}
	switch len(fits) {
	case 1:
		return fits[0], nil
	case 0:
		if keys["type"] && keys["path"] {
			return 0, fmt.Errorf("keys type and path fit both CONTEXT_REQUEST and CONTEXT_RESPONSE")
		}
		if len(order) > 5 {
			order = append(order[:5], "...")
		}
		return 0, fmt.Errorf("no message type has the keys %s", strings.Join(order, ", "))
	}
	var names []string
	for _, t := range fits {
		names = append(names, t.String())
	}
	return 0, fmt.Errorf("the keys fit several message types: %s", strings.Join(names, ", "))
}

// flatRecordKeys are the columns of a capture as a table: the header
// fields of decode's record, then the payload.
var flatRecordKeys = []string{"version", "type", "typeName", "payloadLength", "timestamp", "sequenceId", "compressed", "payload"}

// AppendFlatRecord appends the flat form of a record, its header fields
// beside the payload (the row of a capture as a table):
//
//	{"version":1,"type":1,"typeName":"INSTRUCTION","payloadLength":60,
//	"timestamp":1735689600123,"sequenceId":1,"compressed":false,"payload":...}
func AppendFlatRecord(dst []byte, h Header, compressed bool, payload []byte) []byte {
	start := len(dst)
	dst = AppendRecord(dst, h, compressed, payload)
	// {"header":{FIELDS},"payload":P} becomes {FIELDS,"payload":P}.
	rec := dst[start:]
	fields := rec[len(`{"header":{`):bytes.Index(rec, []byte(`},"payload":`))]
	flat := make([]byte, 0, len(rec))
	flat = append(append(append(flat, '{'), fields...), `,"payload":`...)
	flat = append(append(flat, payload...), '}')
	return append(dst[:start], flat...)
}

// UnflattenRecord gives the record form of v when v is a flat record: an
// object whose members are exactly those of AppendFlatRecord, in any order. It appends
// {"header":{...},"payload":...} to dst and reports true; otherwise it
// returns dst unchanged and false. v must be valid JSON.
func UnflattenRecord(dst []byte, v jsontext.Value) ([]byte, bool) {
	if v.Kind() != '{' {
		return dst, false
	}
	dec := jsontext.NewDecoder(bytes.NewBuffer(v)) // in place, not copied
	if _, err := dec.ReadToken(); err != nil {
		return dst, false
	}
	var vals [8]jsontext.Value
	seen := 0
	for dec.PeekKind() != '}' {
		tok, err := dec.ReadToken()
		if err != nil {
			return dst, false
		}
		i := slices.Index(flatRecordKeys, tok.String())
		if i < 0 || vals[i] != nil {
			return dst, false
		}
		val, err := dec.ReadValue()
		if err != nil {
			return dst, false
		}
		at := dec.InputOffset() - int64(len(val))
		vals[i] = v[at : at+int64(len(val))]
		seen++
	}
	if seen != len(flatRecordKeys) {
		return dst, false
	}
	dst = append(dst, `{"header":{`...)
	for i, k := range flatRecordKeys[:7] {
		if i > 0 {
			dst = append(dst, ',')
		}
		dst = append(append(append(append(dst, '"'), k...), `":`...), vals[i]...)
	}
	dst = append(append(dst, `},"payload":`...), vals[7]...)
	return append(dst, '}'), true
}
