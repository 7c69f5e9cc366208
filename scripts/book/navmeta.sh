#!/bin/sh
# navmeta.sh -- writes the navigation metadata of every HTML page: the book's contents, previous and next.
#   scripts/book/navmeta.sh OUTDIR build/md/NN-slug.md...
# From each chapter's woven Markdown it writes OUTDIR/NN-slug.yaml, and OUTDIR/index.yaml for the front
# page, each replaced only when it changes (cpif), so that a prose edit rebuilds no other page unless a
# title changed. A title is the first "# " heading (nwmarkup refused a chapter without one); it goes
# into a YAML literal block, which needs no escaping, and pandoc reads it as Markdown.
set -eu
out=$1
shift
mkdir -p "$out"
scratch=$(mktemp -d "${TMPDIR:-/tmp}/navmeta.XXXXXX")
trap 'rm -rf "$scratch"' EXIT INT TERM

slugs=""
for md in "$@"; do
    s=${md##*/} && s=${s%.md}
    slugs="$slugs $s"
    LC_ALL=C awk 'sub(/^# /, "") { sub(/[[:space:]]*[{][^}]*[}][[:space:]]*$/, ""); print; exit }' "$md" >"$scratch/$s.title"
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
