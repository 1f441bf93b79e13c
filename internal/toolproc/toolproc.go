// Package toolproc runs a tool as a child process in a process group of
// its own and ends it as a whole: SIGTERM to the group, then SIGKILL after
// a grace period, and SIGKILL at once for what the tool leaves running once
// it has exited. Its stdout is a pipe for the caller to read; its stderr is
// handed to a callback as it comes. A signal that would end the caller is
// passed to the group first (a second one kills it at once). Without Unix
// process groups (Windows), the tool alone is ended.
//
// It is the process supervision of toonkit exec (spec 4.6 of the
// Narratoria tool protocol): the protocol itself is internal/narratoria/host's.
package toolproc

import (
	"errors"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"sync"
	"syscall"
	"time"
)

// Options configure a Process.
type Options struct {
	// KillAfter is the grace period between SIGTERM and SIGKILL.
	KillAfter time.Duration
	// TimeLimit is reported in the Exit of a run ended by Timeout.
	TimeLimit time.Duration
	// Stderr receives the tool's stderr as it comes (from one goroutine);
	// the slice is valid during the call.
	Stderr func([]byte)
}

// InterruptedError is Start's error when a signal came (Interrupt) before
// the tool was started: it is not started. Code is the exit status the
// run ends with, 128 + the signal's number.
type InterruptedError struct{ Code int }

func (e *InterruptedError) Error() string { return "interrupted before the tool started" }

// PipeError is Start's error when the pipes to the tool cannot be made.
type PipeError struct{ Err error }

func (e *PipeError) Error() string { return "cannot make a pipe: " + e.Err.Error() }
func (e *PipeError) Unwrap() error { return e.Err }

// Process is a tool, run in a process group of its own.
type Process struct {
	cmd        *exec.Cmd
	stdout     *os.File // the read end of its stdout
	stderr     *os.File // the read end of its stderr
	stdoutDone chan struct{}
	stderrDone chan struct{}
	exited     chan struct{} // closed once Wait returned
	killAfter  time.Duration
	timeLimit  time.Duration
	errOut     func([]byte)

	mu          sync.Mutex
	started     bool
	ending      bool   // terminate was called
	timedOut    bool   // by --timeout
	interrupted string // by this signal
	intCode     int
}

// New prepares the process of tool with args; Start starts it.
func New(tool string, args []string, opts Options) *Process {
	return &Process{cmd: exec.Command(tool, args...), stdoutDone: make(chan struct{}), stderrDone: make(chan struct{}),
		exited: make(chan struct{}), killAfter: opts.KillAfter, timeLimit: opts.TimeLimit, errOut: opts.Stderr}
}

// Start starts the tool in a process group of its own, with its stdout
// on a pipe (Stdout), stdin written to its stdin, and its stderr passed to
// Options.Stderr. An error that is not an *InterruptedError or a
// *PipeError is exec's: the tool could not be started.
func (p *Process) Start(stdin []byte) error {
	inW, err := p.StartPiped()
	if err != nil {
		return err
	}
	go func() {
		// A tool may exit without reading its stdin: the broken pipe is
		// its business.
		inW.Write(stdin)
		inW.Close()
	}()
	return nil
}

// StartPiped is Start with the tool's stdin left to the caller: it writes
// what it has as it comes (a proxy's messages), and closes it at the end.
func (p *Process) StartPiped() (stdin io.WriteCloser, err error) {
	c := p.cmd
	setProcessGroup(c)
	outR, outW, err1 := os.Pipe()
	errR, errW, err2 := os.Pipe()
	inR, inW, err3 := os.Pipe()
	if err := errors.Join(err1, err2, err3); err != nil {
		closeFiles(outR, outW, errR, errW, inR, inW)
		return nil, &PipeError{err}
	}
	c.Stdin, c.Stdout, c.Stderr = inR, outW, errW
	p.mu.Lock()
	if p.interrupted != "" {
		// A signal came first: the tool is not started.
		p.mu.Unlock()
		closeFiles(outR, outW, errR, errW, inR, inW)
		return nil, &InterruptedError{p.intCode}
	}
	err = c.Start()
	p.started = err == nil
	p.mu.Unlock()
	closeFiles(inR, outW, errW) // the tool's ends: it has them now
	if err != nil {
		closeFiles(outR, errR, inW)
		return nil, err
	}
	p.stdout, p.stderr = outR, errR
	go func() {
		buf := make([]byte, 32<<10)
		for {
			n, err := errR.Read(buf)
			if n > 0 {
				p.errOut(buf[:n])
			}
			if err != nil {
				close(p.stderrDone)
				return
			}
		}
	}()
	go func() {
		c.Wait()
		close(p.exited)
	}()
	go p.watch()
	return inW, nil
}

// StartFailure is why the tool could not be started, Start's error of
// exec, in words without Go's prefixes ("exec:", the path): "executable
// file not found in $PATH", "permission denied".
func StartFailure(err error) string {
	var ee *exec.Error
	var pe *fs.PathError
	switch {
	case errors.As(err, &ee):
		return ee.Err.Error()
	case errors.As(err, &pe):
		return pe.Err.Error()
	}
	return err.Error()
}

// closeFiles closes files, nil ones too.
func closeFiles(files ...*os.File) {
	for _, f := range files {
		f.Close()
	}
}

// watch ends, once the tool has exited, what it left running in its
// process group: the invocation is over (spec 4.6). What is left of its
// output is still read.
func (p *Process) watch() {
	<-p.exited
	p.terminate()
}

// terminate asks the tool's process group to end, once: SIGTERM now, and
// SIGKILL after --kill-after unless by then the tool has exited and its
// stdout is closed (and then SIGKILL for what it left behind).
func (p *Process) terminate() {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.ending {
		return
	}
	p.ending = true
	signalGroup(p.cmd.Process, syscall.SIGTERM)
	go func() {
		deadline := time.NewTimer(p.killAfter)
		defer deadline.Stop()
		select {
		case <-p.exited:
			select {
			case <-p.stdoutDone:
			case <-deadline.C:
			}
		case <-deadline.C:
		}
		signalGroup(p.cmd.Process, syscall.SIGKILL)
	}()
}

// Abort ends the tool before its time (--timeout, a signal, a protocol
// error): terminate, and should its stdout still be open a second after
// SIGKILL (a process outside the group holds it), stop reading it.
func (p *Process) Abort() {
	p.terminate()
	go p.closeAfter(p.killAfter + time.Second)
}

// closeAfter closes the stdout pipe after d unless it was read to its end.
func (p *Process) closeAfter(d time.Duration) {
	select {
	case <-p.stdoutDone:
	case <-time.After(d):
		p.stdout.Close()
	}
}

// Timeout ends the tool for having run too long: its Exit says so.
func (p *Process) Timeout() {
	p.mu.Lock()
	p.timedOut = true
	p.mu.Unlock()
	p.Abort()
}

// Interrupt takes a signal that would end toonkit: the tool is ended
// first (a second signal kills it at once), and the run then ends with
// the signal's exit status.
func (p *Process) Interrupt(sig os.Signal) bool {
	p.mu.Lock()
	again, started := p.interrupted != "", p.started
	if !again {
		p.interrupted, p.intCode = SignalName(sig), 128+SignalNumber(sig)
	}
	p.mu.Unlock()
	switch {
	case !started:
		return true // start sees it, and does not start the tool
	case again:
		signalGroup(p.cmd.Process, syscall.SIGKILL)
		go p.closeAfter(time.Second)
	default:
		p.Abort()
	}
	return true
}

// Wait waits for the tool to exit, kills what it left in its group, waits
// (a second at most) for its stderr to end, and says how it ended.
func (p *Process) Wait() Exit {
	<-p.exited
	signalGroup(p.cmd.Process, syscall.SIGKILL) // what it left behind, at once
	select {
	case <-p.stderrDone:
	case <-time.After(time.Second):
		p.stderr.Close()
		<-p.stderrDone
	}
	ps := p.cmd.ProcessState
	e := Exit{Status: ps.ExitCode(), Signal: exitSignal(ps)}
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.timedOut {
		e.Timeout = p.timeLimit
	}
	e.Interrupted, e.InterruptedCode = p.interrupted, p.intCode
	return e
}

// Stdout is the read end of the tool's stdout, once Start succeeded.
func (p *Process) Stdout() *os.File { return p.stdout }

// DoneReading says that the caller has read Stdout to its end (or stopped
// reading it): the grace period need not wait for more.
func (p *Process) DoneReading() { close(p.stdoutDone) }

// Exit is how the tool's process ended, as the caller saw it.
type Exit struct {
	// StartError says why the tool could not be started; "" when it was.
	StartError string
	// Status is the tool's exit status; -1 when a signal ended it.
	Status int
	// Signal names the signal that ended the tool ("SIGKILL"); "" when it
	// exited.
	Signal string
	// Timeout is the time limit that ended the tool; 0 when none did.
	Timeout time.Duration
	// Interrupted names the signal that interrupted the run ("SIGINT"),
	// and InterruptedCode is the exit code the run then ends with (130).
	Interrupted     string
	InterruptedCode int
}
