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

# A copy of the project in $SCRATCH/proj with the given chapters as its book: the Makefile,
# the scripts, the book's templates and the tools already built (so they need no rebuild);
# no figures, and an empty folder for the default set's measurements.
mkproject() {
    P=$SCRATCH/proj
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

# A checksum of every file under a folder, to see that nothing changed.
treesum() { (cd "$1" && find . -printf "%p %s %T@\n" | LC_ALL=C sort && find . -type f | LC_ALL=C sort | xargs -r sha256sum); }
