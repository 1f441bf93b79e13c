package dissector_test

import (
	"bytes"
	"fmt"
	"strings"

	"github.com/toonkit/toonkit/internal/dissector"
)

// Write the Lua dissector for frames on ports 7000 and 7443, then load it
// with tshark -X lua_script:kado.lua (or copy it into
// ~/.local/lib/wireshark/plugins/). Here: the lines that register it.
func Example() {
	var lua bytes.Buffer
	if err := dissector.Write(&lua, dissector.Options{Ports: []int{7000, 7443}}); err != nil {
		fmt.Println(err)
		return
	}
	for _, line := range strings.Split(lua.String(), "\n") {
		if strings.HasPrefix(line, "local ports") || strings.Contains(line, "register_heuristic") {
			fmt.Println(line)
		}
	}
	// Output:
	// kado:register_heuristic("tcp", heuristic_tcp)
	// kado:register_heuristic("ws", heuristic_ws)
	// local ports = "7000,7443"
}
