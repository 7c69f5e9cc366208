#!/bin/sh
# bench.sh -- times a clean build, a no-op build and a one-paragraph prose edit of the book (under
# make and under make html), counting the nvcc, pandoc and TeX runs each started, and the time from an
# edit to the reloaded page under make preview. Writes notes/bench.md.
# It works on a copy of the project under build/bench/; the counts come from make check's logging shim
# (tests/shim.c), linked first on PATH as each tool counted.
set -eu
root=$(pwd)
work=$root/build/bench
rm -rf "$work"
mkdir -p "$work/proj" "$work/wrap"
git ls-files -z | xargs -0 cp --parents -t "$work/proj"
cc -O2 -o "$work/.shim" tests/shim.c && printf '%s\n' nvcc pandoc xelatex | "$work/.shim" --link "$work/wrap"
export SHIM_LOG="$work/starts.log" SHIM_PATH="$PATH" SHIM_TEST=bench PATH="$work/wrap:$PATH" && log=$SHIM_LOG

row() {  # row LABEL TARGET...: run make TARGET..., print a table row
    label=$1
    shift
    : >"$log"
    start=$(date +%s.%N)
    make -j"$(nproc)" -C "$work/proj" "$@" >"$work/make.log" 2>&1 || { cat "$work/make.log" >&2; echo "bench: make failed; notes/bench.md is unchanged" >&2; exit 1; }
    printf '| %s | %.1f s | %d | %d | %d |\n' "$label" "$(awk -v a="$start" -v b="$(date +%s.%N)" 'BEGIN { print b - a }')" \
        "$(grep -c ' nvcc$' "$log")" "$(grep -c ' pandoc$' "$log")" "$(grep -c ' xelatex$' "$log")"
}
# One paragraph of prose: a sentence appended to the chapter's first prose line after its title.
edit() {
    awk -v s="$1" 'done == 0 && NR > 2 && /^[A-Za-z]/ { print $0 " " s; done = 1; next } { print }' \
        "$chapter" >"$chapter.new" && mv "$chapter.new" "$chapter"
}

chapter=$(ls "$work"/proj/book/[0-9][0-9]-*.nw | head -n 1)
table=$work/bench.md
{
    cat <<EOF
# Build benchmark

Measured by \`make bench\` (scripts/dev/bench.sh) on $(nproc) cores, $(date -u +%Y-%m-%d).
Each row runs make -j$(nproc) on a copy of the project and counts the tools it started;
\`make\` weaves the site and the PDF, \`make html\` the site alone.

| build | wall time | nvcc | pandoc | TeX (xelatex) |
|---|---|---|---|---|
EOF
    row "clean full build (\`make all programs\`)" all programs
    row "no-op \`make all programs\`" all programs
    edit "This sentence was added by the benchmark."
    row "one-paragraph prose edit of $(basename "$chapter"), \`make\`" all programs
    edit "And this one too."
    row "one-paragraph prose edit of $(basename "$chapter"), \`make html\`" html
    # Under make preview, which tests/site.py (Debian's python3: Selenium) starts in the copy and stops, the
    # chapter's page in headless Chromium: the time from a saved one-word edit to the page reloaded with it.
    /usr/bin/python3 "$root/tests/site.py" preview "$work/proj" "$chapter" >"$work/site.log" 2>&1 ||
        { cat "$work/site.log" >&2; echo "bench: the preview check failed" >&2; exit 1; }
    printf '| one-word edit of %s under `make preview`, until the open page shows it | %s s | | | |\n' "$(basename "$chapter")" \
        "$(sed -n 's/^site.py: reloaded \([0-9.]*\) s after the save$/\1/p' "$work/site.log")"
} >"$table"
cat "$table"
cp "$table" "$root/notes/.bench.md.tmp" && mv "$root/notes/.bench.md.tmp" "$root/notes/bench.md"
