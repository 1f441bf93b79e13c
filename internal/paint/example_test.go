package paint_test

import (
	"fmt"

	"github.com/toonkit/toonkit/internal/paint"
)

// A writer marks each piece of its text with a role; the terminal's
// layer decides the colors. Here the Func shows the roles in brackets
// instead of escape codes, and a nil Func writes plain text.
func Example() {
	line := func(pt paint.Func) string {
		return pt.Paint(paint.Where, "users.toon:4:3") + ": " + pt.Paint(paint.Error, "error") + ": must be at least 0 " + pt.Paint(paint.Dim, "[SCH001]")
	}
	marks := paint.Func(func(r paint.Role, s string) string { return "[" + r.String() + " " + s + "]" })
	fmt.Println(line(marks))
	fmt.Println(line(nil))
	// Output:
	// [Where users.toon:4:3]: [Error error]: must be at least 0 [Dim [SCH001]]
	// users.toon:4:3: error: must be at least 0 [SCH001]
}
