#!/bin/sh
# navmeta.sh -- writes the navigation metadata of every HTML page: the book's contents, previous and next.
#
#   scripts/book/navmeta.sh OUTDIR CHAPTER...
#
# For each chapter book/NN-slug.nw it writes OUTDIR/NN-slug.yaml, and OUTDIR/index.yaml for the
# front page, each replaced only when its contents change, so that editing one chapter's prose
# rebuilds no other page unless a title changed. A title is the first "# " heading, before any code
# chunk; it goes into a YAML literal block, which needs no escaping, and pandoc reads it as Markdown.
set -eu
out=$1
shift
mkdir -p "$out"
scratch=$(mktemp -d "${TMPDIR:-/tmp}/navmeta.XXXXXX")
trap 'rm -rf "$scratch"' EXIT INT TERM

slugs=""
for ch in "$@"; do
    s=${ch##*/} && s=${s%.nw}
    slugs="$slugs $s"
    LC_ALL=C awk '/^<<[^<= \t].*>>=[ \t]*$/ { exit }
        sub(/^# /, "") { sub(/[[:space:]]*[{][^}]*[}][[:space:]]*$/, ""); print; exit }' "$ch" >"$scratch/$s.title"
    grep -q . "$scratch/$s.title" ||
        { echo "$ch:1: expected a '# Title' heading before the first code chunk, found none" >&2; exit 1; }
done

entry() {  # entry PREFIX SLUG: one link as YAML, after PREFIX: "- " in a list, "KEY:\n  " for a key
    printf '%bhref: %s.html\n  title: |-\n' "$1" "$2"
    sed 's/^/    /' "$scratch/$2.title"
}

page() {  # page CURRENT PREV NEXT
    echo "book-chapters:"
    for s in $slugs; do
        entry '- ' "$s"
        [ "$s" = "$1" ] && echo "  current: true"
    done
    [ -n "$2" ] && entry 'prev:\n  ' "$2"
    [ -n "$3" ] && entry 'next:\n  ' "$3"
    if [ "$1" != index ]; then
        echo "pagetitle: |-"
        sed 's/^/  /' "$scratch/$1.title"
    fi
}

set -- $slugs
page index "" "${1:-}" | cpif "$out/index.yaml"
prev=""
while [ $# -gt 0 ]; do
    page "$1" "$prev" "${2:-}" | cpif "$out/$1.yaml"  # cpif: replaced only if it differs
    prev=$1
    shift
done
