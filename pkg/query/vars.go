package query

import "slices"

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
