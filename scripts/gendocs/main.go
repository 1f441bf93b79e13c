// Command gendocs writes toonkit's shell completions and man pages:
//
//	go run ./scripts/gendocs -completions completions -man docs/man
//
// A test (cmd/gendocs_test.go) fails when the committed files are stale.
package main

import (
	"flag"
	"fmt"
	"os"

	"github.com/toonkit/toonkit/cmd"
)

func main() {
	comp := flag.String("completions", "", "write completions to `DIR`")
	man := flag.String("man", "", "write man pages to `DIR`")
	flag.Parse()
	if *comp == "" && *man == "" {
		fmt.Fprintln(os.Stderr, "gendocs: give -completions DIR and/or -man DIR")
		os.Exit(2)
	}
	for _, job := range []struct {
		dir string
		gen func() (map[string][]byte, error)
	}{{*comp, cmd.Completions}, {*man, cmd.ManPages}} {
		if job.dir == "" {
			continue
		}
		files, err := job.gen()
		if err == nil {
			err = cmd.WriteFiles(job.dir, files)
		}
		if err != nil {
			fmt.Fprintln(os.Stderr, "gendocs:", err)
			os.Exit(1)
		}
		fmt.Printf("wrote %d files to %s\n", len(files), job.dir)
	}
}
