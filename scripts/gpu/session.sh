#!/bin/sh
# session.sh -- what a shell session of the book runs (notes/design.md, "Chapter syntax"): one rule, for
# run.sh and for the tests' synthetic sets.
#   scripts/gpu/session.sh commands SESSION.sh       its command lines: neither blank nor a comment
#   scripts/gpu/session.sh programs DIR SESSION.sh   each ./PROG that a command names, in order, once,
#                                                    for which DIR/PROG.cu exists: the programs it runs
case ${1:-} in
commands) awk '/^[ \t]*(#|$)/ { next } { sub(/\r$/, ""); print }' "$2" ;;
programs)
    sh "$0" commands "$3" | awk '{ s = $0
        while (match(s, /(^|[^A-Za-z0-9_.\/-])\.\/[A-Za-z0-9_.-]+/)) {
            w = substr(s, RSTART, RLENGTH); s = substr(s, RSTART + RLENGTH); sub(/^.*\.\//, "", w)
            if (substr(s, 1, 1) != "/" && !(w in seen)) { seen[w]; print w } } }' |
        while IFS= read -r p; do [ ! -f "$2/$p.cu" ] || echo "$p"; done ;;
*) echo "usage: session.sh commands SESSION.sh | programs DIR SESSION.sh" >&2; exit 2 ;;
esac
