#!/bin/sh
# tangle.sh -- writes every root file of the book's chapters into a folder, or checks that folder.
#
#   scripts/book/tangle.sh DIR CHAPTER...          update DIR (tangled/): a file changes only when
#                                             its contents do, files no chapter defines go away
#   scripts/book/tangle.sh --check DIR CHAPTER...  change nothing; fail if DIR differs from the book
#   scripts/book/tangle.sh --lines ROOT CHAPTER... print ROOT with #line directives into the .nw,
#                                             so that compiler errors point into the book
#
# DIR also gets roots.tsv, a line "CHAPTER<tab>ROOT" for each root. The whole book is checked
# (nwcheck) and tangled into a scratch folder first; DIR is touched only when that succeeds, and
# each file is replaced by rename, so a failure leaves the last good DIR as it was.
set -eu
TOOLS=${TOOLS:-build/tools}
NWLIB=${NWLIB:-/usr/lib/noweb}
mode=update
case ${1:-} in --check | --lines) mode=${1#--}; shift ;; esac
[ $# -ge 2 ] || { echo "usage: tangle.sh [--check|--lines ROOT] DIR CHAPTER..." >&2; exit 2; }
target=$1
shift
for ch in "$@"; do
    [ -r "$ch" ] || { echo "$ch: cannot read the chapter: no such file" >&2; exit 1; }
done

scratch=$(mktemp -d "${TMPDIR:-/tmp}/tangle.XXXXXX")
trap 'rm -rf "$scratch"' EXIT INT TERM
mkdir "$scratch/files"
# The book is one web: a chapter may use the chunks of an earlier one.
"$TOOLS/nwmarkup" "$@" >"$scratch/book.pipe"
"$TOOLS/nwcheck" "$scratch/book.pipe" >"$scratch/roots"
[ "$mode" != lines ] || { "$NWLIB/nt" -t -L'#line %L "%F"%N' -R"$target" <"$scratch/book.pipe"; exit; }
cut -f 2 "$scratch/roots" | while IFS= read -r root; do
    "$NWLIB/nt" -t -R"$root" <"$scratch/book.pipe" >"$scratch/files/$root"
done
# Which chapter defines each root, for make run CHAPTER=NN where there is no noweb.
cp "$scratch/roots" "$scratch/files/roots.tsv"

mkdir -p "$target"
status=0
for f in "$scratch"/files/*; do
    [ -e "$f" ] || continue
    name=${f##*/}
    cmp -s "$f" "$target/$name" && continue
    if [ "$mode" = check ]; then
        echo "$target/$name: out of date with the book (run make tangle and commit it)" >&2
        status=1
    elif cp "$f" "$target/.$name.tmp" && mv "$target/.$name.tmp" "$target/$name"; then
        echo "tangled $target/$name"
    else
        rm -f "$target/.$name.tmp"
        echo "$target/$name: cannot write the tangled file" >&2
        exit 1
    fi
done
for f in "$target"/*; do
    [ -e "$f" ] || continue
    name=${f##*/}
    [ -e "$scratch/files/$name" ] && continue
    if [ "$mode" = check ]; then
        printf '%s\n' "$target/$name: no chapter defines this file any more (run make tangle)" >&2
        status=1
    else
        rm -f "$f"
        printf '%s\n' "removed $target/$name: no chapter defines it"
    fi
done
exit $status
