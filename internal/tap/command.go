package tap

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"runtime/debug"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/toonkit/toonkit/internal/capture"
	"github.com/toonkit/toonkit/internal/cli"
	"github.com/toonkit/toonkit/internal/cutwriter"
	"github.com/toonkit/toonkit/internal/inspect"
	"github.com/toonkit/toonkit/internal/paint"
	"github.com/toonkit/toonkit/internal/toolproc"
)

// Command is the options of `toonkit tap`, checked.
type Command struct {
	Listen       string
	Upstream     string
	Verbose      bool // the full inspect view
	JSON         bool // decode's NDJSON records
	Write        string
	Count        int // stop after this many frames; 0: never
	MaxFrameSize int
	MaxMemory    int // bytes of traffic held, all connections together

	// Style colors the view (inspect.Options.Style); nil: plain. The
	// caller decides.
	Style paint.Func
	// Interrupt sets the hook that is given the signals that end a run
	// before they do, and returns the function that removes it; nil: none.
	Interrupt func(func(os.Signal) bool) (restore func())
}

// CheckAddr checks a HOST:PORT address: the port a number from 1 to
// 65535, or 0 (any free port) when listen is set.
func CheckAddr(addr string, listen bool) error {
	_, port, err := net.SplitHostPort(addr)
	if err != nil {
		var ae *net.AddrError
		if errors.As(err, &ae) {
			return errors.New(ae.Err)
		}
		return err
	}
	n, err := strconv.ParseUint(port, 10, 16)
	switch {
	case port == "":
		return errors.New("no port")
	case err != nil && strings.Trim(port, "0123456789") == "":
		return fmt.Errorf("port %s is out of range (1 to 65535)", port)
	case err != nil:
		return fmt.Errorf("port %q is not a number", port)
	case n == 0 && !listen:
		return errors.New("port 0 is not a port to connect to (1 to 65535)")
	}
	return nil
}

// viewGrace is how long the view is given, after a signal, to show what
// it still holds before its output is let go of.
const viewGrace = 500 * time.Millisecond

// runtimeHeadroom is what tap's soft memory limit allows beyond
// --max-memory: the runtime, the forwarding buffers, the view's rendering.
const runtimeHeadroom = 64 << 20

// errCounted ends a tap that has shown --count frames.
var errCounted = errors.New("enough frames")

// RunCommand runs toonkit tap: it listens, forwards (Serve) and shows the
// frames on ios's stdout until --count frames or a signal, then sums up
// on stderr.
func RunCommand(ios *cli.IOStreams, opts *Command) error {
	rep := cli.NewReporter(ios)
	// The view writes through a writer that a signal lets go of: tap ends
	// however blocked its stdout is (a pipe nobody reads).
	stdout := cutwriter.New(ios.Out)
	out := bufio.NewWriterSize(stdout, 64<<10)
	writeErr := func(err error) error { return cli.IOErrorf("cannot write <stdout>: %s", cli.PathErrText(err)) }

	var pcap *cli.Output
	if opts.Write != "" {
		pcap = cli.NewOutput(ios, opts.Write)
		if err := pcap.Open(); err != nil {
			return err
		}
	}
	ln, err := net.Listen("tcp", opts.Listen)
	if err != nil {
		if pcap != nil {
			pcap.Abort()
		}
		return cli.IOErrorf("cannot listen on %s: %s", opts.Listen, netErrText(err))
	}

	// The traffic held stays under --max-memory (the accounting of Serve);
	// the Go runtime's soft limit makes it collect, and give back to the
	// system, what is no longer held, so that the process stays near it.
	defer debug.SetMemoryLimit(debug.SetMemoryLimit(int64(opts.MaxMemory) + runtimeHeadroom))

	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	// A signal ends the forwarding at once; the view is given
	// viewGrace to show what it still holds, then its output is let go
	// of (a second signal lets go of it at once). The -w file does not
	// wait for the view.
	var sigMu sync.Mutex
	var sig os.Signal
	if opts.Interrupt != nil {
		restore := opts.Interrupt(func(s os.Signal) bool {
			sigMu.Lock()
			defer sigMu.Unlock()
			if sig == nil {
				sig = s
				time.AfterFunc(viewGrace, stdout.Cut)
			} else {
				stdout.Cut()
			}
			cancel()
			return true
		})
		defer restore()
	}

	ins := inspect.New(out, inspect.Options{Format: inspect.OneLine, Style: opts.Style, MaxFrameSize: opts.MaxFrameSize})
	if opts.Verbose {
		ins = inspect.New(out, inspect.Options{Format: inspect.Text, Style: opts.Style, MaxFrameSize: opts.MaxFrameSize})
	}
	// stderr goes after what the view has shown.
	var stderrErr error
	toStderr := func(f func()) {
		if err := out.Flush(); err != nil && stderrErr == nil {
			stderrErr = err
		}
		f()
	}
	frames := 0
	var line []byte
	topts := Options{
		Upstream:     opts.Upstream,
		MaxFrameSize: opts.MaxFrameSize,
		MaxMemory:    int64(opts.MaxMemory),
		Idle:         out.Flush,
		Record: func(r *capture.Record) error {
			if opts.JSON {
				switch r.Kind {
				case capture.Frame, capture.Text:
					line = append(capture.AppendRecord(line[:0], r), '\n')
					if _, err := out.Write(line); err != nil {
						return err
					}
				case capture.Note:
					toStderr(func() { rep.Notef("%v", r.Err) })
				default:
					toStderr(func() {
						rep.Errorf("%v", r.Err)
						if r.Moved != nil {
							cli.MoveNotes(rep.Notef, r.Err, *r.Moved)
						}
					})
				}
			} else if err := ins.Record(r); err != nil {
				return err
			}
			if r.Kind == capture.Frame {
				frames++
				if frames == opts.Count {
					return errCounted
				}
			}
			return stderrErr
		},
		Notice: func(n Notice) error {
			toStderr(func() {
				if n.Kind == Failed {
					rep.Warnf("%s: cannot connect to the upstream: %s", n.Conn, netErrText(n.Err))
					return
				}
				rep.Notef("%s", n)
			})
			return stderrErr
		},
	}
	if pcap != nil {
		topts.Pcap = pcap
	}
	rep.Notef("tap: listening on %s, forwarding to %s", ln.Addr(), opts.Upstream)
	st, err := Serve(ctx, ln, topts)
	if ferr := out.Flush(); err == nil && ferr != nil {
		err = ferr
	}
	sigMu.Lock()
	ended := sig
	sigMu.Unlock()
	if ended != nil && errors.Is(err, cutwriter.ErrCut) {
		// Signalled while stdout was not being read: what the view
		// still held is not shown; the -w file is complete.
		rep.Notef("tap: stdout was not being read; what the view had not written is dropped")
		err = nil
	}
	if err != nil && !errors.Is(err, errCounted) {
		if pcap != nil {
			pcap.Abort()
		}
		var we *inspect.WriteError
		if errors.As(err, &we) {
			err = we.Err
		}
		if cli.IsExitError(err) {
			return err
		}
		return writeErr(err)
	}
	if pcap != nil {
		if err := pcap.Commit(); err != nil {
			return err
		}
	}
	summary := fmt.Sprintf("tap: %d %s, %d %s, %d %s; %d bytes c2s and %d bytes s2c forwarded",
		st.Conns, cli.Plural(st.Conns, "connection", "connections"), st.Frames, cli.Plural(st.Frames, "frame", "frames"),
		st.Problems, cli.Plural(st.Problems, "problem", "problems"), st.Forwarded[0], st.Forwarded[1])
	if st.Lost > 0 {
		summary += fmt.Sprintf(", %d of them not shown (the view fell behind)", st.Lost)
	}
	if st.Undecoded > 0 {
		summary += fmt.Sprintf(", %d not decoded (over their share of --max-memory)", st.Undecoded)
	}
	rep.Notef("%s", summary)
	if ended != nil {
		return cli.Reported(128 + toolproc.SignalNumber(ended))
	}
	return nil
}

// netErrText is a network error without Go's "dial tcp" / "listen tcp"
// wording repeated.
func netErrText(err error) string {
	var oe *net.OpError
	if errors.As(err, &oe) && oe.Err != nil {
		msg := oe.Err.Error()
		var se *os.SyscallError
		if errors.As(oe.Err, &se) {
			msg = se.Err.Error()
		}
		return msg
	}
	return strings.TrimSpace(err.Error())
}
