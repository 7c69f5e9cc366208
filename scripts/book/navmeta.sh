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

title() {
    t=$(LC_ALL=C awk '/^<<[^<= \t].*>>=[ \t]*$/ { exit }
        sub(/^# /, "") { sub(/[[:space:]]*[{][^}]*[}][[:space:]]*$/, ""); print; exit }' "$1")
    [ -n "$t" ] || { echo "$1:1: expected a '# Title' heading before the first code chunk, found none" >&2; exit 1; }
    printf '%s\n' "$t"
}

slugs=""
for ch in "$@"; do
    s=${ch##*/} && s=${s%.nw}
    slugs="$slugs $s"
    title "$ch" >"$scratch/$s.title"
done

entry() {  # entry KEY SLUG: one link as YAML
    printf '%s\n  href: %s.html\n  title: |-\n' "$1" "$2"
    sed 's/^/    /' "$scratch/$2.title"
}

page() {  # page CURRENT PREV NEXT
    echo "book-chapters:"
    for s in $slugs; do
        printf -- '- href: %s.html\n  title: |-\n' "$s"
        sed 's/^/    /' "$scratch/$s.title"
        [ "$s" = "$1" ] && echo "  current: true"
    done
    [ -n "$2" ] && entry prev: "$2"
    [ -n "$3" ] && entry next: "$3"
    if [ "$1" != index ]; then
        echo "pagetitle: |-"
        sed 's/^/  /' "$scratch/$1.title"
    fi
    return 0
}

write() {  # write NAME: replace OUTDIR/NAME from standard input only if it differs
    cpif "$out/$1"
}

set -- $slugs
first=${1:-}
prev=""
while [ $# -gt 0 ]; do
    page "$1" "$prev" "${2:-}" | write "$1.yaml"
    prev=$1
    shift
done
page index "" "$first" | write index.yaml
