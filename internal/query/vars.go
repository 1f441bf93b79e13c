package query

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"slices"
	"strings"

	"github.com/toonkit/toonkit/internal/codec/jsonv"
	"github.com/toonkit/toonkit/internal/records"
)

// Vars gathers a filter's variables as jq's command line gives them:
// named values ($NAME from --arg, --argjson, --slurpfile, --rawfile, where
// the last value of a name wins) and positional ones (--args, --jsonargs),
// which $ARGS holds as {"positional": [...], "named": {...}}. Bind gives
// the names for Options.Variables and the values for Run, in the same
// order. The zero Vars has no variable but $ARGS.
type Vars struct {
	names      []string
	values     []any
	named      map[string]any
	positional []any
}

// Set binds $name to v, in place of an earlier value of the same name.
func (vs *Vars) Set(name string, v any) {
	if i := slices.Index(vs.names, "$"+name); i >= 0 {
		vs.values[i] = v
	} else {
		vs.names, vs.values = append(vs.names, "$"+name), append(vs.values, v)
	}
	if vs.named == nil {
		vs.named = map[string]any{}
	}
	vs.named[name] = v
}

// Positional appends v to $ARGS.positional.
func (vs *Vars) Positional(v any) { vs.positional = append(vs.positional, v) }

// Bind returns the variables' names, with their $, and their values:
// those Set, then $ARGS.
func (vs *Vars) Bind() (names []string, values []any) {
	named := map[string]any{}
	for k, v := range vs.named {
		named[k] = v
	}
	pos := append([]any{}, vs.positional...)
	names = append(slices.Clone(vs.names), "$ARGS")
	values = append(slices.Clone(vs.values), map[string]any{"positional": pos, "named": named})
	return names, values
}

// VarFlags are jq's variable flags as given on its command line.
type VarFlags struct {
	// Arg (--arg), ArgJSON (--argjson), SlurpFile (--slurpfile) and
	// RawFile (--rawfile) are each NAME=VALUE, NAME=JSON or NAME=FILE.
	Arg, ArgJSON, SlurpFile, RawFile []string
	// Positional are the values of $ARGS.positional: "s:" and a string
	// (--args), or "j:" and a JSON text (--jsonargs).
	Positional []string
	// OpenFile opens a file of --rawfile, whose text is at most MaxSize
	// bytes (a *TooLargeError past it, the rest not read); Open opens a
	// file of --slurpfile, whose JSON values (each at most MaxSize bytes;
	// 0: jsonv's default) make the array. Open's errors are returned as
	// they are, OpenFile's in a *VarError; a file that is not JSON values
	// is a *records.Error.
	OpenFile func(name string) (io.ReadCloser, error)
	Open     func(name string) (*Opened, error)
	MaxSize  int
}

// The problems of a VarError.
var (
	ErrNoName  = errors.New("a name and a value are needed")
	ErrNotJSON = errors.New("not a JSON value")
)

// VarError is a variable flag that cannot be taken: Err is ErrNoName (Arg
// has no NAME=), ErrNotJSON (Value is no JSON value) or the error of
// ReadFile.
type VarError struct {
	Flag  string // "arg", "argjson", "slurpfile", "rawfile", "jsonargs"
	Arg   string // the flag's argument, as given
	Name  string
	Value string // the value, or the file's name
	Err   error
}

func (e *VarError) Error() string {
	switch {
	case e.Err == ErrNoName:
		return fmt.Sprintf("--%s %q: %s", e.Flag, e.Arg, e.Err)
	case e.Flag == "jsonargs":
		return fmt.Sprintf("--%s: %s: %s", e.Flag, e.Err, e.Value)
	case e.Err == ErrNotJSON:
		return fmt.Sprintf("--%s %s: %s: %s", e.Flag, e.Name, e.Err, e.Value)
	}
	var tl *TooLargeError
	if errors.As(e.Err, &tl) {
		return fmt.Sprintf("--%s %s: %s", e.Flag, e.Name, tl)
	}
	msg := e.Err.Error()
	var pe *fs.PathError
	if errors.As(e.Err, &pe) {
		msg = pe.Err.Error()
	}
	return fmt.Sprintf("--%s %s: cannot read %s: %s", e.Flag, e.Name, e.Value, msg)
}

func (e *VarError) Unwrap() error { return e.Err }

// Parse sets the variables that f gives, in jq's order: --arg, --argjson,
// --slurpfile (the array of the file's values), --rawfile (the file's
// text, invalid UTF-8 as U+FFFD), then $ARGS.positional. A flag that
// cannot be taken is a *VarError.
func (vs *Vars) Parse(f VarFlags) error {
	each := func(flag string, args []string, set func(name, value string) (any, error)) error {
		for _, a := range args {
			name, value, ok := strings.Cut(a, "=")
			if !ok || name == "" {
				return &VarError{Flag: flag, Arg: a, Err: ErrNoName}
			}
			v, err := set(name, value)
			if err != nil {
				if err == ErrNotJSON || flag == "rawfile" { // --slurpfile's pass as they are
					err = &VarError{Flag: flag, Arg: a, Name: name, Value: value, Err: err}
				}
				return err
			}
			vs.Set(name, v)
		}
		return nil
	}
	err := each("arg", f.Arg, func(_, s string) (any, error) { return s, nil })
	if err == nil {
		err = each("argjson", f.ArgJSON, func(_, text string) (any, error) { return decodeVar(text) })
	}
	if err == nil {
		err = each("slurpfile", f.SlurpFile, func(_, file string) (any, error) {
			return f.values(file)
		})
	}
	if err == nil {
		err = each("rawfile", f.RawFile, func(_, file string) (any, error) {
			r, err := f.OpenFile(file)
			if err != nil {
				return nil, err
			}
			defer r.Close()
			limit := f.MaxSize
			if limit <= 0 {
				limit = jsonv.DefaultMaxValueSize
			}
			text, err := readText(nil, r, file, limit)
			if err != nil {
				var re *records.Error
				if errors.As(err, &re) {
					err = re.Err // the flag names the file
				}
				return nil, err
			}
			return validText(text), nil
		})
	}
	if err != nil {
		return err
	}
	for _, p := range f.Positional {
		if text, ok := strings.CutPrefix(p, "j:"); ok {
			v, err := decodeVar(text)
			if err != nil {
				return &VarError{Flag: "jsonargs", Arg: text, Value: text, Err: err}
			}
			vs.Positional(v)
		} else {
			vs.Positional(strings.TrimPrefix(p, "s:"))
		}
	}
	return nil
}

// values are the JSON values of a file of --slurpfile.
func (f *VarFlags) values(file string) ([]any, error) {
	in, err := f.Open(file)
	if err != nil {
		return nil, err
	}
	defer in.Close()
	values := []any{}
	jr := jsonv.NewReader(in.R, jsonv.Options{MaxValueSize: int64(f.MaxSize)})
	for {
		b, _, err := jr.Next()
		if err == io.EOF {
			return values, nil
		}
		if err != nil {
			return nil, records.JSONError(in.Name, err)
		}
		v, err := Decode(b, nil)
		if err != nil {
			return nil, &records.Error{Name: in.Name, Kind: records.Invalid, Err: fmt.Errorf("%s: %w", in.Name, err)}
		}
		values = append(values, v)
	}
}

// decodeVar is the value of a JSON text given as a variable.
func decodeVar(text string) (any, error) {
	v, err := Decode([]byte(text), nil)
	if err != nil {
		return nil, ErrNotJSON
	}
	return v, nil
}
