#!/bin/sh
# preview.sh -- make preview: serves build/html/ on localhost and, on every save under book/, figures/,
# measurements/ or scripts/, weaves what changed (make html); the open page reloads at the same place,
# or shows the failed build's messages (notes/design.md, "Preview").   PORT=8000 MAKE=make PYTHON=python3
set -u
PORT=${PORT:-8000} MAKE=${MAKE:-make} PYTHON=${PYTHON:-python3}
for c in inotifywait "$PYTHON"; do
    command -v $c >/dev/null 2>&1 || { echo "preview: no $c (make deps installs it)" >&2; exit 2; }
done
n=0
# build/html/preview.txt, which the pages poll (book/book.js): the number of the last build that changed
# something, then that build's messages if it failed. A build that changed nothing counts for nothing.
build() {
    touch build/preview.stamp
    if $MAKE -s html >build/preview.log 2>&1; then err=; else err=$(cat build/preview.log); fi
    cat build/preview.log >&2
    [ -n "$err" ] || [ -n "$(find build/html -newer build/preview.stamp -print -quit)" ] || [ "$n" -eq 0 ] || return 0
    n=$((n + 1))
    printf '%s\n%s\n' "$n" "$err" >build/html/.preview.txt.$$.tmp && mv build/html/.preview.txt.$$.tmp build/html/preview.txt
}
mkdir -p build/html && build
$PYTHON -m http.server --bind 127.0.0.1 --directory build/html "$PORT" >build/preview-server.log 2>&1 &
server=$!
trap 'kill $server 2>/dev/null; rm -f build/html/preview.txt' EXIT
trap 'exit 130' HUP INT TERM
sleep 0.5 && kill -0 $server 2>/dev/null || { cat build/preview-server.log >&2; echo "preview: cannot serve on port $PORT (PORT=N)" >&2; exit 1; }
echo "preview: http://127.0.0.1:$PORT/index.html, rebuilt on every save (Ctrl-C stops)"
# Every event is a build: those of one save after the first find nothing left to do.
dirs=$(for d in book figures measurements scripts; do [ -d $d ] && echo $d; done)
# shellcheck disable=SC2086 # the folders' names have no blanks
{ inotifywait -m -q -r -e close_write,moved_to,create,delete --exclude '(^|/)(\.|#)|~$' $dirs || echo "preview: inotifywait failed" >&2; } |
    while read -r _; do build; done
