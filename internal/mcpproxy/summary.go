package mcpproxy

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"sort"
	"text/tabwriter"

	"github.com/toonkit/toonkit/internal/cli"
)

// ToolSummary is what the calls of one tool saved, in a Summary.
type ToolSummary struct {
	Tool      string `json:"tool"`
	Calls     int    `json:"calls"`
	Rewritten int    `json:"rewritten"`
	Before    Size   `json:"before"`
	After     Size   `json:"after"`
	// Saved is the share of the tokens saved, in percent to one decimal.
	Saved float64 `json:"saved_percent"`
}

// Summary sums a proxy's logs (`toonkit stats --mcp-log`): by tool, the
// tools that saved the most tokens first, and all of them.
type Summary struct {
	Sessions int           `json:"sessions"` // the totals lines read
	Tools    []ToolSummary `json:"tools"`
	All      ToolSummary   `json:"all"`
}

// Add reads a log, the JSON lines a Proxy writes, into the summary. A
// line that is not one of them is an error with its line number.
func (s *Summary) Add(r io.Reader, name string) error {
	byTool := map[string]int{}
	for i, t := range s.Tools {
		byTool[t.Tool] = i
	}
	sc := bufio.NewScanner(r)
	sc.Buffer(nil, 1<<20)
	for n := 1; sc.Scan(); n++ {
		line := sc.Bytes()
		if len(line) == 0 {
			continue
		}
		var ev struct {
			Event *string `json:"event"`
		}
		if err := json.Unmarshal(line, &ev); err != nil {
			return fmt.Errorf("%s:%d: not a line of toonkit mcp proxy's log: %v", name, n, err)
		}
		if ev.Event != nil {
			if *ev.Event != "total" {
				return fmt.Errorf("%s:%d: an event %q, which toonkit mcp proxy does not log", name, n, *ev.Event)
			}
			s.Sessions++
			continue
		}
		var c Call
		if err := json.Unmarshal(line, &c); err != nil {
			return fmt.Errorf("%s:%d: not a line of toonkit mcp proxy's log: %v", name, n, err)
		}
		if c.Choice == "" {
			return fmt.Errorf("%s:%d: not a line of toonkit mcp proxy's log (no \"choice\")", name, n)
		}
		i, ok := byTool[c.Tool]
		if !ok {
			i = len(s.Tools)
			byTool[c.Tool] = i
			s.Tools = append(s.Tools, ToolSummary{Tool: c.Tool})
		}
		for _, t := range []*ToolSummary{&s.Tools[i], &s.All} {
			t.Calls++
			if c.Rewritten {
				t.Rewritten++
			}
			t.Before.Bytes += c.Before.Bytes
			t.Before.Tokens += c.Before.Tokens
			t.After.Bytes += c.After.Bytes
			t.After.Tokens += c.After.Tokens
		}
	}
	if err := sc.Err(); err != nil {
		return fmt.Errorf("%s: %w", name, err)
	}
	s.finish()
	return nil
}

func (s *Summary) finish() {
	for _, t := range append([]*ToolSummary{&s.All}, pointers(s.Tools)...) {
		t.Saved = 0
		if t.Before.Tokens > 0 {
			t.Saved = math.Round(float64(t.Before.Tokens-t.After.Tokens)*1000/float64(t.Before.Tokens)) / 10
		}
	}
	s.All.Tool = ""
	sort.SliceStable(s.Tools, func(a, b int) bool {
		sa := s.Tools[a].Before.Tokens - s.Tools[a].After.Tokens
		sb := s.Tools[b].Before.Tokens - s.Tools[b].After.Tokens
		if sa != sb {
			return sa > sb
		}
		return s.Tools[a].Tool < s.Tools[b].Tool
	})
}

func pointers(ts []ToolSummary) []*ToolSummary {
	out := make([]*ToolSummary, len(ts))
	for i := range ts {
		out[i] = &ts[i]
	}
	return out
}

// WriteText writes the summary as a table: a row per tool, then all.
func (s *Summary) WriteText(w io.Writer) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintf(tw, "tool\tcalls\trewritten\ttokens before\ttokens after\tsaved\n")
	row := func(name string, t ToolSummary) {
		fmt.Fprintf(tw, "%s\t%d\t%d\t%d\t%d\t%.1f%%\n", name, t.Calls, t.Rewritten, t.Before.Tokens, t.After.Tokens, t.Saved)
	}
	for _, t := range s.Tools {
		row(t.Tool, t)
	}
	row(fmt.Sprintf("all (%d %s)", s.Sessions, cli.Plural(s.Sessions, "session", "sessions")), s.All)
	return tw.Flush()
}

// RunSummary is `toonkit stats --mcp-log`: the summary of the logs named
// (cli.InputNames'), as a table or (json) a JSON document.
func RunSummary(ios *cli.IOStreams, inputs []string, asJSON bool) error {
	var s Summary
	for _, name := range inputs {
		in, err := cli.OpenInput(ios, name)
		if err != nil {
			return err
		}
		err = s.Add(in.R, in.Name)
		in.Close()
		if err != nil {
			return cli.InvalidError(err, "--mcp-log reads the log that toonkit mcp proxy writes (--log FILE)")
		}
	}
	s.finish()
	if asJSON {
		if s.Tools == nil {
			s.Tools = []ToolSummary{}
		}
		b, _ := json.MarshalIndent(s, "", "  ")
		_, err := ios.Out.Write(append(b, '\n'))
		return err
	}
	return s.WriteText(ios.Out)
}
