// Package query runs jq's language over the records of every format
// toonkit reads, with github.com/itchyny/gojq as the interpreter. It adds
// what gojq's own command lacks: values come from toonkit's readers (not
// encoding/json), integers of any size stay exact, decimals passed through
// keep their digits, and objects passed through keep their key order.
//
// # Values
//
// Decode turns one JSON value (as toonkit's readers give it) into gojq's
// values: integers as int, or *big.Int beyond the int range, so that
// 12345678901234567890 + 1 is 12345678901234567891; other numbers as
// json.Number holding their literal, so that 1.50, 1e2 and
// 3.14159265358979323846 are written back as they were read when the filter
// passes them through (as jq 1.7 does; jq 1.6 prints 1.5, 100 and
// 3.141592653589793). A number the filter computes is a float64 (or an
// exact integer) and is written as jq writes numbers (AppendFloat). Limits
// of the rule: a decimal literal beyond float64's range (1e1000) is written
// as read when passed through, but computes as ±1.7976931348623157e+308;
// -0 is kept.
//
// # Key order
//
// gojq holds objects as Go maps, which have no order. An Order remembers
// the key order of every object Decode reads, and the Encoder writes an
// object in the first order that applies:
//   - -S (Format.Sort): sorted;
//   - the object is one Decode read, untouched: its input order;
//   - the filter has an object literal with exactly its keys ({id, name}):
//     the literal's order, as jq builds it;
//   - an object read with exactly its keys (a copy the filter changed, as
//     .a = 1 or del(.b) | .b = 2 make): the order that key set was last
//     read in, within the same input (Order.Forget);
//   - an object read with all its keys but one (.new = 1, . + {new: 1}):
//     that order, the new key last, as jq writes it (objects of 3 to 32
//     keys);
//   - else sorted by key (byte order).
//
// Where this still differs from jq: objects the filter builds otherwise
// (from_entries, reduce, several keys added or a key deleted and another
// added, a deleted key set again: jq writes it last) come out in one of the
// orders above rather than jq's insertion order; and gojq iterates
// objects in sorted key order, so .[], keys_unsorted, to_entries,
// with_entries, paths and tostream see the keys sorted where jq sees them
// in insertion order (keys and add are sorted in both). An object that
// shares its key set with an object literal of the filter takes the
// literal's order even when it was read in another.
//
// # Reading what the filter needs
//
// Compile finds in the filter what it reads of its input (a Need): the
// paths it follows by name and by iteration. The Decoders of RunInputs and
// RunJobs build only those parts of each input; the rest is checked as
// JSON, as strictly as ever, and passed over. A filter that does anything
// else with its input (a function with arguments, as, reduce, try, ..)
// reads it whole, and so does one run with -s or -n.
//
// # Other differences from jq
//
// The language is gojq's (see its README for its differences from jq: no
// $__loc__ in error messages, @base32d, getpath/paths on null, keys of
// arrays...); error messages are gojq's. Modules (import, include) are not
// loaded. input_filename is the name the caller gives.
//
// # Running over inputs
//
// Inputs reads the values of a command line's inputs, in any format;
// Query.RunInputs runs a filter over them as jq's command line does (on
// each value, on null with -n, on them all with -s; JSON and NDJSON on
// several workers with RunJobs, in input order), a runtime error reported
// and the run going on, halt and halt_error ending it.
//
// # Variables and errors
//
// Vars gathers the variables jq's command line gives ($NAME, $ARGS), and
// Vars.Parse takes them from its flags as given (--arg, --argjson,
// --slurpfile, --rawfile, --args, --jsonargs). A filter that does not
// compile is a *CompileError, which Syntax places in the filter.
package query

import (
	"context"
	"errors"
	"fmt"
	"io"
	"reflect"
	"strings"
	"unicode/utf8"

	"github.com/itchyny/gojq"
	"github.com/toonkit/toonkit/internal/codec/jsonv"
)

// Options configure Compile.
type Options struct {
	// Variables are the names, with their $, of the values Run is given
	// after the input (--arg, --argjson, $ARGS...).
	Variables []string
	// Inputs gives input and inputs their values: the records after the
	// one being filtered. Nil: input and inputs are errors.
	Inputs gojq.Iter
	// Stderr takes the output of debug and stderr; nil drops it.
	Stderr io.Writer
	// Environ gives $ENV and env; nil gives an empty environment.
	Environ func() []string
	// Filename is what input_filename returns; nil returns null.
	Filename func() any
}

// Query is a compiled filter. Run may be called from several goroutines
// when the filter uses neither input nor inputs.
type Query struct {
	code     *gojq.Code
	literals map[string][]string
	inputs   bool
	ordered  bool // debug or stderr: written as the filter runs
	// need is what the filter reads of each input (nil: all of it), for
	// the Decoders of its inputs (RunInputs, RunJobs)
	need *Need
	// shadows says the filter defines a builtin that needOf reads by its
	// meaning (select, empty): it then reads its inputs whole
	shadows bool
}

// CompileError is a filter that does not compile: Offset is the byte of
// Filter where the error was found.
type CompileError struct {
	Filter string
	Offset int
	Msg    string
}

func (e *CompileError) Error() string {
	return fmt.Sprintf("the filter does not compile: %s", e.Msg)
}

// Syntax places the error in the filter: its line:column (in characters)
// and the filter's line, with the caret's column under the place, as a
// JSON syntax error is shown.
func (e *CompileError) Syntax() *jsonv.SyntaxError {
	before := e.Filter[:e.Offset]
	start := strings.LastIndexByte(before, '\n') + 1
	end := strings.IndexByte(e.Filter[start:], '\n')
	if end < 0 {
		end = len(e.Filter)
	} else {
		end += start
	}
	text := e.Filter[start:end]
	col := e.Offset - start
	ex, caret := jsonv.Excerpt([]byte(text), col)
	pos := jsonv.Position{Offset: int64(e.Offset), Line: strings.Count(before, "\n") + 1, Column: utf8.RuneCountInString(text[:col]) + 1}
	return &jsonv.SyntaxError{Pos: pos, Msg: e.Msg, Excerpt: ex, Caret: caret}
}

// Compile parses and compiles a filter.
func Compile(filter string, opts Options) (*Query, error) {
	ast, err := gojq.Parse(filter)
	if err != nil {
		ce := &CompileError{Filter: filter, Msg: err.Error()}
		var pe *gojq.ParseError
		if errors.As(err, &pe) {
			ce.Offset = pe.Offset - len(pe.Token)
			if pe.Token == "" && pe.Offset >= len(filter) {
				ce.Offset = len(filter)
			}
		}
		ce.Offset = max(0, min(ce.Offset, len(filter)))
		return nil, ce
	}
	q := &Query{literals: map[string][]string{}}
	walk(reflect.ValueOf(ast), q)
	if !q.inputs && !q.shadows {
		q.need = needOf(ast)
	}
	stderr := opts.Stderr
	if stderr == nil {
		stderr = io.Discard
	}
	environ := opts.Environ
	if environ == nil {
		environ = func() []string { return nil }
	}
	filename := opts.Filename
	if filename == nil {
		filename = func() any { return nil }
	}
	copts := []gojq.CompilerOption{
		gojq.WithEnvironLoader(environ),
		gojq.WithVariables(opts.Variables),
		gojq.WithFunction("debug", 0, 0, func(v any, _ []any) any {
			var e Encoder
			b := append(e.Append(nil, []any{"DEBUG:", v}), '\n')
			if _, err := stderr.Write(b); err != nil {
				return err
			}
			return v
		}),
		gojq.WithFunction("stderr", 0, 0, func(v any, _ []any) any {
			var e Encoder
			if _, err := stderr.Write(e.Append(nil, v)); err != nil {
				return err
			}
			return v
		}),
		gojq.WithFunction("input_filename", 0, 0, func(any, []any) any { return filename() }),
	}
	if opts.Inputs != nil {
		copts = append(copts, gojq.WithInputIter(noMoreInputs{opts.Inputs}))
		ast.FuncDefs = append([]*gojq.FuncDef{inputsDef}, ast.FuncDefs...)
	}
	code, err := gojq.Compile(ast, copts...)
	if err != nil {
		msg := err.Error()
		off := 0
		if name, _, ok := strings.Cut(strings.TrimPrefix(msg, "function not defined: "), "/"); ok && name != msg {
			off = max(0, strings.Index(filter, name))
		} else if i := strings.Index(msg, "$"); i >= 0 {
			name := strings.Fields(msg[i:])[0]
			off = max(0, strings.Index(filter, name))
		}
		return nil, &CompileError{Filter: filter, Offset: off, Msg: msg}
	}
	q.code = code
	return q, nil
}

// ErrNoMoreInputs is the error of input past the last input, as jq 1.7
// words it (gojq's is "break").
var ErrNoMoreInputs = errors.New("No more inputs") //lint:ignore ST1005 jq's words

// noMoreInputs is an input iterator whose end, for input, is
// ErrNoMoreInputs.
type noMoreInputs struct{ gojq.Iter }

func (it noMoreInputs) Next() (any, bool) {
	if v, ok := it.Iter.Next(); ok {
		return v, true
	}
	return ErrNoMoreInputs, true
}

// inputsDef is jq 1.7's inputs, which ends at ErrNoMoreInputs (gojq's own
// ends at "break"); the filter's own definitions come after it and so
// shadow it.
var inputsDef = func() *gojq.FuncDef {
	q, err := gojq.Parse(`def inputs: try repeat(input) catch if . == "No more inputs" then empty else error end; .`)
	if err != nil {
		panic(err)
	}
	return q.FuncDefs[0]
}()

// UsesInputs reports whether the filter calls input or inputs: it then
// reads records beyond the one it is given, and cannot run on several
// records at once.
func (q *Query) UsesInputs() bool { return q.inputs }

// Parallel reports whether the filter may run on several inputs at once
// (RunJobs): it calls none of input and inputs (which read the inputs
// after the one it is given) and none of debug and stderr (which write as
// the filter runs, so that their messages follow the inputs' order only on
// one worker). Functions of those names the filter defines itself count
// too.
func (q *Query) Parallel() bool { return !q.inputs && !q.ordered }

// NewOrder returns an Order for the records this filter runs on: it knows
// the key orders of the filter's object literals.
func (q *Query) NewOrder() *Order {
	o := NewOrder()
	o.fixed = q.literals
	return o
}

// Run runs the filter on v, with the values of Options.Variables. The
// iterator yields values and errors; the context ends a long run (its
// error comes out of the iterator).
func (q *Query) Run(ctx context.Context, v any, vars ...any) gojq.Iter {
	return q.code.RunWithContext(ctx, v, vars...)
}

// Halted reports whether err is the end of the run that halt or
// halt_error asked for, with its exit status and, for halt_error, the
// value to print on stderr (message is false for halt).
func Halted(err error) (code int, value any, message, ok bool) {
	var he *gojq.HaltError
	if !errors.As(err, &he) {
		return 0, nil, false, false
	}
	return he.ExitCode(), he.Value(), he.Value() != nil || he.ExitCode() != 0, true
}

var (
	objectType  = reflect.TypeFor[gojq.Object]()
	funcType    = reflect.TypeFor[gojq.Func]()
	funcDefType = reflect.TypeFor[gojq.FuncDef]()
)

// walk visits the filter's syntax tree: it collects the key orders of the
// object literals whose keys are all constant, whether input, inputs,
// debug or stderr is called, and whether a builtin needOf follows is
// defined anew.
func walk(v reflect.Value, q *Query) {
	switch v.Kind() {
	case reflect.Pointer, reflect.Interface:
		if !v.IsNil() {
			walk(v.Elem(), q)
		}
	case reflect.Slice:
		for i := range v.Len() {
			walk(v.Index(i), q)
		}
	case reflect.Struct:
		switch v.Type() {
		case objectType:
			objectLiteral(v.Addr().Interface().(*gojq.Object), q)
		case funcDefType:
			q.shadows = q.shadows || shadowed[v.FieldByName("Name").String()]
		case funcType:
			switch v.FieldByName("Name").String() {
			case "input", "inputs":
				q.inputs = true
			case "debug", "stderr":
				q.ordered = true
			}
		}
		for i := range v.NumField() {
			if v.Type().Field(i).IsExported() {
				walk(v.Field(i), q)
			}
		}
	}
}

func objectLiteral(o *gojq.Object, q *Query) {
	keys := make([]string, 0, len(o.KeyVals))
	for _, kv := range o.KeyVals {
		switch {
		case kv.Key != "":
			keys = append(keys, strings.TrimPrefix(kv.Key, "$"))
		case kv.KeyString != nil && kv.KeyString.Queries == nil:
			keys = append(keys, kv.KeyString.Str)
		default:
			return // a computed key
		}
	}
	literals(q.literals, keys)
}
