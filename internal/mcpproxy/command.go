package mcpproxy

import (
	"fmt"
	"io"
	"os"
	"sync"
	"sync/atomic"
	"time"

	"github.com/toonkit/toonkit/internal/cli"
	"github.com/toonkit/toonkit/internal/toolproc"
)

// Command is `toonkit mcp proxy`: the server to run, and how to rewrite.
type Command struct {
	// Server is the server's command line.
	Server []string
	Options
	// LogFile is the file the log is appended to; "" is stderr, "-" none.
	LogFile string
	// KillAfter is how long the server has to exit once the client has
	// gone (its stdin closed), and the grace between SIGTERM and SIGKILL.
	KillAfter time.Duration
	// Interrupt sets the hook that is given the signals that end a run
	// before they do, and returns the function that removes it; nil: none.
	Interrupt func(func(os.Signal) bool) (restore func())
}

// Run runs the server as a child in a process group of its own and
// proxies the session between ios's stdin and stdout (the client) and the
// server's, its stderr passed on to ios's. It ends when the server's
// output does, with the server's exit status (a *cli.ExitError); a signal
// ends the server's process group first.
func (c *Command) Run(ios *cli.IOStreams) error {
	errOut := &lineWriter{w: ios.ErrOut} // the server's stderr, and the log by default
	var log io.Writer = errOut
	switch c.LogFile {
	case "-":
		log = nil
	case "":
	default:
		f, err := os.OpenFile(c.LogFile, os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o644)
		if err != nil {
			return cli.IOErrorf("cannot open the log %s: %s", c.LogFile, cli.PathErrText(err))
		}
		defer f.Close()
		log = f
	}
	px, err := New(c.Options, log)
	if err != nil {
		return cli.UsageErrorf("run 'toonkit mcp proxy --help' for usage", "%v", err)
	}
	killAfter := c.KillAfter
	if killAfter <= 0 {
		killAfter = 5 * time.Second
	}
	p := toolproc.New(c.Server[0], c.Server[1:], toolproc.Options{KillAfter: killAfter, Stderr: func(b []byte) { errOut.Write(b) }})
	if c.Interrupt != nil {
		restore := c.Interrupt(p.Interrupt)
		defer restore()
	}
	stdin, err := p.StartPiped()
	if err != nil {
		return cli.StartError(c.Server[0], "toonkit mcp proxy --", err)
	}
	// The client gone, the server has KillAfter to exit on its own.
	var lingered atomic.Bool // the server outlived the client by killAfter
	toServer := &onClose{WriteCloser: stdin, f: func() {
		time.AfterFunc(killAfter, func() { lingered.Store(true); p.Abort() })
	}}
	runErr := px.Run(ios.In, toServer, p.Stdout(), ios.Out)
	p.DoneReading()
	if runErr != nil {
		p.Abort()
	}
	exit := p.Wait()
	switch {
	case exit.Interrupted != "":
		return cli.Reported(exit.InterruptedCode)
	case runErr != nil:
		return cli.IOErrorf("the session broke off: %v", runErr)
	case exit.Signal != "" && lingered.Load():
		return &cli.ExitError{Code: 1, Err: fmt.Errorf("the server %s did not exit within %s of the client's end (its stdin closed): ended by %s", c.Server[0], killAfter, exit.Signal),
			Hint: "a stdio MCP server exits when its stdin ends; --kill-after gives it longer"}
	case exit.Signal != "":
		return &cli.ExitError{Code: 1, Err: fmt.Errorf("the server %s was ended by %s", c.Server[0], exit.Signal)}
	case exit.Status != 0:
		return cli.Reported(exit.Status)
	}
	return nil
}

// onClose calls f once the WriteCloser is closed.
type onClose struct {
	io.WriteCloser
	once sync.Once
	f    func()
}

func (o *onClose) Close() error {
	err := o.WriteCloser.Close()
	o.once.Do(o.f)
	return err
}

// lineWriter writes under a lock: a log line and a piece of the server's
// stderr, on the same stream, are written one after the other.
type lineWriter struct {
	mu sync.Mutex
	w  io.Writer
}

func (l *lineWriter) Write(b []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(b)
}
