#!/bin/sh
# figure.sh -- draws one figure of the book from a measurement set with gnuplot.
#
#   scripts/figure.sh FIGURE.gp SETDIR OUT.svg|OUT.pdf
#   scripts/figure.sh --check FIGURE.gp SETDIR
#
# FIGURE.gp declares at its top, in one or more comment lines, the values it plots:
#
#   # values: reduce_atomic:1.1 "one atomic per element" reduce_block:1.1 "one atomic per block"
#
# Each NAME:L.N is the N-th number on stdout line L of SETDIR/NAME.rec (as in the prose's
# {{NAME:L.N}}), optionally followed by a label in double quotes (the default label is NAME).
# Each declaration line is one group. figure.sh reads every value with `record values` and
# writes a data file with one row per value, in the order declared:
#
#   group position "label" median min max "NAME:L.N" "median" "min" "max"
#
# (group: 1 for the first declaration line, 2 for the next; position: 1, 2, ... within its line;
# the last three columns are the numbers as text, with the decimals the program printed them with),
# then runs gnuplot with these variables set before FIGURE.gp:
#   DATA (the data file), UNIT (the values' unit, "" when they have none), GPU (the set's GPU),
#   RUNS (the number of runs per record, "3" or "3-5"), NGROUPS, NVALUES, FONTSIZE (the
#   terminal's font size in points: 13 for svg, 9 for pdf).
# The terminal is svg for OUT.svg (the HTML book) and pdfcairo for OUT.pdf (the PDF), both vector
# graphics; FIGURE.gp must not set a terminal or an output itself.
#
# Errors (exit 1, OUT left as it was: the output is written to a temporary file and renamed):
# a record that has no such value, a malformed declaration, values of different units, any
# gnuplot error or warning. Each names the figure, the line of its declaration and the value.
# A record that does not exist yet is only a warning, as for {{output NAME}}: the figure is drawn
# as a placeholder that says what to measure, so that a book can be woven before it is measured.
# --check draws nothing and makes a missing record an error too (for the tests of a real set).
# RECORD names the record tool (default build/tools/record); GNUPLOT names gnuplot.
set -u

prog=figure.sh
usage() {
    echo "usage: scripts/figure.sh FIGURE.gp SETDIR OUT.svg|OUT.pdf" >&2
    echo "       scripts/figure.sh --check FIGURE.gp SETDIR" >&2
    exit 2
}
die() {
    echo "$*" >&2
    exit 1
}
check=0
if [ "${1:-}" = --check ]; then
    [ $# -eq 3 ] || usage
    check=1
    gp=$2
    set=$3
    out=
else
    [ $# -eq 3 ] || usage
    gp=$1
    set=$2
    out=$3
fi
RECORD=${RECORD:-build/tools/record}
GNUPLOT=${GNUPLOT:-gnuplot}

case $check:$out in
1:) ;;
*.svg) term="set terminal svg size 640,360 noenhanced font 'DejaVu Sans,13' background rgb 'white'"; fontsize=13 ;;
*.pdf) term="set terminal pdfcairo size 14cm,7.6cm noenhanced font 'DejaVu Sans,9'"; fontsize=9 ;;
*) die "$prog: $out: expected an output ending in .svg (HTML) or .pdf (PDF)" ;;
esac
[ -r "$gp" ] || die "$prog: $gp: cannot read the figure"
[ -x "$RECORD" ] || die "$prog: $RECORD: the record tool is not built (make $RECORD)"

tmp=$(mktemp -d "${TMPDIR:-/tmp}/figure.XXXXXX") || exit 1
outtmp=""
trap 'rm -rf "$tmp"; [ -n "$outtmp" ] && rm -f "$outtmp"' EXIT
trap 'exit 1' HUP INT TERM

# The declarations, one value a line: LINENO GROUP POSITION NAME L.N LABEL
# (a malformed declaration is reported here, with its line).
awk -v gp="$gp" '
function bad(msg) { printf "%s:%d: %s\n", gp, NR, msg > "/dev/stderr"; err = 1 }
/^#[ \t]*values:/ {
    s = $0
    sub(/^#[ \t]*values:[ \t]*/, "", s)
    group++
    pos = 0
    while (s != "") {
        if (match(s, /^[A-Za-z0-9_]+:[0-9]+\.[0-9]+/) == 0) {
            bad("expected NAME:L.N (a record name and a line and field number, as in reduce_block:1.1), found \"" s "\"")
            break
        }
        ref = substr(s, 1, RLENGTH)
        s = substr(s, RLENGTH + 1)
        sub(/^[ \t]+/, "", s)
        label = ""
        if (substr(s, 1, 1) == "\"") {
            rest = substr(s, 2)
            q = index(rest, "\"")
            if (q == 0) { bad("expected a closing \" after the label of " ref); break }
            label = substr(rest, 1, q - 1)
            s = substr(rest, q + 1)
            sub(/^[ \t]+/, "", s)
        }
        split(ref, p, ":")
        if (label == "") label = p[1]
        pos++
        print NR, group, pos, p[1], p[2], label
    }
    if (pos == 0 && !err) bad("expected at least one NAME:L.N after \"values:\"")
}
END {
    if (err) exit 1
    if (group == 0) {
        printf "%s:1: expected a comment line \"# values: NAME:L.N ...\" declaring the values the figure plots, found none\n", gp > "/dev/stderr"
        exit 1
    }
}' "$gp" >"$tmp/decl" || exit 1

# Look every value up in its record (each record read once), and write the data file.
: >"$tmp/data"
: >"$tmp/units"
: >"$tmp/runs"
: >"$tmp/gpus"
: >"$tmp/missing"
while read -r lineno group pos name ln label; do
    rec=$set/$name.rec
    where="$gp:$lineno: $name:$ln"
    if [ ! -f "$rec" ]; then
        [ $check -eq 0 ] || die "$where: no record $rec (make run ONLY=$name measures it)"
        grep -qx "$name" "$tmp/missing" ||
            echo "$where: warning: no record $rec (make run ONLY=$name measures it); drawing a placeholder" >&2
        echo "$name" >>"$tmp/missing"
        continue
    fi
    if [ ! -f "$tmp/$name.values" ]; then
        "$RECORD" values "$rec" >"$tmp/$name.values" 2>"$tmp/err" || {
            rm -f "$tmp/$name.values"
            die "$where: cannot read $rec: $(cat "$tmp/err")"
        }
        sed -n 's/^runs //p' "$rec" >>"$tmp/runs"
        sed -n 's/^gpu //p' "$rec" >>"$tmp/gpus"
    fi
    # record values: NAME L.N MEDIAN MIN MAX UNIT # the representative run's line
    v=$(awk -v ln="$ln" '$2 == ln { print $3, $4, $5, $6; exit }' "$tmp/$name.values")
    if [ -z "$v" ]; then
        have=$(awk '{ printf "%s%s", sep, $2; sep = " " }' "$tmp/$name.values")
        die "$where: $rec has no value $ln (it has: ${have:-none}; a value needs number ${ln#*.} on stdout line ${ln%.*}, the same count of numbers on that line in every run)"
    fi
    set -- $v
    echo "$4" >>"$tmp/units"
    printf '%s %s "%s" %s %s %s "%s:%s" "%s" "%s" "%s"\n' "$group" "$pos" "$label" "$1" "$2" "$3" "$name" "$ln" "$1" "$2" "$3" >>"$tmp/data"
done <"$tmp/decl"

units=$(sort -u "$tmp/units")
case $units in
*"
"*) die "$gp: the values have different units ($(echo $units)); a figure plots values of one unit" ;;
-) units="" ;;
esac
[ $check -eq 0 ] || exit 0

# Provenance holds only [A-Za-z0-9 .()/:+-] (the record tool enforces it), and record names only
# [A-Za-z0-9_] (the declarations' syntax): both are safe inside gnuplot's '...'.
if [ -s "$tmp/missing" ]; then
    names=$(sort -u "$tmp/missing" | tr '\n' ' ' | sed 's/ $//')
    script="unset border; unset tics; unset key; set xrange [0:1]; set yrange [0:1]
set label 1 'Not measured yet' at graph 0.5, graph 0.62 center font ',$((fontsize + 6))'
set label 2 'This figure needs the records $names' at graph 0.5, graph 0.45 center
set label 3 'in $set: make run measures them.' at graph 0.5, graph 0.36 center
plot 2"
else
    runs=$(sort -n -u "$tmp/runs")
    case $runs in
    *"
"*) runs="$(echo "$runs" | head -n 1)-$(echo "$runs" | tail -n 1)" ;;
    esac
    gpu=$(sort -u "$tmp/gpus" | head -n 1)
    ngroups=$(awk '{ print $2 }' "$tmp/decl" | sort -u | wc -l)
    nvalues=$(wc -l <"$tmp/decl")
    script="DATA='$tmp/data'; UNIT='$units'; GPU='$gpu'; RUNS='$runs'; NGROUPS=$ngroups; NVALUES=$nvalues; FONTSIZE=$fontsize; load '$gp'"
fi
case $set in *\'*) die "$prog: $set: a measurement set whose name has a quote" ;; esac
case $gp in *\'*) die "$prog: $gp: a figure whose name has a quote" ;; esac
outdir=$(dirname "$out")
mkdir -p "$outdir" || exit 1
outtmp=$(mktemp "$outdir/.figure.XXXXXX") || exit 1
printf '%s\nset output %s\n%s\n' "$term" "'$outtmp'" "$script" >"$tmp/run.gp"
"$GNUPLOT" "$tmp/run.gp" </dev/null 2>"$tmp/gnuplot.err"
rc=$?
# gnuplot writes the file when it exits; warnings count as failures (they mean a wrong plot).
if [ $rc -ne 0 ] || grep -q . "$tmp/gnuplot.err"; then
    sed "s|^|$gp: gnuplot: |" "$tmp/gnuplot.err" >&2
    die "$gp: gnuplot failed (exit $rc); $out is left as it was"
fi
[ -s "$outtmp" ] || die "$gp: gnuplot wrote nothing; $out is left as it was"
chmod 644 "$outtmp"
mv -f "$outtmp" "$out" || exit 1
outtmp=""
