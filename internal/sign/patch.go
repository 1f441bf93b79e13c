package sign

// AppendSigned appends ev's bytes with sig as the value of meta.signature
// and of the top-level signature, each replacing the value there or added
// as the object's last member, written in the object's own style (the
// separators and line breaks between its members). No other byte changes.
func AppendSigned(dst []byte, ev *Event, sig []byte) []byte {
	type edit struct {
		from, to int // the bytes replaced (from == to: an insertion)
		name     bool
		sep      string // before the name, for an insertion: sep then space
		space    []byte
		colon    []byte
	}
	t, raw := ev.tape, ev.Raw
	at := func(obj, name int32) edit {
		if name >= 0 {
			v := &t[name+1]
			from, to := int(v.start), int(v.end)
			if v.kind == kString {
				from, to = from-1, to+1 // the quotes
			}
			return edit{from: from, to: to}
		}
		sep, space, colon := memberStyle(raw, t, obj)
		end := int(t[obj].end) - 1 // the closing brace
		for end > 0 && isSpace(raw[end-1]) {
			end--
		}
		if t[obj].next == obj+1 { // {}: no member to follow
			sep, space = "", nil
		}
		return edit{from: end, to: end, name: true, sep: sep, space: space, colon: colon}
	}
	edits := [2]edit{at(ev.meta, ev.metaSig), at(0, ev.topSig)}
	if edits[1].from < edits[0].from {
		edits[0], edits[1] = edits[1], edits[0]
	}
	pos := 0
	for _, e := range edits {
		dst = append(dst, raw[pos:e.from]...)
		if e.name {
			dst = append(dst, e.sep...)
			dst = append(dst, e.space...)
			dst = append(dst, `"signature"`...)
			dst = append(dst, e.colon...)
		}
		dst = append(dst, '"')
		dst = append(dst, sig...)
		dst = append(dst, '"')
		pos = e.to
	}
	return append(dst, raw[pos:]...)
}

func isSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\r' }

// memberStyle is how the object at obj separates its members: the bytes
// from the end of one value to the next name ("," ", " ",\n    "), as a
// comma and the white space after it, and from a name to its value (":"
// ": ").
func memberStyle(raw []byte, t []node, obj int32) (comma string, space, colon []byte) {
	first := obj + 1
	if first >= t[obj].next {
		return ",", nil, []byte(":")
	}
	var prev, last int32 = -1, first
	for j := first; j < t[obj].next; j = t[j+1].next {
		prev, last = last, j
	}
	// The colon: from the last name's closing quote to its value.
	colon = raw[t[last].end+1 : t[last+1].start-valueQuote(t, last+1)]
	if prev != last {
		return "", raw[t[prev+1].end+valueQuote(t, prev+1) : t[last].start-1], colon
	}
	// One member: after a comma, the white space the object opens with.
	open := raw[t[obj].start+1 : t[first].start-1]
	if len(open) == 0 && len(colon) > 1 {
		return ", ", nil, colon // {"a": 1}
	}
	return ",", open, colon
}

// valueQuote is 1 for a string value (whose node leaves its quotes out).
func valueQuote(t []node, i int32) int32 {
	if t[i].kind == kString {
		return 1
	}
	return 0
}
