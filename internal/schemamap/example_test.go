package schemamap_test

import (
	"fmt"

	"github.com/toonkit/toonkit/internal/schemamap"
)

// A TOON document names its schema in a comment before its content.
func ExampleComment() {
	path, line, ok := schemamap.Comment([]byte("# the team\n#:schema schemas/users.schema.json\nusers[1]{id}:\n  1\n"))
	fmt.Println(path, line, ok)
	// Output: schemas/users.schema.json 2 true
}
