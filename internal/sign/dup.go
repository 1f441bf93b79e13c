package sign

import (
	"bytes"
	"fmt"
	"strconv"

	"github.com/go-json-experiment/json/jsontext"
	"github.com/toonkit/toonkit/internal/codec/jsonv"
)

// An event with a member name twice in one object (at any depth) is not
// signed or verified: json.loads keeps the last copy, and so does the
// canonical form signed, but readers that keep the first copy (several do)
// see another event under the same signature. validate --as trace and
// convert refuse such JSON too (internal/codec/jsonv). Canonical, which is
// json.dumps(json.loads(src)), still takes the last copy.

// linearNames is the number of names an object's repeats are looked for
// among one by one (with jsonv.NameBit's set in front), by the parser and
// by duplicate; an object with more, or with an escaped name, is flagged
// by the parser (fRepeat), and has its names put in a map by duplicate.
const linearNames = 32

// duplicate returns the error for the repeated member name of the event's
// tape that comes first in its bytes, or nil when no object of it has a
// name twice. Names are compared as json.loads reads them: "\u0061" is "a".
// The parser flags the values that need the look (fRepeat).
func duplicate(raw []byte, t []node) *FieldError {
	at := int32(-1) // the tape index of the repeat that comes first
	for i := int32(0); i < int32(len(t)); i++ {
		if t[i].kind != kObject || t[i].next-i < 5 {
			continue // an object of one member or none: no look
		}
		if j := repeated(raw, t, i); j >= 0 && (at < 0 || t[j].start < t[at].start) {
			at = j
		}
	}
	if at < 0 {
		return nil
	}
	name := rawKey(raw, t, at)
	return &FieldError{Pointer: jsonv.ShortPointer(string(pointerTo(raw, t, at))), Offset: int(t[at].start) - 1,
		Msg: fmt.Sprintf("duplicate object member name %s: readers disagree on which copy counts", strconv.Quote(string(name)))}
}

// repeated returns the tape index of the first name of the object at i
// that one before it in the object has, or -1.
func repeated(raw []byte, t []node, i int32) int32 {
	var seen uint64
	n := 0
	for j := i + 1; j < t[i].next; j = t[j+1].next {
		if n++; n > linearNames || t[j].flags&fEscape != 0 {
			return repeatedMany(raw, t, i)
		}
		name := raw[t[j].start:t[j].end]
		bit := jsonv.NameBit(name)
		if seen&bit != 0 {
			for k := i + 1; k < j; k = t[k+1].next {
				if bytes.Equal(raw[t[k].start:t[k].end], name) {
					return j
				}
			}
		}
		seen |= bit
	}
	return -1
}

// repeatedMany is repeated by way of a map of the names, decoded.
func repeatedMany(raw []byte, t []node, i int32) int32 {
	names := make(map[string]struct{})
	for j := i + 1; j < t[i].next; j = t[j+1].next {
		name := rawKey(raw, t, j)
		if _, ok := names[string(name)]; ok {
			return j
		}
		names[string(name)] = struct{}{}
	}
	return -1
}

// pointerTo is the JSON pointer of the member whose name is at tape index
// at: the path from the root down to it.
func pointerTo(raw []byte, t []node, at int32) jsontext.Pointer {
	var p jsontext.Pointer
	for c := int32(0); c != at; {
		in := int32(-1) // the child of c that holds at
		k := 0
		switch t[c].kind {
		case kObject:
			for j := c + 1; j < t[c].next && in < 0; j = t[j+1].next {
				if j == at || j+1 <= at && at < t[j+1].next {
					p, in = p.AppendToken(string(rawKey(raw, t, j))), j+1
					if j == at {
						return p
					}
				}
			}
		case kArray:
			for j := c + 1; j < t[c].next && in < 0; j, k = t[j].next, k+1 {
				if j <= at && at < t[j].next {
					p, in = p.AppendToken(strconv.Itoa(k)), j
				}
			}
		}
		if in < 0 {
			break // not reached: at is a name within the root
		}
		c = in
	}
	return p
}
