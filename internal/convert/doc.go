// Package convert runs toonkit's record commands: encode, decode, convert
// and stats. Each Run function takes the command's options, filled in by
// cmd from the flags, and drives the codecs (toon, kado, tabular), the
// record sources and sinks (internal/records) and the worker engine
// (internal/pipeline) over the inputs, writing to the options' streams
// (internal/cli). Its errors are *cli.ExitError values that carry their exit
// status, position and hint to the terminal.
package convert
