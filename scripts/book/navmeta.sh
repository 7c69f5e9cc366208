#!/bin/sh
# navmeta.sh -- writes the navigation metadata of every HTML page: the book's contents, previous and next.
#   scripts/book/navmeta.sh OUTDIR build/md/NN-slug.md... > MAKE-LINES   (notes/design.md, "Pages")
# OUTDIR/PAGE.yaml for each chapter, each section that is a page of its own and the front page, each
# replaced only when it changes (cpif): a prose edit rebuilds no other page unless a title changed. A
# title (the first "# " heading) goes into a YAML literal block, which pandoc reads as Markdown.
set -eu
out=$1
shift
mkdir -p "$out"
scratch=$(mktemp -d "${TMPDIR:-/tmp}/navmeta.XXXXXX")
trap 'rm -rf "$scratch"' EXIT INT TERM

slugs="" pages="" parts="" && : >"$scratch/moved"
for md in "$@"; do
    s=${md##*/} && s=${s%.md}
    slugs="$slugs $s" pages="$pages $s"
    LC_ALL=C awk 'sub(/^# /, "") { sub(/[[:space:]]*[{][^}]*[}][[:space:]]*$/, ""); print; exit }' "$md" >"$scratch/$s.title"
    # Its parts, "ID TITLE" of each "## " heading with .page and #ID; for other pages, ids there: "SLUG#ID": PAGE.
    LC_ALL=C awk -v s="$s" -v moved="$scratch/moved" '/^## / { p = "" } /^## .*[{][^}]*[.]page[ }]/ {
        match($0, /[{][^}]*[}][ \t]*$/); a = substr($0, RSTART); t = substr($0, 4, RSTART - 4); sub(/[ \t]+$/, "", t)
        if (!match(a, /#[a-z][a-z0-9-]*[ }]/) || (RLENGTH -= 1) < 0) {
            printf "book/%s.nw: error: the heading \"%s\" is a page of its own (.page), but has no #id of a-z, 0-9 and -\n", s, t > "/dev/stderr"
            exit 1 }
        id = substr(a, RSTART + 1, RLENGTH - 1); print id, t; p = s "-" id }
        p != "" { while (match($0, /[{]#[^ }]+/)) { print "\"" s "#" substr($0, RSTART + 2, RLENGTH - 2) "\": " p >> moved; $0 = substr($0, RSTART + RLENGTH) } }' \
        "$md" >"$scratch/$s.parts"
    while read -r id t; do
        printf '%s\n' "$t" >"$scratch/$s-$id.title"
        pages="$pages $s-$id" parts="$parts $s-$id" && echo "PART_OF_$s-$id := $s"
    done <"$scratch/$s.parts"
done
echo "PARTS :=$parts"

entry() {  # entry PREFIX SLUG: one link as YAML, after PREFIX: "- " in a list, "KEY:\n  " for a key
    printf '%bhref: %s.html\n  title: |-\n' "$1" "$2"
    sed 's/^/    /' "$scratch/$2.title"
}

page() {  # page CURRENT PREV NEXT
    echo "book-chapters:"
    for s in $slugs; do
        entry '- ' "$s"
        [ "$s" = "$1" ] && echo "  current: true"
        [ -s "$scratch/$s.parts" ] && echo "  parts:"
        while read -r id t; do
            entry '  - ' "$s-$id" | sed '2,$s/^/  /'
            [ "$s-$id" = "$1" ] && echo "    current: true"
        done <"$scratch/$s.parts"
    done
    [ -s "$scratch/moved" ] && echo "moved:" && sed 's/^/  /' "$scratch/moved"
    [ -n "$2" ] && entry 'prev:\n  ' "$2"
    [ -n "$3" ] && entry 'next:\n  ' "$3"
    [ "$1" = index ] || { echo "pagetitle: |-" && sed 's/^/  /' "$scratch/$1.title"; }
}

set -- index $pages
prev=""
while [ $# -gt 0 ]; do
    page "$1" "$prev" "${2:-}" | cpif "$out/$1.yaml"  # cpif: replaced only if it differs
    [ "$1" = index ] || prev=$1  # the front page is no chapter's previous page
    shift
done
