package main

import (
	"os"

	"github.com/toonkit/toonkit/cmd"
)

func main() { os.Exit(cmd.Main()) }
