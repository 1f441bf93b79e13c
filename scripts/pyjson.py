#!/usr/bin/env python3
"""Rewrite JSON as Python services write it, with CPython's own json module.

    scripts/pyjson.py [--indent N|tab] [--trailing-space] [--crlf] [--no-ascii] [IN [OUT]]

Reads JSON values from IN (default stdin): NDJSON (one value per line) or
one JSON document, told apart by whether the whole input parses as one
value. Writes each value with json.dumps and its default separators
(", " and ": "), one per line for NDJSON, to OUT (default stdout).

  --indent N   json.dumps(indent=N): multi-line values (a document of
               NDJSON values becomes values back to back, one per block);
               --indent tab indents with tabs (indent="\t")
  --trailing-space  separators=(", ", ": ") with --indent: a space before
               each line break, as Python 2 wrote and code that passes the
               separators still writes
  --crlf       end lines with CR LF
  --no-ascii   ensure_ascii=False (default: True, as json.dumps does)

Member order, and integers at any size, are kept (json.loads keeps both);
floats are written as Python's repr, as a Python service would write them.
scripts/bench.sh uses it to measure toonkit on what real producers write.
"""
import argparse
import json
import sys


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[1])
    ap.add_argument("--indent", type=lambda s: "\t" if s == "tab" else int(s), default=None)
    ap.add_argument("--trailing-space", action="store_true")
    ap.add_argument("--crlf", action="store_true")
    ap.add_argument("--no-ascii", action="store_true")
    ap.add_argument("input", nargs="?", default="-")
    ap.add_argument("output", nargs="?", default="-")
    a = ap.parse_args()

    src = sys.stdin.buffer if a.input == "-" else open(a.input, "rb")
    dst = sys.stdout.buffer if a.output == "-" else open(a.output, "wb")
    nl = b"\r\n" if a.crlf else b"\n"

    def dump(v):
        seps = (", ", ": ") if a.trailing_space else None
        s = json.dumps(v, indent=a.indent, separators=seps, ensure_ascii=not a.no_ascii)
        b = s.encode("utf-8")
        if a.crlf:
            b = b.replace(b"\n", b"\r\n")
        dst.write(b)
        dst.write(nl)

    data = src.read()
    try:
        values = [json.loads(data)]
    except ValueError:
        values = (json.loads(line) for line in data.splitlines() if line.strip())
    for v in values:
        dump(v)
    dst.close()


if __name__ == "__main__":
    main()
