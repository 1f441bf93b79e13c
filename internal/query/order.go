package query

import (
	"reflect"
	"slices"
)

// maxShapes and maxObjects bound the key orders an Order remembers: the
// distinct key sets, and the decoded objects known by identity. When one is
// full it is emptied and fills again with what comes next.
const (
	maxGrown   = 32 // the most keys of an object looked up as one read plus a key
	maxShapes  = 4096
	maxObjects = 1 << 16
)

// Order remembers the key order of the objects a Decoder reads, so that an
// Encoder writes them back in that order (gojq holds objects as Go maps,
// which have none). An object is known by its identity (the map itself,
// while the filter passes it through untouched) and by its key set (a copy
// the filter made with the same keys, as `.a = 1` makes). The object-literal
// key orders of a filter ({b: .x, a: .y}) are remembered by key set too.
//
// An Order is not safe for concurrent use: one per goroutine.
//
// What is known by identity and by key set lasts until Forget (called
// after each input): the order of an input's objects never depends on the
// inputs before it, so that inputs filtered apart (query --jobs) come out
// as when filtered in turn.
type Order struct {
	objects map[uintptr][]string // decoded maps by identity
	orders  map[string]shape     // the key orders read (NUL-joined): their keys and key set
	shapes  map[string][]string  // the key set (sorted, NUL-joined) -> an order it was read in
	fixed   map[string][]string  // the filter's object literals, by key set
	sig     []byte
	sorted  []string
}

// shape is a key order read: the keys, shared by the objects read so, and
// their set's signature.
type shape struct {
	keys []string
	set  string
}

// NewOrder returns an empty Order.
func NewOrder() *Order {
	return &Order{objects: map[uintptr][]string{}, orders: map[string]shape{}, shapes: map[string][]string{}}
}

func mapID(m map[string]any) uintptr { return uintptr(reflect.ValueOf(m).UnsafePointer()) }

// remember records the key order of a decoded object (keys is not kept).
func (o *Order) remember(m map[string]any, keys []string) {
	if o == nil || len(keys) < 2 {
		return
	}
	o.sig = o.sig[:0]
	for _, k := range keys {
		o.sig = append(o.sig, k...)
		o.sig = append(o.sig, 0)
	}
	sh, ok := o.orders[string(o.sig)]
	if !ok {
		if len(o.orders) >= maxShapes {
			clear(o.orders)
		}
		ordered := string(o.sig)
		sh = shape{keys: slices.Clone(keys), set: string(o.setSig(keys))}
		o.orders[ordered] = sh
	}
	if len(o.shapes) >= maxShapes {
		clear(o.shapes)
	}
	o.shapes[sh.set] = sh.keys // the latest order of the set
	if len(o.objects) >= maxObjects {
		clear(o.objects)
	}
	o.objects[mapID(m)] = sh.keys
}

// Forget drops what is known of objects by identity and by key set: call
// it when the values of one input are written and dropped, so that a later
// map at the same address is not taken for one of them, and the next
// input's orders do not depend on this one's.
func (o *Order) Forget() {
	if o != nil && len(o.objects) > 0 {
		clear(o.objects)
	}
	if o != nil && len(o.shapes) > 0 {
		clear(o.shapes)
	}
}

// setSig is the key set's signature: its keys sorted, NUL-joined.
func (o *Order) setSig(keys []string) []byte {
	o.sorted = append(o.sorted[:0], keys...)
	slices.Sort(o.sorted)
	o.sig = o.sig[:0]
	for _, k := range o.sorted {
		o.sig = append(o.sig, k...)
		o.sig = append(o.sig, 0)
	}
	return o.sig
}

// keys returns the keys of m in the order to write them: the input order of
// the object itself, of its key set, or of a filter's object literal with
// that key set; sorted otherwise. sorted asks for sorted keys (-S).
func (o *Order) keys(m map[string]any, dst []string, sorted bool) []string {
	dst = dst[:0]
	if !sorted && o != nil {
		if ks, ok := o.objects[mapID(m)]; ok && sameKeys(m, ks) {
			return append(dst, ks...)
		}
	}
	for k := range m {
		dst = append(dst, k)
	}
	slices.Sort(dst)
	if sorted || o == nil || len(dst) < 2 {
		return dst
	}
	o.sig = o.sig[:0]
	for _, k := range dst {
		o.sig = append(o.sig, k...)
		o.sig = append(o.sig, 0)
	}
	if ks, ok := o.fixed[string(o.sig)]; ok {
		return append(dst[:0], ks...)
	}
	if ks, ok := o.shapes[string(o.sig)]; ok {
		return append(dst[:0], ks...)
	}
	if len(dst) >= 3 && len(dst) <= maxGrown {
		// one key added to an object read (.x = 1): jq writes it last
		at := 0
		for i, k := range dst {
			sub := append(o.sig[len(o.sig):len(o.sig)], o.sig[:at]...)
			sub = append(sub, o.sig[at+len(k)+1:]...)
			at += len(k) + 1
			if ks, ok := o.shapes[string(sub)]; ok {
				added := dst[i]
				return append(append(dst[:0], ks...), added)
			}
		}
	}
	return dst
}

func sameKeys(m map[string]any, keys []string) bool {
	if len(m) != len(keys) {
		return false
	}
	for _, k := range keys {
		if _, ok := m[k]; !ok {
			return false
		}
	}
	return true
}

// literals collects the key orders of a filter's object literals, by key
// set; the first literal of a key set wins.
func literals(lits map[string][]string, keys []string) {
	if len(keys) < 2 {
		return
	}
	var o Order
	s := string(o.setSig(keys))
	if _, ok := lits[s]; !ok {
		lits[s] = slices.Clone(keys)
	}
}
