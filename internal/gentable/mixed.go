package gentable

import (
	"bytes"
	"fmt"
)

// Mixed is a JSON document of at least size bytes in every form TOON has,
// for the tests of encoding in bounded memory: an object holding a table
// (flat rows), a list of objects with nested objects and arrays of uneven
// length, and a nested configuration object of many members.
func Mixed(size int) []byte {
	var b bytes.Buffer
	b.Grow(size + 1<<10)
	b.WriteString("{\"rows\": [")
	for i := 0; b.Len() < size/3; i++ {
		if i > 0 {
			b.WriteString(",\n  ")
		}
		fmt.Fprintf(&b, `{"id": %d, "name": "user %d", "ok": %t, "score": %d.25}`, i, i, i%3 == 0, i%97)
	}
	b.WriteString("],\n\"items\": [")
	for i := 0; b.Len() < 2*size/3; i++ {
		if i > 0 {
			b.WriteString(",\n  ")
		}
		fmt.Fprintf(&b, `{"id": %d, "tags": [%s"y"], "who": {"n": "a: b", "at": {"city": "Zürich"}}`, i, bytes.Repeat([]byte(`"x", `), i%4))
		if i%3 == 0 {
			fmt.Fprintf(&b, `, "m": [[1, 2], [], [{"k": %d}]]`, i)
		}
		b.WriteString("}")
	}
	b.WriteString("],\n\"config\": {")
	for i := 0; b.Len() < size; i++ {
		if i > 0 {
			b.WriteString(",\n  ")
		}
		fmt.Fprintf(&b, `"svc-%d": {"env": {"LEVEL": "info", "N": %d}, "ports": [80, %d], "limits": {"cpu": "%dm"}}`, i, i, 8000+i, i%7)
	}
	b.WriteString("}}\n")
	return b.Bytes()
}
