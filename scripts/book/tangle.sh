#!/bin/sh
# tangle.sh -- writes every root file of the book's chapters into a folder, and roots.tsv (notes/design.md).
#   scripts/book/tangle.sh DIR CHAPTER...           update DIR (tangled/): a file changes only when its
#                                                   contents do, files no chapter defines go away
#   scripts/book/tangle.sh --lines ROOT CHAPTER...  print ROOT with #line directives into the .nw
# All is tangled into a scratch folder, then each file renamed into DIR from .NAME.PID.tmp (cpif copies in place).
set -eu
TOOLS=${TOOLS:-build/tools}
NWLIB=${NWLIB:-/usr/lib/noweb}
lines=
[ "${1:-}" != --lines ] || { lines=1; shift; }
[ $# -ge 2 ] || { echo "usage: tangle.sh [--lines ROOT | DIR] CHAPTER..." >&2; exit 2; }
target=$1
shift
for ch in "$@"; do
    [ -r "$ch" ] || { echo "$ch: cannot read the chapter: no such file" >&2; exit 1; }
done

scratch=$(mktemp -d "${TMPDIR:-/tmp}/tangle.XXXXXX")
trap 'rm -rf "$scratch" "$target"/.*."$$".tmp' EXIT INT TERM
mkdir "$scratch/files"
# The book is one web: a chapter may use the chunks of an earlier one.
"$TOOLS/nwmarkup" "$@" >"$scratch/book.pipe"
# nt indents the lines after a use's first to the use's column, in tabs of -tN columns: at 1,000, a tab
# before a use is a tab before each of its lines, and blanks stay blanks (-t alone makes a tab one blank).
[ -z "$lines" ] || { "$NWLIB/nt" -t1000 -L'#line %L "%F"%N' -R"$target" <"$scratch/book.pipe"; exit; }
# The roots that are files (nwmarkup checked their names), each with the chapter that defines it, in
# the book's order: roots.tsv, for make run CHAPTER=NN where there is no noweb.
noroots "$@" | sed -n 's/^<<\(.*\.[A-Za-z0-9][A-Za-z0-9]*\)>>$/\1/p' | awk 'NR == FNR { root[$0]; next }
    /^@file / { f = substr($0, 7) } /^@defn / && (substr($0, 7) in root) { print f "\t" substr($0, 7); delete root[substr($0, 7)] }' \
    - "$scratch/book.pipe" >"$scratch/files/roots.tsv"
cut -f 2 "$scratch/files/roots.tsv" | while IFS= read -r root; do
    "$NWLIB/nt" -t1000 -R"$root" <"$scratch/book.pipe" >"$scratch/files/$root"
done

mkdir -p "$target"
for f in "$scratch"/files/*; do
    name=${f##*/}
    cmp -s "$f" "$target/$name" && continue
    cp "$f" "$target/.$name.$$.tmp" && mv "$target/.$name.$$.tmp" "$target/$name" ||
        { rm -f "$target/.$name.$$.tmp"; echo "$target/$name: cannot write the tangled file" >&2; exit 1; }
    echo "tangled $target/$name"
done
for f in "$target"/*; do
    [ -e "$f" ] && [ ! -e "$scratch/files/${f##*/}" ] || continue
    rm -f "$f"
    printf '%s\n' "removed $f: no chapter defines it"
done
