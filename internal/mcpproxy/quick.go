package mcpproxy

import (
	"bytes"

	"github.com/toonkit/toonkit/internal/codec/jsonv"
)

// This file reads the common answer, a server's result for a request,
// in one pass over its bytes, where the decoder's path (fromServer's
// jsontext reading, then an unquote of each text) takes three: a tool's
// 100 KB of JSON text, inside a JSON string, is dense with escapes, and
// each pass over it costs about 0.1 ms.
//
// The structure is found by a scan that trusts the bytes (jsonv.SkipValue),
// and each text is unquoted where it stands (jsonv.AppendString checks it
// as it goes). What is left, the message with its texts taken out (a few
// hundred bytes), is then checked as jsontext checks a whole message
// (jsonv.Checker.Valid). Together the two are that check of the whole: a
// JSON string is valid or not whatever stands around it, and where the
// rest is valid JSON, the scan found its values where a parser finds them.

// quickRead is what quickAnswer finds in a message.
type quickRead struct {
	id, result span
	sh         shape
}

// quickAnswer reads msg, one line from the server, as fromServer's
// decoder path would, when msg is a valid JSON object with a "result"
// member whose value is an object, and no "method" or "error" member; the
// texts are unquoted into rw.texts, one for each of q.sh.texts. ok is false
// for any other msg (a request, a notification, an error, a member name
// that holds an escape, invalid JSON), which the decoder path reads.
func (rw *Rewriter) quickAnswer(msg []byte) (quickRead, bool) {
	var q quickRead
	rw.texts, rw.cut = rw.texts[:0], rw.cut[:0]
	hasResult := false
	end, ok := quickMembers(msg, 0, func(name []byte, v int) (int, bool) {
		switch string(name) {
		case "method", "error":
			return 0, false
		case "result":
			end, good := rw.quickResult(msg, v, &q.sh)
			hasResult, q.result = good, span{v, end}
			return end, good
		}
		end := jsonv.SkipValue(msg, v)
		if string(name) == "id" {
			q.id = span{v, end}
		}
		return end, end > v
	})
	if !ok || !hasResult || jsonv.SkipSpace(msg, end) != len(msg) {
		return quickRead{}, false
	}
	if !rw.restValid(msg) {
		return quickRead{}, false
	}
	return q, true
}

// quickResultOnly is quickAnswer for a bare CallToolResult (Result's
// input): its shape, when it is a valid JSON object.
func (rw *Rewriter) quickResultOnly(result []byte) (shape, bool) {
	rw.texts, rw.cut = rw.texts[:0], rw.cut[:0]
	var sh shape
	end, ok := rw.quickResult(result, jsonv.SkipSpace(result, 0), &sh)
	if !ok || jsonv.SkipSpace(result, end) != len(result) || !rw.restValid(result) {
		return shape{}, false
	}
	return sh, true
}

// restValid reports whether msg, with each string of rw.cut (checked
// already) made "", is valid JSON as jsontext reads it.
func (rw *Rewriter) restValid(msg []byte) bool {
	sk := rw.skeleton[:0]
	last := 0
	for _, c := range rw.cut {
		sk = append(append(sk, msg[last:c.start]...), `""`...)
		last = c.end
	}
	sk = append(sk, msg[last:]...)
	rw.skeleton = sk
	return rw.chk.Valid(sk)
}

// quickResult reads the CallToolResult at msg[i] as scanResult does, and
// returns the offset after it.
func (rw *Rewriter) quickResult(msg []byte, i int, sh *shape) (int, bool) {
	if i >= len(msg) || msg[i] != '{' {
		return 0, false // not an object: left to scanResult (errShape)
	}
	return quickMembers(msg, i, func(name []byte, v int) (int, bool) {
		switch string(name) {
		case "content":
			if msg[v] == '[' {
				sh.content = true
				return rw.quickContent(msg, v, sh)
			}
		case "isError":
			e := jsonv.SkipValue(msg, v)
			sh.isError = string(msg[v:max(e, v)]) == "true"
			return e, e > v
		}
		e := jsonv.SkipValue(msg, v)
		return e, e > v
	})
}

// quickContent reads the content array at msg[i] as scanResult does, and
// returns the offset after it.
func (rw *Rewriter) quickContent(msg []byte, i int, sh *shape) (int, bool) {
	i = jsonv.SkipSpace(msg, i+1)
	if i < len(msg) && msg[i] == ']' {
		return i + 1, true
	}
	for i < len(msg) {
		var end int
		var good bool
		if msg[i] == '{' {
			end, good = rw.quickBlock(msg, i, sh)
		} else {
			end = jsonv.SkipValue(msg, i)
			good = end > i
		}
		if !good {
			return 0, false
		}
		i = jsonv.SkipSpace(msg, end)
		switch {
		case i < len(msg) && msg[i] == ',':
			i = jsonv.SkipSpace(msg, i+1)
		case i < len(msg) && msg[i] == ']':
			return i + 1, true
		default:
			return 0, false
		}
	}
	return 0, false
}

// quickBlock reads the content block at msg[i] as scanBlock does, and
// returns the offset after it. A string "text" is unquoted, whatever the
// block's type (its bytes are taken out of the skeleton all the same).
func (rw *Rewriter) quickBlock(msg []byte, i int, sh *shape) (int, bool) {
	isText := false
	var text span
	var raw []byte
	end, ok := quickMembers(msg, i, func(name []byte, v int) (int, bool) {
		switch string(name) {
		case "type":
			e := jsonv.SkipValue(msg, v)
			isText = string(msg[v:max(e, v)]) == `"text"`
			return e, e > v
		case "text":
			if msg[v] == '"' {
				if len(rw.texts) == cap(rw.texts) {
					rw.texts = append(rw.texts, nil)
				} else {
					rw.texts = rw.texts[:len(rw.texts)+1]
				}
				t := &rw.texts[len(rw.texts)-1]
				b, n, err := jsonv.AppendString((*t)[:0], msg[v:])
				if err != nil {
					return 0, false
				}
				*t, raw, text = b, b, span{v, v + n}
				rw.cut = append(rw.cut, text)
				return v + n, true
			}
		}
		e := jsonv.SkipValue(msg, v)
		return e, e > v
	})
	if !ok {
		return 0, false
	}
	if isText && text.end > 0 {
		sh.texts = append(sh.texts, text)
		sh.raws = append(sh.raws, raw)
	}
	return end, true
}

// quickMembers calls f with the name and the value's offset of each
// member of the object at msg[i], in order; f returns the offset after
// the value, or false to stop. It returns the offset after the object,
// and false when f does, when a name holds an escape (names are compared
// as written here), or when the object is not well formed as far as the
// scan can tell.
func quickMembers(msg []byte, i int, f func(name []byte, v int) (int, bool)) (int, bool) {
	i = jsonv.SkipSpace(msg, i)
	if i >= len(msg) || msg[i] != '{' {
		return 0, false
	}
	i = jsonv.SkipSpace(msg, i+1)
	if i < len(msg) && msg[i] == '}' {
		return i + 1, true
	}
	for {
		if i >= len(msg) || msg[i] != '"' {
			return 0, false
		}
		n := bytes.IndexAny(msg[i+1:], "\"\\")
		if n < 0 || msg[i+1+n] != '"' {
			return 0, false
		}
		name := msg[i+1 : i+1+n]
		i = jsonv.SkipSpace(msg, i+2+n)
		if i >= len(msg) || msg[i] != ':' {
			return 0, false
		}
		v := jsonv.SkipSpace(msg, i+1)
		if v >= len(msg) {
			return 0, false
		}
		e, ok := f(name, v)
		if !ok {
			return 0, false
		}
		i = jsonv.SkipSpace(msg, e)
		switch {
		case i < len(msg) && msg[i] == ',':
			i = jsonv.SkipSpace(msg, i+1)
		case i < len(msg) && msg[i] == '}':
			return i + 1, true
		default:
			return 0, false
		}
	}
}
