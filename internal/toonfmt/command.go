package toonfmt

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"strings"

	udiff "github.com/aymanbagabas/go-udiff"

	"github.com/toonkit/toonkit/internal/cli"
	"github.com/toonkit/toonkit/internal/codec"
	"github.com/toonkit/toonkit/internal/outfile"
)

// RunOptions are the options of toonkit fmt.
type RunOptions struct {
	IO *cli.IOStreams
	// Inputs are files and directories (every *.toon file under one, its
	// dot-directories left out); "-" is standard input. A Genesis A2A
	// table (the same .toon extension) is left alone, with a note.
	Inputs []string
	// Check lists the files that would change, on stdout, and writes
	// nothing; Diff writes a unified diff of each; Write rewrites each in
	// place. With none of them, the formatted documents go to stdout.
	Check, Diff, Write bool
	Format             Options
	// MaxSize bounds one document, in bytes (--max-size).
	MaxSize int
}

// Run formats each input. An input that cannot be formatted (malformed,
// unreadable) is reported with its position and left as it is; the others
// are still formatted. Exit status: 1 when one was malformed, or, with
// Check, when a file would change; 3 when one could not be read or
// written.
func Run(opts *RunOptions) error {
	r := &run{opts: opts, rep: cli.NewReporter(opts.IO)}
	isTOON := func(path string) bool { return strings.HasSuffix(path, ".toon") }
	cli.EachInput(opts.Inputs, isTOON, func(path string, err error) {
		if path == "-" {
			path = cli.StdinName
		}
		r.one(path, err)
	})
	if r.outErr != nil {
		return cli.IOErrorf("cannot write <stdout>: %s", cli.PathErrText(r.outErr))
	}
	switch {
	case r.unreadable > 0:
		return cli.Reported(cli.ExitIO)
	case r.invalid > 0, opts.Check && r.changed > 0:
		return cli.Reported(cli.ExitInvalid)
	}
	return nil
}

// run is one run of fmt over its inputs.
type run struct {
	opts                         *RunOptions
	rep                          *cli.Reporter
	outErr                       error // of stdout
	invalid, unreadable, changed int
}

// write writes p to stdout; the first error sticks.
func (r *run) write(p []byte) {
	if r.outErr == nil && len(p) > 0 {
		_, r.outErr = r.opts.IO.Out.Write(p)
	}
}

// one formats one input, name ("<stdin>" for standard input); err is an
// error met finding it.
func (r *run) one(name string, err error) {
	if err != nil {
		r.unreadable++
		r.rep.Errorf("cannot read %s: %s", name, cli.PathErrText(err))
		return
	}
	src, err := r.read(name)
	if err != nil {
		r.fail(err)
		return
	}
	if codec.DetectWhole(src).Format == codec.Tabular {
		// The same extension as TOON's, another format: left alone.
		r.rep.Notef("%s: a Genesis A2A table (@toon 1.0), not TOON: left as it is", name)
		return
	}
	got, err := Format(src, r.opts.Format)
	if err != nil {
		r.invalid++
		if errors.Is(err, ErrChanged) {
			r.rep.Errorf("%s: %s; the file is left as it is (a bug in toonkit: please report it)", name, err)
			return
		}
		r.rep.Report(cli.TOONError(name, nil, err), true)
		return
	}
	same := bytes.Equal(src, got)
	if !same {
		r.changed++
	}
	switch {
	case r.opts.Check || r.opts.Diff:
		if same {
			return
		}
		if r.opts.Check {
			r.write([]byte(name + "\n"))
		}
		if r.opts.Diff {
			r.write([]byte(udiff.Unified(name+".orig", name, string(src), string(got))))
		}
	case r.opts.Write && name == cli.StdinName:
		r.write(got) // no file to rewrite (the command refuses -w -)
	case r.opts.Write:
		if same {
			return
		}
		if err := writeFile(name, got); err != nil {
			r.fail(err)
		}
	default:
		r.write(got)
	}
}

// fail reports err, an input's error: an I/O error, or one of size.
func (r *run) fail(err error) {
	if r.rep.Report(err, true) == cli.ExitInvalid {
		r.invalid++
	} else {
		r.unreadable++
	}
}

// read reads the input name, up to MaxSize bytes.
func (r *run) read(name string) ([]byte, error) {
	in, err := cli.OpenInput(r.opts.IO, map[bool]string{true: "-", false: name}[name == cli.StdinName])
	if err != nil {
		return nil, err
	}
	defer in.Close()
	limit := int64(r.opts.MaxSize)
	if limit <= 0 {
		limit = 64 << 20
	}
	src, err := io.ReadAll(io.LimitReader(in.R, limit+1))
	if err != nil {
		return nil, cli.ReadError(name, err)
	}
	if int64(len(src)) > limit {
		return nil, cli.InvalidError(fmt.Errorf("%s: the document passes the limit of %d bytes", name, limit), "raise --max-size if such documents are expected")
	}
	return src, nil
}

// writeFile replaces name with b, atomically, keeping its mode.
func writeFile(name string, b []byte) error {
	f, err := outfile.Open(name)
	if err != nil {
		return cli.IOErrorf("cannot write %s: %s", name, cli.PathErrText(err))
	}
	if _, err := f.Writer().Write(b); err != nil {
		f.Abort()
		return cli.IOErrorf("cannot write %s: %s", name, cli.PathErrText(err))
	}
	if err := f.Commit(); err != nil {
		return cli.IOErrorf("cannot write %s: %s", name, cli.PathErrText(err))
	}
	return nil
}
