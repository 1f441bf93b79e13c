// Package cli is what toonkit's commands share at run time, below cobra:
// the standard streams and their colors (IOStreams), the exit statuses and
// the errors that carry them (ExitError), the reporter that prints errors,
// warnings and hints on stderr, inputs and outputs, record sources and
// sinks whose errors are the user's, and the catalogue of those errors
// with their hints (FrameError, SourceError, ...).
//
// cmd declares the commands (flags, help, the call into packages) and
// renders; cli holds no cobra and writes only to the streams it is given.
package cli
