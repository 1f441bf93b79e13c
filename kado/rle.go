package kado

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"math/bits"
	"slices"
)

const rleEscape = 0xFF

// AppendRLE appends the RLE body of src (without the magic byte) to dst,
// exactly as the Kado TypeScript encoder writes it: runs are cut into pieces
// of at most 255 bytes; a piece of 4 or more equal bytes, and a piece of 0xFF
// bytes of any length, is written FF b n; other pieces are written verbatim.
func AppendRLE(dst, src []byte) []byte {
	dst, _ = appendRLEMax(dst, src, -1)
	return dst
}

// appendRLEMax is AppendRLE that gives up, with ok false, as soon as dst
// would grow past maxLen bytes (maxLen < 0: no bound), so that a payload
// that does not compress is not written out twice.
func appendRLEMax(dst, src []byte, maxLen int) (out []byte, ok bool) {
	over := func(n int) bool { return maxLen >= 0 && len(dst)+n > maxLen }
	lit := 0 // start of the bytes not yet written
	for i := 0; i < len(src); {
		if len(src)-i >= 9 {
			// Look at 6 positions at once: a piece that needs an escape
			// starts where 4 bytes are equal or at an 0xFF byte.
			x := le.Uint64(src[i:])
			z := zeroBytes(x ^ le.Uint64(src[i+1:])) // byte k: src[i+k] == src[i+k+1]
			c := (z&(z>>8)&(z>>16) | zeroBytes(^x)) & 0x0000_8080_8080_8080
			if c == 0 {
				i += 6
				continue
			}
			i += bits.TrailingZeros64(c) >> 3
		}
		b := src[i]
		if b != rleEscape && (len(src)-i < 4 || src[i+1] != b || src[i+2] != b || src[i+3] != b) {
			i++ // not the start of a piece that needs an escape
			continue
		}
		if over(i - lit + 3) {
			return dst, false
		}
		dst = append(dst, src[lit:i]...)
		j := i + 1
		for j < len(src) && src[j] == b {
			j++
		}
		for run := j - i; run > 0; {
			n := min(run, 255)
			if n >= 4 || b == rleEscape {
				dst = append(dst, rleEscape, b, byte(n))
			} else {
				for k := 0; k < n; k++ {
					dst = append(dst, b)
				}
			}
			run -= n
		}
		i, lit = j, j
	}
	if over(len(src) - lit) {
		return dst, false
	}
	return append(dst, src[lit:]...), true
}

// zeroBytes has the top bit set in each byte of the result where v has a
// zero byte, and no other bit.
func zeroBytes(v uint64) uint64 {
	const lo7 = 0x7f7f_7f7f_7f7f_7f7f
	t := (v & lo7) + lo7
	return ^(t | v | lo7)
}

var le = binary.LittleEndian

// AppendUnRLE appends the decompression of an RLE body (without the magic
// byte) to dst. FF b n gives n copies of b (n = 0 gives nothing); an FF with
// fewer than two bytes after it is taken literally, as the reference decoder
// does. The output may not grow beyond limit bytes (limit <= 0: no limit);
// the check happens before anything is allocated for a run.
func AppendUnRLE(dst, src []byte, limit int) ([]byte, error) {
	if len(src) > sizedRLE {
		// Size the output once: growing by doubling would hold up to
		// twice the limit (and a copy) for a payload near it. A short
		// body (85 times its size at most) grows as it goes, without a
		// pass to measure it, in a buffer that callers reuse.
		size := UnRLELen(src)
		if limit > 0 && size > limit {
			return dst, fmt.Errorf("%w: decompressed size passes %d bytes", ErrTooLarge, limit)
		}
		dst = slices.Grow(dst, size)
	}
	start := len(dst)
	over := func(extra int) bool { return limit > 0 && len(dst)-start+extra > limit }
	for len(src) > 0 {
		k := bytes.IndexByte(src, rleEscape)
		if k < 0 || len(src)-k < 3 {
			if over(len(src)) {
				return dst, fmt.Errorf("%w: decompressed size passes %d bytes", ErrTooLarge, limit)
			}
			return append(dst, src...), nil
		}
		if over(k) {
			return dst, fmt.Errorf("%w: decompressed size passes %d bytes", ErrTooLarge, limit)
		}
		dst = append(dst, src[:k]...)
		b, n := src[k+1], int(src[k+2])
		if over(n) {
			return dst, fmt.Errorf("%w: decompressed size passes %d bytes", ErrTooLarge, limit)
		}
		dst = slices.Grow(dst, n)
		run := dst[len(dst) : len(dst)+n]
		for j := range run {
			run[j] = b
		}
		dst = dst[:len(dst)+n]
		src = src[k+3:]
	}
	return dst, nil
}

// sizedRLE is the length of an RLE body above which AppendUnRLE measures
// its output before it writes it.
const sizedRLE = 64 << 10

// UnRLELen is the size of the decompression of an RLE body.
func UnRLELen(src []byte) int {
	n := 0
	for len(src) > 0 {
		k := bytes.IndexByte(src, rleEscape)
		if k < 0 || len(src)-k < 3 {
			return n + len(src)
		}
		n += k + int(src[k+2])
		src = src[k+3:]
	}
	return n
}

// RLEOddity is something a decompressor accepts but an encoder never writes.
type RLEOddity struct {
	Offset int    // within the body
	What   string // "truncated escape" or "zero count"
}

// RLEOddities lists the places in an RLE body that the TypeScript encoder
// would never produce: an FF escape cut short, and a zero count.
func RLEOddities(body []byte) []RLEOddity {
	var out []RLEOddity
	for i := 0; i < len(body); {
		k := bytes.IndexByte(body[i:], rleEscape)
		if k < 0 {
			break
		}
		i += k
		if len(body)-i < 3 {
			out = append(out, RLEOddity{Offset: i, What: "truncated escape"})
			break
		}
		if body[i+2] == 0 {
			out = append(out, RLEOddity{Offset: i, What: "zero count"})
		}
		i += 3
	}
	return out
}

// CompressMode chooses when payloads are compressed.
type CompressMode int

const (
	// CompressAuto compresses a payload longer than CompressionThreshold when
	// its RLE body is shorter than the payload, as the TypeScript encoder does.
	CompressAuto CompressMode = iota
	// CompressAlways compresses every payload.
	CompressAlways
	// CompressNever never compresses.
	CompressNever
)

// ParseCompressMode parses "auto", "always" or "never".
func ParseCompressMode(s string) (CompressMode, error) {
	switch s {
	case "auto":
		return CompressAuto, nil
	case "always":
		return CompressAlways, nil
	case "never":
		return CompressNever, nil
	}
	return 0, fmt.Errorf("invalid compress mode %q (want auto, always or never)", s)
}

func (m CompressMode) String() string {
	return [...]string{"auto", "always", "never"}[m]
}

// AppendPayload appends the wire form of a JSON payload to dst: either the
// payload as is, or 0x5A followed by its RLE body, according to mode. It
// reports whether it compressed.
func AppendPayload(dst, payload []byte, mode CompressMode) ([]byte, bool) {
	if out, ok := compressInto(dst, payload, mode); ok {
		return out, true
	}
	return append(dst, payload...), false
}

// compressInto appends 0x5A and the RLE body of payload to dst when mode
// says the payload is to be compressed (in auto mode: longer than
// CompressionThreshold, and the body shorter than the payload). Otherwise
// it returns dst as it was and false.
func compressInto(dst, payload []byte, mode CompressMode) ([]byte, bool) {
	switch mode {
	case CompressNever:
		return dst, false
	case CompressAuto:
		if len(payload) <= CompressionThreshold {
			return dst, false
		}
	}
	start := len(dst)
	maxLen := -1
	if mode == CompressAuto {
		maxLen = start + len(payload) // the body must be shorter than the payload
	}
	out, ok := appendRLEMax(append(dst, CompressionMagic), payload, maxLen)
	if !ok {
		return dst[:start], false
	}
	return out, true
}

// IsCompressed reports whether a wire payload is compressed (first byte 0x5A).
func IsCompressed(wire []byte) bool { return len(wire) > 0 && wire[0] == CompressionMagic }

// AppendDecompressed appends the JSON bytes of a wire payload to dst,
// decompressing it when it starts with 0x5A.
func AppendDecompressed(dst, wire []byte, limit int) ([]byte, error) {
	if IsCompressed(wire) {
		return AppendUnRLE(dst, wire[1:], limit)
	}
	return append(dst, wire...), nil
}
