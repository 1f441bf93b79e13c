package inspect

import (
	"encoding/hex"
	"strconv"
	"strings"

	"github.com/toonkit/toonkit/internal/codec/jsonv"
)

// The JSON format writes one object per line:
//
//	{"kind":"frame","file":"cap.bin","index":0,"offset":0,"status":"ok","size":78,
//	 "header":{"version":{"offset":0,"hex":"01","value":1,"status":"ok","check":"ok"},...},
//	 "payloadOffset":18,"compressed":false,"wireSize":60,"decompressedSize":60,
//	 "payload":{...},"warnings":[],"errors":[]}
//	{"kind":"skip","file":"cap.bin","offset":78,"bytes":96,"found":true,"resume":174}
//	{"kind":"summary","files":1,"frames":2,...}
//
// Offsets are absolute byte offsets in the input.

func appendString(dst []byte, s string) []byte { return jsonv.AppendQuote(dst, s) }

func appendKey(dst []byte, first bool, key string) []byte {
	if !first {
		dst = append(dst, ',')
	}
	dst = appendString(dst, key)
	return append(dst, ':')
}

func appendInt(dst []byte, first bool, key string, v int64) []byte {
	return strconv.AppendInt(appendKey(dst, first, key), v, 10)
}

func appendFrameJSON(dst []byte, fc *frameContext, rep *report) []byte {
	dst = append(dst, `{"kind":"frame"`...)
	dst = appendString(appendKey(dst, false, "file"), fc.name)
	if rep.src != nil {
		dst = appendSource(dst, rep.src)
	}
	dst = appendInt(dst, false, "index", int64(rep.index))
	dst = appendInt(dst, false, "offset", rep.offset)
	st := "ok"
	switch {
	case rep.cut:
		st = "cut"
	case len(rep.errors) > 0:
		st = "invalid"
	}
	dst = appendString(appendKey(dst, false, "status"), st)
	if rep.ok {
		dst = appendInt(dst, false, "size", int64(rep.size))
	}
	if rep.cut {
		dst = appendInt(dst, false, "available", int64(rep.avail))
	}
	dst = appendKey(dst, false, "header")
	dst = append(dst, '{')
	for i, f := range rep.fields {
		dst = appendKey(dst, i == 0, f.name)
		dst = appendInt(append(dst, '{'), true, "offset", rep.offset+int64(f.off))
		dst = appendString(appendKey(dst, false, "hex"), hex.EncodeToString(f.raw))
		dst = appendKey(dst, false, "value")
		if len(f.raw) == f.size {
			dst = strconv.AppendUint(dst, f.num, 10)
		} else {
			dst = append(dst, "null"...)
		}
		if f.name == "type" && len(f.raw) == f.size {
			name := strings.SplitN(f.value, " ", 2)[0]
			dst = appendString(appendKey(dst, false, "name"), name)
		}
		if f.name == "timestamp" && f.iso != "" {
			dst = appendString(appendKey(dst, false, "iso"), f.iso)
		}
		dst = appendString(appendKey(dst, false, "status"), f.status.String())
		dst = appendString(appendKey(dst, false, "check"), f.check)
		dst = append(dst, '}')
	}
	dst = append(dst, '}')
	if rep.ok {
		dst = appendInt(dst, false, "payloadOffset", rep.payloadAt)
		dst = strconv.AppendBool(appendKey(dst, false, "compressed"), rep.compressed)
		dst = appendInt(dst, false, "wireSize", int64(len(rep.payload)))
		if rep.decompressed >= 0 {
			dst = appendInt(dst, false, "decompressedSize", int64(rep.decompressed))
		} else {
			dst = append(appendKey(dst, false, "decompressedSize"), "null"...)
		}
		if rep.json != nil {
			dst = append(appendKey(dst, false, "payload"), rep.json...)
		}
	}
	dst = appendProblems(dst, "warnings", rep.warnings, false)
	dst = appendProblems(dst, "errors", rep.errors, true)
	return append(dst, "}\n"...)
}

func appendProblems(dst []byte, key string, ps []problem, withField bool) []byte {
	dst = append(appendKey(dst, false, key), '[')
	for i, p := range ps {
		if i > 0 {
			dst = append(dst, ',')
		}
		dst = append(dst, '{')
		first := true
		if withField {
			dst = appendString(appendKey(dst, true, "field"), p.field)
			first = false
		}
		dst = appendInt(dst, first, "offset", p.offset)
		dst = appendString(appendKey(dst, false, "message"), p.msg)
		dst = append(dst, '}')
	}
	return append(dst, ']')
}

func appendSkipJSON(dst []byte, fc *frameContext, s *skipInfo) []byte {
	dst = append(dst, `{"kind":"skip"`...)
	dst = appendString(appendKey(dst, false, "file"), fc.name)
	dst = appendInt(dst, false, "offset", s.from)
	dst = appendInt(dst, false, "bytes", s.bytes)
	dst = strconv.AppendBool(appendKey(dst, false, "found"), s.found)
	if s.found {
		dst = appendInt(dst, false, "resume", s.resume)
	} else {
		dst = append(appendKey(dst, false, "resume"), "null"...)
	}
	return append(dst, "}\n"...)
}

func appendSummaryJSON(dst []byte, o *Options, s Summary) []byte {
	dst = append(dst, `{"kind":"summary"`...)
	dst = appendInt(dst, false, "files", int64(s.Files))
	if o.OnlyFrame {
		dst = appendInt(dst, false, "frame", int64(o.Frame))
		dst = strconv.AppendBool(appendKey(dst, false, "frameFound"), s.FrameFound)
	}
	dst = appendInt(dst, false, "frames", int64(s.Frames))
	dst = appendInt(dst, false, "valid", int64(s.Valid))
	dst = appendInt(dst, false, "invalid", int64(s.Invalid))
	dst = appendInt(dst, false, "cut", int64(s.Cut))
	dst = appendInt(dst, false, "compressed", int64(s.Compressed))
	dst = appendInt(dst, false, "bytes", s.Bytes)
	dst = appendInt(dst, false, "bytesSkipped", s.Skipped)
	dst = appendInt(dst, false, "errors", int64(s.Errors))
	dst = appendInt(dst, false, "warnings", int64(s.Warnings))
	if len(s.Conns) > 0 || s.Faults > 0 {
		dst = appendCaptureJSON(dst, s)
	}
	if o.SummaryOnly {
		dst = appendBreakdownsJSON(dst, s)
	}
	return append(dst, "}\n"...)
}
