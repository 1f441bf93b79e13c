package query

import (
	"fmt"
	"slices"
	"strings"

	"github.com/toonkit/toonkit/internal/pipeline"
	"github.com/toonkit/toonkit/internal/size"
)

// This file holds what the command line of toonkit query needs beyond the
// filter: jq's argument order, --max-memory, the collector's tuning and
// the hints of the readers it shares with other commands.

// valueFlags are query's flags that take two values, jq's way
// (--arg NAME VALUE): Args joins them as NAME=VALUE for the flag
// parser.
var valueFlags = []string{"--arg", "--argjson", "--slurpfile", "--rawfile"}

// Args rewrites the arguments of toonkit (of `toonkit query`) for the flag parser,
// which knows no flag of two values and no order of arguments: jq's
// two-value flags (--arg NAME VALUE) become one value (--arg=NAME=VALUE),
// and the arguments that follow --args or --jsonargs (after the filter) become
// --positional=s:VALUE or --positional=j:VALUE, as jq reads them: files
// before, values after. Other commands' arguments are returned as they are.
func Args(args []string) []string {
	i := 0
	for i < len(args) && strings.HasPrefix(args[i], "-") && args[i] != "-" && args[i] != "--" {
		if args[i] == "--color" {
			i++
		}
		i++
	}
	if i >= len(args) || args[i] != "query" {
		return args
	}
	out := slices.Clone(args[:i+1])
	filter := slices.ContainsFunc(args[i+1:], func(a string) bool {
		return a == "-f" || a == "--from-file" || strings.HasPrefix(a, "--from-file=")
	})
	mode := "" // "s:" after --args, "j:" after --jsonargs
	for j := i + 1; j < len(args); j++ {
		a := args[j]
		switch {
		case a == "--":
			return append(out, args[j:]...)
		case slices.Contains(valueFlags, a) && j+2 < len(args):
			out = append(out, a+"="+args[j+1]+"="+args[j+2])
			j += 2
		case slices.Contains(oneValueFlags, a) && j+1 < len(args):
			out = append(out, a, args[j+1])
			j++
		case a == "--args" || a == "--jsonargs":
			mode = map[string]string{"--args": "s:", "--jsonargs": "j:"}[a]
			out = append(out, a)
		case strings.HasPrefix(a, "-") && a != "-":
			out = append(out, a)
		case !filter:
			filter = true
			out = append(out, a)
		case mode != "":
			out = append(out, "--positional="+mode+a)
		default:
			out = append(out, a)
		}
	}
	return out
}

// oneValueFlags are the flags of query (and the global ones) that take
// a value as the next argument.
var oneValueFlags = []string{"--indent", "--from", "--to", "--timeout", "--max-size", "--max-memory", "-f", "--from-file", "--color"}

// MinMemory is the least --max-memory: toonkit's own heap is a few MiB.
const MinMemory = 16 << 20

// ParseMemory reads --max-memory: 0, no bound, or a size as size.Parse
// reads it (1048576, 512MiB, 8GiB), of up to 1 PiB.
func ParseMemory(s string) (int64, error) {
	t := strings.ToLower(strings.TrimSpace(s))
	if t == "0" {
		return 0, nil
	}
	n, err := size.Parse(t, 1<<50, "1PiB")
	if err != nil {
		return 0, fmt.Errorf("invalid size %q (want 0, auto, or a size such as 512MiB or 8GiB)", s)
	}
	return n, nil
}

// TuneGC sets the collector for a run on jobs workers (slurp: -s, the
// whole input held; gogcSet: GOGC is in the environment, and wins) and
// returns the function that restores it.
//
// On one worker, a record's values are garbage once its results are
// written: collecting half as often saves ~6% of the time (100k
// Python-formatted Chiffon messages, one core: 0.51 s and 30 MiB at GOGC
// 100, 0.48 s and 39 MiB at 200, 0.48 s and 64 MiB at 300). Several
// workers, or -s holding the whole input: the default, as a soft memory
// limit would make the collector run without end on an input of one large
// document (3x the time on a 52 MB array).
func TuneGC(jobs int, slurp, gogcSet bool) (restore func()) {
	if jobs != 1 || slurp {
		return func() {}
	}
	return pipeline.SetGCPercent(200, func() bool { return gogcSet })
}

// Hint is the hint of an error of a reader that query shares with other
// commands, with their flags named as query's: --max-size for
// --max-frame-size (--keep-going means the same for query as for decode).
func Hint(h string) string {
	return strings.ReplaceAll(h, "--max-frame-size", "--max-size")
}
