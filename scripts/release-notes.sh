#!/bin/sh
# release-notes.sh VERSION [CHANGELOG]: prints the section of VERSION in
# CHANGELOG.md (default), from its heading "## VERSION ..." to the next
# "## " heading, without trailing blank lines; "Unreleased" is the pending
# one. Fails when the changelog has no such section. Run by make
# release-notes.
set -eu
v=${1:-}
f=${2:-CHANGELOG.md}
if [ -z "$v" ]; then
	echo "release-notes: which version? make release-notes RELEASE=v1.2.3 (no tag found to default to)" >&2
	exit 2
fi
awk -v v="$v" '
	/^## / { inside = ($2 == v); if (inside) found = 1 }
	inside && /^$/ { blank++; next }
	inside { while (blank > 0) { print ""; blank-- } print }
	!inside { blank = 0 }
	END {
		if (!found) {
			printf "release-notes: %s has no section \"## %s\"\n", FILENAME, v > "/dev/stderr"
			exit 1
		}
	}
' "$f"
