// Package kado reads and writes Kado binary TOON frames: an 18-byte
// little-endian header followed by a JSON payload that may be RLE-compressed.
//
// A Go program needs:
//   - Header, MessageType and their parsers: the fixed header;
//   - Writer (NewWriter, WriteFrame) and AppendFrame: frames out;
//   - Reader (NewReader, Next, JSON, MoveOn or Each): frames in, in memory
//     bounded by the largest frame, with resynchronisation after a bad one;
//   - ParseRecord and Record: a frame given as JSON, as `toonkit decode`
//     writes it;
//   - FrameError (with its Problem), PayloadError, EncodeError: typed
//     errors with their offsets.
//
// DecodeStream and EncodeStream run the same on several goroutines with
// the output of one; their handlers are shaped by the toonkit CLI and may
// still change.
//
// The byte layout follows the spec binary-toon-kado.md (in toonkit's shared
// specs) and the output is byte-identical to the Kado TypeScript encoder
// (packages/orchestrator/src/toon).
package kado

import (
	"encoding/binary"
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"
)

const (
	// HeaderSize is the size of the fixed frame header (struct format "<BBIQI").
	HeaderSize = 18
	// Version is the only protocol version this package accepts.
	Version = 1
	// CompressionMagic is the first byte of a compressed payload.
	CompressionMagic = 0x5A
	// CompressionThreshold is the payload size above which CompressAuto tries RLE.
	CompressionThreshold = 1024
	// DefaultMaxFrameSize bounds a payload, as read and as decompressed.
	DefaultMaxFrameSize = 64 << 20
)

// Offsets of the header fields.
const (
	OffVersion       = 0
	OffType          = 1
	OffPayloadLength = 2
	OffTimestamp     = 6
	OffSequenceID    = 14
)

// MessageType is the frame type byte.
type MessageType uint8

// The message types of the spec.
const (
	Instruction     MessageType = 0x01
	ToolCall        MessageType = 0x02
	ToolResult      MessageType = 0x03
	Status          MessageType = 0x04
	Error           MessageType = 0x05
	Heartbeat       MessageType = 0x06
	ContextRequest  MessageType = 0x07
	ContextResponse MessageType = 0x08
)

var typeNames = [...]string{
	Instruction:     "INSTRUCTION",
	ToolCall:        "TOOL_CALL",
	ToolResult:      "TOOL_RESULT",
	Status:          "STATUS",
	Error:           "ERROR",
	Heartbeat:       "HEARTBEAT",
	ContextRequest:  "CONTEXT_REQUEST",
	ContextResponse: "CONTEXT_RESPONSE",
}

// MessageTypes lists every defined type in order.
func MessageTypes() []MessageType {
	return []MessageType{Instruction, ToolCall, ToolResult, Status, Error, Heartbeat, ContextRequest, ContextResponse}
}

// Valid reports whether t is one of the defined message types.
func (t MessageType) Valid() bool { return t >= Instruction && t <= ContextResponse }

// String returns the spec name (INSTRUCTION, ...) or "UNKNOWN(0xNN)".
func (t MessageType) String() string {
	if t.Valid() {
		return typeNames[t]
	}
	return fmt.Sprintf("UNKNOWN(0x%02X)", uint8(t))
}

// ParseMessageType accepts a type name in any case with '-' or '_'
// ("tool_call", "Tool-Call"), or a number 1-8 in decimal or 0x hex.
func ParseMessageType(s string) (MessageType, error) {
	name := strings.ToUpper(strings.ReplaceAll(strings.TrimSpace(s), "-", "_"))
	for _, t := range MessageTypes() {
		if typeNames[t] == name {
			return t, nil
		}
	}
	num, base := strings.TrimSpace(s), 10
	if h, ok := strings.CutPrefix(strings.ToLower(num), "0x"); ok {
		num, base = h, 16
	}
	if n, err := strconv.ParseUint(num, base, 64); err == nil {
		if t := MessageType(n); n <= 0xFF && t.Valid() {
			return t, nil
		}
		return 0, fmt.Errorf("message type %s is outside 1-8", s)
	}
	return 0, fmt.Errorf("unknown message type %q (want a name such as tool_call, or a number 1-8)", s)
}

// ParseSequenceID reads a sequence id: a whole number from 0 to
// 4294967295 (the header's 32 bits).
func ParseSequenceID(s string) (uint32, error) {
	u, err := strconv.ParseUint(s, 10, 64)
	if err != nil || u > math.MaxUint32 {
		return 0, fmt.Errorf("want a whole number from 0 to 4294967295, found %q", s)
	}
	return uint32(u), nil
}

// ParseTimestamp reads a header's timestamp: Unix milliseconds (all 64
// bits), or an RFC 3339 time from 1970 on, whole milliseconds.
func ParseTimestamp(s string) (uint64, error) {
	if u, err := strconv.ParseUint(s, 10, 64); err == nil {
		return u, nil
	}
	if t, err := time.Parse(time.RFC3339Nano, s); err == nil {
		if ms := t.UnixMilli(); ms >= 0 && t.Nanosecond()%int(time.Millisecond) == 0 {
			return uint64(ms), nil
		}
		return 0, fmt.Errorf("%q is before 1970 or has digits below the millisecond", s)
	}
	return 0, fmt.Errorf("want a whole number of milliseconds from 0 to 18446744073709551615 or an RFC 3339 time, found %q", s)
}

// Header is the fixed 18-byte frame header.
type Header struct {
	Version       uint8
	Type          MessageType
	PayloadLength uint32
	Timestamp     uint64 // Unix milliseconds, all 64 bits kept
	SequenceID    uint32
}

// AppendHeader appends the 18 header bytes of h to b.
func AppendHeader(b []byte, h Header) []byte {
	b = append(b, h.Version, byte(h.Type))
	b = binary.LittleEndian.AppendUint32(b, h.PayloadLength)
	b = binary.LittleEndian.AppendUint64(b, h.Timestamp)
	return binary.LittleEndian.AppendUint32(b, h.SequenceID)
}

// ParseHeader reads a header from the first HeaderSize bytes of b without
// checking it; see Header.Check. It panics if b is shorter than HeaderSize.
func ParseHeader(b []byte) Header {
	_ = b[HeaderSize-1]
	return Header{
		Version:       b[OffVersion],
		Type:          MessageType(b[OffType]),
		PayloadLength: binary.LittleEndian.Uint32(b[OffPayloadLength:]),
		Timestamp:     binary.LittleEndian.Uint64(b[OffTimestamp:]),
		SequenceID:    binary.LittleEndian.Uint32(b[OffSequenceID:]),
	}
}

// Check applies the spec's header rules (version, type, and a payload length
// no larger than maxPayload). It returns a *FieldError naming the first
// field that breaks a rule.
func (h Header) Check(maxPayload int) error {
	if h.Version != Version {
		return &FieldError{Kind: BadVersion, Field: "version", Offset: OffVersion, Size: 1,
			Expected: "1", Found: fmt.Sprintf("%d (0x%02X%s)", h.Version, h.Version, charNote(h.Version))}
	}
	if !h.Type.Valid() {
		return &FieldError{Kind: BadType, Field: "type", Offset: OffType, Size: 1,
			Expected: "a message type from 1 to 8", Found: fmt.Sprintf("%d (0x%02X%s)", uint8(h.Type), uint8(h.Type), charNote(uint8(h.Type)))}
	}
	if maxPayload > 0 && uint64(h.PayloadLength) > uint64(maxPayload) {
		return &FieldError{Kind: TooLarge, Field: "payloadLength", Offset: OffPayloadLength, Size: 4,
			Expected: fmt.Sprintf("at most %d bytes", maxPayload), Found: strconv.FormatUint(uint64(h.PayloadLength), 10)}
	}
	return nil
}

func charNote(b byte) string {
	if b >= 0x21 && b < 0x7F {
		return fmt.Sprintf(" %q", rune(b))
	}
	return ""
}
