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

# A copy of the project in $SCRATCH/proj with the given chapters as its book: the Makefile,
# the scripts, the book's templates and the tools already built (so they need no rebuild).
mkproject() {
    P=$SCRATCH/proj
    mkdir -p "$P/book" "$P/tangled" "$P/measurements/h200" "$P/build"
    cp -p "$ROOT/Makefile" "$P/"
    cp -pR "$ROOT/scripts" "$P/"
    [ -d "$ROOT/figures" ] && cp -pR "$ROOT/figures" "$P/"
    for f in book.yaml cuda.xml template.html style.css preamble.tex index.md; do
        cp -p "$ROOT/book/$f" "$P/book/"
    done
    for ch in "$@"; do cp "$ch" "$P/book/"; done
    [ -d "$ROOT/build/tools" ] && cp -pR "$ROOT/build/tools" "$P/build/"
    return 0
}

# The tools, built once for every test that needs them.
tools() { make -s -C "$ROOT" ${TOOLS_NEEDED:-build/tools/nwmarkup build/tools/nwcheck build/tools/cudadefs \
    build/tools/nw2md build/tools/record} >/dev/null || fail "cannot build the tools"; }

# A checksum of every file under a folder, to see that nothing changed.
treesum() { (cd "$1" && find . -printf "%p %s %T@\n" | LC_ALL=C sort && find . -type f | LC_ALL=C sort | xargs -r sha256sum); }
