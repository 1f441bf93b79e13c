package toonspec_test

import (
	"fmt"

	"github.com/toonkit/toonkit/internal/toonspec"
)

// The fixtures of the three spec versions the repository holds: 516,
// 537 and 538 cases.
func ExampleLoad() {
	cases, err := toonspec.Load("../../testdata/toon-spec")
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(len(cases), len(toonspec.Decode(cases)), len(toonspec.Encode(cases)))
	// Output: 1591 1060 531
}
