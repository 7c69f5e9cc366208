#!/bin/sh
# figure.sh -- draws one figure of the book with gnuplot, from a measurement set's values table.
#   scripts/book/figure.sh FIGURE.gp VALUES.tsv OUT.svg|OUT.pdf   (notes/design.md, "Figures")
# A missing record or value draws a placeholder that says what to measure, a stale one is drawn with
# STALE set; both warn, naming the set. Errors (exit 1, OUT left as it was) name the figure's line: a
# malformed declaration, an unknown record, mixed units, a gnuplot error or warning.
set -u
die() { echo "$*" >&2; exit 1; }
[ $# -eq 3 ] || die "usage: scripts/book/figure.sh FIGURE.gp VALUES.tsv OUT.svg|OUT.pdf"
gp=$1 values=$2 out=$3
case $out in
*.svg) term="set terminal svg size 640,360 noenhanced font 'DejaVu Sans,13' background rgb 'white'"; fontsize=13 ;;
*.pdf) term="set terminal pdfcairo size 14cm,7.6cm noenhanced font 'DejaVu Sans,9'"; fontsize=9 ;;
*) die "figure.sh: $out: expected an output ending in .svg (HTML) or .pdf (PDF)" ;;
esac
[ -r "$gp" ] || die "figure.sh: $gp: cannot read the figure"
[ -r "$values" ] || die "figure.sh: $values: cannot read the values table (make builds it)"
case $gp$values in *\'*) die "figure.sh: $gp, $values: a path with a quote" ;; esac

tmp=$(mktemp -d "${TMPDIR:-/tmp}/figure.XXXXXX") || exit 1
trap 'rm -rf "$tmp" ${outtmp:+"$outtmp"}' EXIT   # outtmp: the figure until it is renamed into place
trap 'exit 1' HUP INT TERM

# Each declaration looked up in the table: writes the data file, and lines "unit U", "runs N",
# "stale NAME WHY", "missing NAME" for the rest of the script.
set=$(basename "$values" .tsv)
awk -F '\t' -v gp="$gp" -v set="$set" -v data="$tmp/data" '
function bad(line, msg) { printf "%s:%d: %s\n", gp, line, msg > "/dev/stderr"; err = 1 }
# What is not measured, and why: a warning, and the placeholder instead of the plot.
function lacks(what, why) { printf "%s:%d: warning: set %s: not measured: %s (%s)\n", gp, FNR, set, what, why > "/dev/stderr"; print "missing", name; missing++ }
FNR == NR {
    if ($1 == "record") { status[$2] = $3; why[$2] = $4; runs[$2] = $5 }
    else if ($1 == "set" && $2 == "gpu") gpu = $3
    else if ($1 == "value") {
        pos[$2 SUBSEP $3] = FNR; key[$14] = FNR; nocc[$14] = $6   # by position and by key
        row[FNR] = $7 " " $8 " " $9; unit[FNR] = $11
    }
    next
}
/^#[ \t]*value[ \t]/ {
    s = $0; sub(/^#[ \t]*value[ \t]+/, "", s)
    if (match(s, /^[0-9]+[ \t]+"[^"]*"[ \t]+/) == 0) { bad(FNR, "expected # value GROUP \"caption\" REF, found # value " s); next }
    head = substr(s, 1, RLENGTH); ref = substr(s, RLENGTH + 1); sub(/[ \t]+$/, "", ref)
    group = head; sub(/[ \t].*/, "", group)
    caption = head; sub(/^[^"]*"/, "", caption); sub(/".*/, "", caption)
    name = ref; sub(/:.*/, "", name); sel = substr(ref, length(name) + 2); sub(/^[ \t]+/, "", sel)
    if (!(name in status)) { bad(FNR, ref ": no program or session " name " in the values table"); next }
    if (status[name] == "missing") { lacks(name, "make run ONLY=" name " measures it"); next }
    if (status[name] != "fresh") {
        printf "%s:%d: warning: set %s: %s is stale: %s\n", gp, FNR, set, name, why[name] > "/dev/stderr"
        print "stale", name, why[name]
    }
    if (sel ~ /^[0-9]+\.[0-9]+$/) r = pos[name SUBSEP sel]
    else {   # the key NAME: LABEL #K, blanks one each in the label (K is 1 when it is left out)
        gsub(/[ \t]+/, " ", sel); hash = sel ~ / #[0-9]+$/; k = name ": " sel (hash ? "" : " #1")
        if (hash && (name ": " sel " #1") in key) {   # a label that ends in #N itself, as the filter reads it
            if (k in key) { bad(FNR, ref ": names two values, the K-th of a label and the one labelled so (add #1)"); next }
            k = name ": " sel " #1"; hash = 0
        }
        if (!hash && nocc[k] > 1) { bad(FNR, ref ": " nocc[k] " values have this label; add #K for the K-th"); next }
        r = key[k]
    }
    # A value its record lacks was not measured on this GPU, as the filter says (a warning).
    if (r == "") { lacks(ref, name " has no such value"); next }
    n++
    if (!(group in inside)) groups++
    split(row[r], m, " ")
    printf "%s %d \"%s\" %s %s %s \"%s\" \"%s\" \"%s\" \"%s\"\n", group, ++inside[group], caption, m[1], m[2], m[3], ref, m[1], m[2], m[3] > data
    print "unit", unit[r]; print "runs", runs[name]
}
END {
    if (!err && n == 0 && !missing) bad(1, "expected comment lines \"# value GROUP \\\"caption\\\" REF\" declaring what the figure plots, found none")
    print "gpu", gpu; print "groups", groups + 0
    exit err
}' "$values" "$gp" >"$tmp/facts" || exit 1

units=$(sed -n 's/^unit //p' "$tmp/facts" | sort -u)
case $units in
*"
"*) die "$gp: the values have different units ($(echo $units)); a figure plots values of one unit" ;;
-) units="" ;;
esac
missing=$(sed -n 's/^missing //p' "$tmp/facts" | sort -u | tr '\n' ' ')
stale=$(sed -n 's/^stale \([^ ]*\) \(.*\)/\1 (\2)/p' "$tmp/facts" | sort -u | sed '$!s/$/;/' | tr '\n' ' ' | sed 's/ $//' | tr -d "'")
runs=$(sed -n 's/^runs //p' "$tmp/facts" | sort -n -u | sed -n '1h; $!d; x; G; s/\n/-/; s/^\(.*\)-\1$/\1/; p')
gpu=$(sed -n 's/^gpu //p' "$tmp/facts" | tr -d "'")
if [ -n "$missing" ]; then
    script="unset border; unset tics; unset key; set xrange [0:1]; set yrange [0:1]
set label 1 'Not measured on this GPU' at graph 0.5, graph 0.6 center font ',$((fontsize + 6))'
set label 2 'make run measures: $missing' at graph 0.5, graph 0.42 center
plot 2"
else
    nvalues=$(wc -l <"$tmp/data")
    ngroups=$(sed -n 's/^groups //p' "$tmp/facts")
    script="DATA='$tmp/data'; UNIT='$units'; GPU='$gpu'; RUNS='$runs'; NGROUPS=$ngroups; NVALUES=$nvalues; FONTSIZE=$fontsize; STALE='$stale'; load '$gp'"
fi
mkdir -p "$(dirname "$out")" || exit 1
outtmp=$(mktemp "$(dirname "$out")/.figure.XXXXXX") || exit 1
printf '%s\nset output %s\n%s\n' "$term" "'$outtmp'" "$script" >"$tmp/run.gp"
"${GNUPLOT:-gnuplot}" "$tmp/run.gp" </dev/null 2>"$tmp/gnuplot.err"
rc=$?
# gnuplot writes the file when it exits; warnings count as failures (they mean a wrong plot).
if [ $rc -ne 0 ] || grep -q . "$tmp/gnuplot.err"; then
    sed "s|^|$gp: gnuplot: |" "$tmp/gnuplot.err" >&2
    die "$gp: gnuplot failed (exit $rc); $out is left as it was"
fi
[ -s "$outtmp" ] || die "$gp: gnuplot wrote nothing; $out is left as it was"
chmod 644 "$outtmp"
mv -f "$outtmp" "$out" || exit 1
