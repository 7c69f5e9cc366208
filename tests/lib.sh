# lib.sh -- shared helpers for the tests: a scratch folder, a copy of the project, assertions.
# Each test sources this from the repository root: . tests/lib.sh
set -u
ROOT=$(pwd)
NAME=$(basename "$0" .test)
SCRATCH=$ROOT/build/tests/$NAME
rm -rf "$SCRATCH"
mkdir -p "$SCRATCH"

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
tools() { make -s -C "$ROOT" T=build/tests/.tools $(for t in nwmarkup nwcheck cudadefs nw2md values; do
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

# The fixture book: the sample chapter and a chapter with output blocks, figures, long lines and
# links across chapters (tests/fixtures/figures/, whose records serve chapter 1's figures), woven by
# the book's Makefile into $FIXTURE_BOOK once per tests/run for the tests that read it (browser,
# pdf): the first to ask weaves it, the others wait for it (flock).
FIXTURE_BOOK=$ROOT/build/tests/.fixture-book
fixture_book() {
    tools
    (
        flock 9
        [ -n "${TESTS_RUN:-}" ] && [ "$(cat "$FIXTURE_BOOK/.woven" 2>/dev/null)" = "$TESTS_RUN" ] && exit 0
        rm -rf "$FIXTURE_BOOK"
        AT=$FIXTURE_BOOK mkproject "$ROOT/tests/fixtures/sample/00-sample.nw" "$ROOT/tests/fixtures/figures/01-figures.nw"
        cp "$ROOT"/tests/fixtures/figures/h200/*.rec "$P/measurements/$DEFAULT_SET/"
        mkdir -p "$P/figures" && cp "$ROOT/figures/reductions.gp" "$ROOT/figures/histogram.gp" "$P/figures/"
        (cd "$P" && make -s all) >"$P/make.out" 2>&1 || exit 1
        echo "${TESTS_RUN:-}" >"$P/.woven"
    ) 9>"$FIXTURE_BOOK.lock" || { cat "$FIXTURE_BOOK/make.out"; fail "make failed on the fixture book"; }
}
