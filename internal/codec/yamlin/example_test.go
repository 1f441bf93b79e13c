package yamlin_test

import (
	"fmt"
	"io"
	"strings"

	"github.com/toonkit/toonkit/internal/codec/yamlin"
)

// A Reader gives the records of a YAML stream as compact JSON: here the
// elements of a root sequence, with the line of each.
func ExampleReader() {
	doc := `# YAML 1.2 core schema: yes stays a string, 0o17 is 15
- name: Ada
  admin: yes
  mode: 0o17
- name: Lin
  admin: true
  mode: 0x1F
`
	r := yamlin.NewReader(strings.NewReader(doc), yamlin.Options{Elements: true})
	for {
		rec, pos, err := r.Next()
		if err == io.EOF {
			break
		}
		fmt.Println(pos.Line, string(rec), err)
	}
	// Output:
	// 2 {"name":"Ada","admin":"yes","mode":15} <nil>
	// 5 {"name":"Lin","admin":true,"mode":31} <nil>
}

// ToJSON converts a whole stream; an alias bomb is refused at the limit.
func ExampleToJSON() {
	out, err := yamlin.ToJSON([]byte("base: &b {x: 1}\nd: {<<: *b, y: 2}\n"), yamlin.Options{})
	fmt.Println(string(out), err)
	_, err = yamlin.ToJSON([]byte("a: &a [x, x]\nb: &b [*a, *a]\nc: [*b, *b]\n"), yamlin.Options{MaxAliasNodes: 5})
	fmt.Println(err)
	// Output:
	// {"base":{"x":1},"d":{"x":1,"y":2}} <nil>
	// 2:12: aliases copy more than 5 nodes into this document (the limit against alias bombs)
}
