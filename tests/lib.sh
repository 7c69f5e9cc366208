# lib.sh -- shared helpers for the tests: a scratch folder, a copy of the project, assertions.
# Each test sources this from the repository root: . tests/lib.sh (and gets a fresh scratch folder);
# so does tests/run, for its helpers.
set -u
ROOT=$(pwd)
NAME=$(basename "$0" .test)
SCRATCH=$ROOT/build/tests/$NAME
case $0 in *.test) rm -rf "$SCRATCH" && mkdir -p "$SCRATCH" ;; esac

fail() { echo "FAIL: $*" >&2; exit 1; }
ok() { echo "ok: $*"; }
skip() { echo "skip: $*"; exit 77; }

# The set the book is woven from by default (named in book/default-set alone).
DEFAULT_SET=$(cat "$ROOT/book/default-set")

# A copy of the project in $SCRATCH/proj (or $AT) with the given chapters as its book: the Makefile,
# the scripts, the book's templates and the tools already built (so they need no rebuild);
# no figures, and an empty folder for the default set's measurements.
mkproject() {
    P=${AT:-$SCRATCH/proj}
    mkdir -p "$P/book" "$P/tangled" "$P/measurements/$DEFAULT_SET" "$P/build"
    cp -p "$ROOT/Makefile" "$P/"
    cp -pR "$ROOT/scripts" "$P/"
    for f in "$ROOT"/book/*; do
        case $f in *.nw) ;; *) cp -p "$f" "$P/book/" ;; esac
    done
    for ch in "$@"; do cp "$ch" "$P/book/"; done
    [ -d "$TOOLS" ] && cp -pR "$TOOLS" "$P/build/tools"
    return 0
}

# The book's C tools, built for the tests into build/tests/.tools (nothing outside build/tests/).
TOOLS=$ROOT/build/tests/.tools
tools() { make -s -C "$ROOT" T=build/tests/.tools $(for t in nwmarkup cudadefs nw2md values; do
    echo build/tests/.tools/$t; done) >/dev/null || fail "cannot build the tools"; }

# fake_nvcc DIR [LOG]: DIR/nvcc, a stand-in for nvcc that writes its -o file empty and, given LOG,
# appends its arguments there, each in brackets, a line a run: for the tests of the build, not of CUDA.
fake_nvcc() {
    mkdir -p "$1"
    {
        echo '#!/bin/sh'
        [ -z "${2:-}" ] || printf 'for a; do printf "[%%s]" "$a"; done >>%s; echo >>%s\n' "'$2'" "'$2'"
        echo 'while [ $# -gt 1 ]; do [ "$1" = -o ] && : >"$2"; shift; done'
    } >"$1/nvcc" && chmod +x "$1/nvcc"
}

# A checksum of every file under a folder, to see that nothing changed.
treesum() { (cd "$1" && find . -printf "%p %s %T@\n" | LC_ALL=C sort && find . -type f | LC_ALL=C sort | xargs -r sha256sum); }
