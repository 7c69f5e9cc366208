#!/bin/sh
# pdfcheck.sh -- checks the PDF book as a reader would see it, and the LaTeX run that made it.
#   scripts/check/pdfcheck.sh PDF LOG TEX PAGES     (make pdfcheck names the book's; notes/design.md, "Checks")
# Exit 1 with a line "FILE: what is wrong" per problem; 2 on bad usage or missing tools.
set -u
[ $# -eq 4 ] || { echo "usage: scripts/check/pdfcheck.sh PDF LOG TEX PAGES" >&2; exit 2; }
pdf=$1 log=$2 tex=$3 pages=$4
OVERFULL_PT=${OVERFULL_PT:-5} MARGIN_PT=${MARGIN_PT:-5}
for t in pdfinfo pdftoppm pdftotext; do
    command -v $t >/dev/null 2>&1 || { echo "pdfcheck: no $t (poppler-utils; make deps installs it)" >&2; exit 2; }
done
for f in "$pdf" "$log" "$tex"; do
    [ -r "$f" ] || { echo "pdfcheck: $f: cannot read it (make weave builds it)" >&2; exit 2; }
done
scratch=$(mktemp -d "${TMPDIR:-/tmp}/pdfcheck.XXXXXX") || exit 2
trap 'rm -rf "$scratch"' EXIT
trap 'exit 1' HUP INT TERM
problems=$scratch/problems
internal() { echo "pdfcheck: internal error while $1" >&2; exit 2; }

# 1. Every page renders.
n=$(pdfinfo "$pdf" 2>"$scratch/err" | sed -n 's/^Pages: *//p')
[ "${n:-0}" -gt 0 ] ||
    echo "$pdf: no pages that poppler can read: $(head -n 3 "$scratch/err" | tr '\n' ' ')" >>"$problems"
rm -rf "$pages" && mkdir -p "$pages" || exit 2
if [ "${n:-0}" -gt 0 ]; then
    pdftoppm -r 30 -png "$pdf" "$pages/page" 2>"$scratch/err" ||
        echo "$pdf: pdftoppm failed: $(head -n 3 "$scratch/err" | tr '\n' ' ')" >>"$problems"
    grep -i 'error' "$scratch/err" | head -n 5 | sed "s|^|$pdf: pdftoppm: |" >>"$problems"
    made=$(find "$pages" -name 'page-*.png' -size +0 | wc -l)
    [ "$made" -eq "$n" ] || echo "$pdf: rendered $made of its $n pages (in $pages)" >>"$problems"
fi

# 2. The LaTeX log: overfull boxes, missing glyphs, undefined references.
awk -v logf="$log" -v limit="$OVERFULL_PT" '
    /^Overfull \\vbox \([0-9.]+pt too high\)/ { printf "pdfcheck: note: %s: %s\n", logf, $0 > "/dev/stderr" }
    /^Overfull \\hbox \([0-9.]+pt too wide\)/ {
        s = $0; sub(/^[^(]*\(/, "", s); sub(/pt.*/, "", s)
        if (s + 0 > limit + 0) {
            where = $0; sub(/^Overfull \\hbox \([^)]*\) */, "", where); getline text
            printf "%s: Overfull \\hbox, %spt too wide (more than %spt) %s: %s\n", logf, s, limit, where, substr(text, 1, 100)
        }
    }
    /^Missing character: There is no / { if (!seen[$0]++) printf "%s: %s\n", logf, $0 }
    /^LaTeX Warning: Reference .* undefined/ { printf "%s: %s\n", logf, $0 }
    /^! / { printf "%s: a LaTeX error: %s\n", logf, $0 }
' "$log" >>"$problems" || internal "reading $log"

# 3. Text outside the text area, from the words poppler finds on each page (in bp; TeX pt in the log).
area=$(sed -n 's/^pdfcheck: text area from \([0-9.]*\)pt to \([0-9.]*\)pt.*/\1 \2/p' "$log" | tail -n 1)
pdftotext -tsv "$pdf" - 2>/dev/null >"$scratch/words" || echo "$pdf: pdftotext -tsv failed" >>"$problems"
# Its rows: of level 1 a page (its width in column 9), of level 5 a word (page, left, width, text: 2, 7, 9, 12).
awk -F '\t' -v pdf="$pdf" -v area="$area" -v slack="$MARGIN_PT" '
    BEGIN { lo = 0; if (area != "") { split(area, a, " "); lo = a[1] * 72 / 72.27 - slack; hi = a[2] * 72 / 72.27 + slack } }
    $1 == 1 { w = $9; if (area == "") hi = w }
    $1 == 5 && ($7 + $9 > hi || $7 < lo) && found++ < 10 {
        printf "%s: page %d: \"%s\" runs %s (x from %.0f to %.0f bp; the %s from %.0f to %.0f, the page %.0f wide)\n", pdf, $2,
            substr($12, 1, 40), ($7 + $9 > w || $7 < 0) ? "off the page" : "into the margin", $7, $7 + $9,
            area != "" ? "text area" : "page", lo + slack, hi - slack, w
    }
' "$scratch/words" >>"$problems" || internal "reading the words of $pdf"

# 4. CUDA highlighting in the LaTeX source.
awk -v tex="$tex" '
    /\\begin\{Highlighting\}/ { in_hl = 1; blocks++; next }
    /\\end\{Highlighting\}/ { in_hl = 0; next }
    in_hl && /\\(KeywordTok|BuiltInTok)\{(\\_\\_(global|device|shared|syncthreads)|threadIdx|blockIdx|blockDim|atomic)/ { cuda++ }
    in_hl && /\\NormalTok\{[^}]*(\\_\\_global\\_\\_ void|threadIdx\.|blockIdx\.|blockDim\.|\\_\\_syncthreads\(\))/ {
        if (lost++ < 5) printf "%s:%d: CUDA code without its highlighting (plain \\NormalTok): %s\n", tex, NR, substr($0, 1, 100)
    }
    END {
        if (blocks > 0 && cuda == 0)
            printf "%s: %d code blocks, but no CUDA keyword or builtin is highlighted (no \\KeywordTok{\\_\\_global\\_\\_}, \\BuiltInTok{threadIdx} ...): is book/cuda.xml in use?\n", tex, blocks
    }
' "$tex" >>"$problems" || internal "reading $tex"

if [ -s "$problems" ]; then
    cat "$problems"
    echo "pdfcheck: $(wc -l <"$problems") problem(s) in $pdf" >&2
    exit 1
fi
echo "pdfcheck: $pdf passes: ${n:-0} pages rendered into $pages, no overfull lines, no text outside the text area, CUDA highlighted"
