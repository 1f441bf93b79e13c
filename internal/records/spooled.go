package records

import (
	"io"

	"github.com/toonkit/toonkit/internal/codec/tabular"
	"github.com/toonkit/toonkit/internal/outfile"
)

// SpooledTable is a TableSink whose rows wait in a temporary file (an
// outfile.Spool) until WriteTable writes the table: nothing is written
// while it may still be refused, and memory stays bounded however many
// rows. The errors of the temporary file are *outfile.TempError, passed
// through wrap.
type SpooledTable struct {
	*TableSink
	spool *outfile.Spool
	wrap  func(error) error
}

// NewSpooledTable spools the rows of ts (its Rows is set). wrap (nil:
// none) is given each error of the temporary file.
func NewSpooledTable(ts *TableSink, wrap func(error) error) (*SpooledTable, error) {
	if wrap == nil {
		wrap = func(err error) error { return err }
	}
	s, err := outfile.NewSpool("rows")
	if err != nil {
		return nil, wrap(err)
	}
	t := &SpooledTable{TableSink: ts, spool: s, wrap: wrap}
	ts.Rows = spoolWriter{t}
	return t, nil
}

type spoolWriter struct{ t *SpooledTable }

func (w spoolWriter) Write(p []byte) (int, error) {
	n, err := w.t.spool.W.Write(p)
	if err != nil {
		return n, w.t.wrap(w.t.spool.Fail(err))
	}
	return n, nil
}

// WriteTable writes the table to w: its header, then the rows read back
// (TableSink.Finish, lossy given each lossy cell). An error of Finish,
// w's or the spool's, is returned as the spool's: a caller whose w keeps
// its own error prefers that one.
func (t *SpooledTable) WriteTable(w io.Writer, lossy func(tabular.NamedLossy)) error {
	rd, err := t.spool.Reader()
	if err != nil {
		return t.wrap(err)
	}
	if err := t.Finish(w, rd, lossy); err != nil {
		return t.wrap(t.spool.Fail(err))
	}
	return nil
}

// Remove deletes the temporary file.
func (t *SpooledTable) Remove() { t.spool.Remove() }
