package validate

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/toonkit/toonkit/internal/capture"
	"github.com/toonkit/toonkit/internal/cli"
	"github.com/toonkit/toonkit/internal/codec"
	"github.com/toonkit/toonkit/internal/records"
	"github.com/toonkit/toonkit/internal/schemamap"
)

// Command are the options of `toonkit validate`, checked.
type Command struct {
	IO           *cli.IOStreams
	Inputs       []string
	As           codec.Format // "": detected per file
	MaxErrors    int          // 0: no limit
	PrintSchema  string
	Schema       string      // --schema FILE
	User         *UserSchema // Schema loaded; nil: RunCommand loads it
	MaxFrameSize int
	TOONIndent   int             // --indent: spaces per level of TOON documents (0: 2)
	Jobs         int             // workers; 0: the usable CPUs
	Capture      capture.Options // --port, --conn
	// NewReport starts the report on w (internal/report.NewValidate, in
	// the format and colors of the flags), once the schema is loaded.
	NewReport func(w io.Writer) (Reporter, error)

	schemas Schemas // the schemas files name (#:schema, .toonkit.yaml)
}

// Reporter is the report that RunCommand writes findings to
// (internal/report.Validate).
type Reporter interface {
	Begin(file string)
	Finding(f Finding)
	End(file string, records int, err error)
	Close(note string) error
	Summary() Summary
}

// RunCommand checks every input and writes the report to standard output,
// or prints the schema of --print-schema.
func RunCommand(opts *Command) error {
	if opts.PrintSchema != "" {
		b, err := ExportSchema(opts.PrintSchema)
		if err != nil {
			return cli.UsageErrorf("", "--print-schema: %v", err)
		}
		_, err = opts.IO.Out.Write(b)
		return err
	}
	if opts.Schema != "" && opts.User == nil {
		var err error
		if opts.User, err = loadSchema(opts.Schema); err != nil {
			return err
		}
	}
	rep := cli.NewReporter(opts.IO)
	out := bufio.NewWriter(opts.IO.Out)
	defer out.Flush()
	r, err := opts.NewReport(out)
	if err != nil {
		return err
	}
	stopped := false
	emit := func(f Finding) bool {
		r.Finding(f)
		stopped = opts.MaxErrors > 0 && r.Summary().Errors >= opts.MaxErrors
		return !stopped
	}
	unreadable := 0
	inputs, err := opts.expand(opts.Inputs)
	if err != nil {
		return err
	}
	for _, name := range inputs {
		if stopped {
			break
		}
		r.Begin(cli.DisplayName(name))
		n, err := validateFile(opts, name, emit)
		if err != nil && cli.ExitCode(err, true) == cli.ExitIO {
			out.Flush()
			rep.Report(err, true)
			r.End(cli.DisplayName(name), n, err)
			unreadable++
			continue
		}
		if err != nil {
			// A file that is not a format validate can tell: a finding,
			// in every report, with the hint on stderr.
			msg := strings.TrimPrefix(err.Error(), cli.DisplayName(name)+": ")
			emit(Finding{File: cli.DisplayName(name), Frame: -1, Record: -1, Code: "TK001", Severity: Error, Message: msg})
			var ee *cli.ExitError
			if errors.As(err, &ee) {
				out.Flush()
				rep.Hint(ee.Hint)
			}
		}
		r.End(cli.DisplayName(name), n, nil)
	}
	note := ""
	if stopped {
		note = fmt.Sprintf("(stopped after %d errors: --max-errors)", opts.MaxErrors)
	}
	closeErr := r.Close(note)
	return cli.EndReport(closeErr, out.Flush, unreadable, r.Summary().OK())
}

// validateFile checks one file and says how many records it holds.
func validateFile(opts *Command, name string, emit Emit) (int, error) {
	in, err := cli.OpenInput(opts.IO, name)
	if err != nil {
		return 0, err
	}
	defer in.Close()
	br := bufio.NewReaderSize(in.R, 64<<10)
	user := opts.User
	if user == nil && in.Regular() {
		// No --schema: the schema the file names, or its project file.
		head, _ := br.Peek(64 << 10)
		var err error
		if user, err = opts.associated(in.Name, head); err != nil {
			emit(Finding{File: cli.DisplayName(name), Frame: -1, Record: -1, Code: "TK002", Severity: Error, Message: err.Error()})
			return 0, nil
		}
	}
	run := Run{As: opts.As, User: user, Options: Options{MaxFrameSize: opts.MaxFrameSize, Workers: opts.Jobs, TOONIndent: opts.TOONIndent}, Capture: opts.Capture}
	n, err := run.File(Input{Name: in.Name, R: br, Reopen: capture.ReopenFile(in.File)}, emit)
	var fe *capture.FormatError
	var re *records.Error
	var hinted interface{ Hint() string }
	var twice *ReadTwiceError
	switch {
	case err == nil:
		return n, nil
	case errors.As(err, &twice):
		return n, cli.UsageErrorf("save the input to a file", "%s: %v", in.Name, err)
	case errors.As(err, &hinted):
		return n, cli.InvalidError(fmt.Errorf("%s: %w", in.Name, err), hinted.Hint())
	case errors.As(err, &re) && re.Kind != records.ReadFailed:
		return n, cli.InvalidError(err, "")
	case errors.As(err, &fe):
		return n, cli.InvalidError(fmt.Errorf("%s: %w", in.Name, err), "")
	}
	if cerr, ok := cli.NoConnError(in.Name, err); ok {
		return n, cerr
	}
	return n, cli.ReadError(in.Name, err)
}

// loadSchema loads --schema: exit status 3 when a file cannot be read, 2
// for a schema not valid or not usable offline.
func loadSchema(path string) (*UserSchema, error) {
	us, err := LoadUserSchema(path)
	var se *SchemaError
	if errors.As(err, &se) && se.Problem == SchemaUnreadable {
		return nil, &cli.ExitError{Code: cli.ExitIO, Err: fmt.Errorf("--schema: %w", err)}
	} else if errors.As(err, &se) {
		return nil, cli.UsageErrorf(se.Hint(), "--schema: %v", err)
	}
	return us, err
}

// associated is the schema that the file name (whose first bytes are
// head) is associated with, loaded once per path; nil when none.
func (opts *Command) associated(name string, head []byte) (*UserSchema, error) {
	return opts.schemas.For(name, head)
}

// Schemas finds the schema a file is associated with (schemamap: its
// #:schema comment, or the nearest .toonkit.yaml) and loads it, once per
// schema file, and again when that file has changed (its size or
// modification time): validate checks many files with one, and the
// language server checks a document at each edit.
type Schemas struct {
	// Resolver finds the associations. A caller that runs for long (the
	// language server) gives it a new Resolver now and then, so that an
	// edited .toonkit.yaml is read again.
	Resolver schemamap.Resolver
	loaded   map[string]loadedSchema
}

type loadedSchema struct {
	us      *UserSchema
	size    int64
	modTime time.Time
}

// For is the schema associated with the file name, whose first bytes are
// head; nil, and no error, when there is none. A schema that cannot be
// read or used is an error that says where it was named.
func (s *Schemas) For(name string, head []byte) (*UserSchema, error) {
	a, err := s.Resolver.For(name, head)
	if err != nil || a.Schema == "" {
		return nil, err
	}
	info, statErr := os.Stat(a.Schema)
	if l, ok := s.loaded[a.Schema]; ok && statErr == nil && l.size == info.Size() && l.modTime.Equal(info.ModTime()) {
		return l.us, nil
	}
	us, err := LoadUserSchema(a.Schema)
	if err != nil {
		return nil, fmt.Errorf("the schema named at %s: %w", a.Source, err)
	}
	if s.loaded == nil {
		s.loaded = map[string]loadedSchema{}
	}
	if statErr == nil {
		s.loaded[a.Schema] = loadedSchema{us, info.Size(), info.ModTime()}
	}
	return us, nil
}

// expand is the inputs with each folder replaced by the files under it
// that validate checks, in lexical order (dot-folders left out): every
// *.toon file, and every *.json and *.ndjson file that a project file's
// schema names (schemamap). A folder that cannot be read is an I/O error.
func (opts *Command) expand(inputs []string) ([]string, error) {
	var out []string
	var failed error
	checked := func(path string) bool {
		if strings.HasSuffix(path, ".toon") {
			return true
		}
		if !strings.HasSuffix(path, ".json") && !strings.HasSuffix(path, ".ndjson") {
			return false
		}
		c, _ := opts.schemas.Resolver.ConfigFor(path)
		return c != nil && c.Match(path) != nil
	}
	cli.EachInput(inputs, checked, func(path string, err error) {
		if err != nil && failed == nil {
			failed = cli.IOErrorf("cannot read %s: %s", path, cli.PathErrText(err))
		}
		out = append(out, path)
	})
	return out, failed
}
