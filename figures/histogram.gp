# histogram.gp -- the time of the chapter's two histograms of 16M bytes, spread over 256 bins and
# all in one bin: with global atomics (hist) and with shared-memory atomics (hist_shared).
# A point is the median over the runs; its bar spans the fastest to the slowest run.
# value 1 "spread over 256 bins" hist: spread over 256 bins
# value 1 "all in one bin" hist: all in one bin
# value 2 "spread over 256 bins" hist_shared: spread over 256 bins
# value 2 "all in one bin" hist_shared: all in one bin
#
# Drawn by scripts/book/figure.sh, which sets the terminal, the output and DATA (one row per value:
# group, position in the group, "caption", median, min, max, "REF", and the median, min and max as
# printed, as text), UNIT, GPU, RUNS, NGROUPS, NVALUES, FONTSIZE and STALE.
# Each group of values above, headed by the titles below, in the same order.
array GROUP[2] = ["global atomics (hist)", "shared-memory atomics (hist_shared)"]
if (NGROUPS != 2) { print "histogram.gp: expected 2 groups of values, found ", NGROUPS; exit error "wrong number of groups" }
GAP = 1.3
row(g, p) = (g - 1) * (2 + GAP) + p
stats DATA using 5 name "LO" nooutput
stats DATA using 6 name "HI" nooutput
set logscale x 10
set xrange [LO_min / 2 : HI_max * 1.5]
set format x "%g"
set xtics nomirror
set mxtics 10
set xlabel sprintf("histogram time (%s), log scale", UNIT) offset 0, 0.3
set yrange [row(2, 2) + 0.7 : 1 - GAP]
set ytics scale 0 nomirror
set grid xtics lc rgb "#d9dce1" lw 1 dt 1
set border 1 lc rgb "#5f6368"
set errorbars 2.5
unset key
set lmargin 22
set rmargin 25
set bmargin 5
do for [g = 1:2] {
    set label 10 + g GROUP[g] at graph 0, first row(g, 0) + 0.1 offset -20, 0 left font sprintf(",%d", FONTSIZE + 1) textcolor rgb "#1d1d1f"
}
# A figure drawn from stale records says so on its face (the book's one stale policy).
if (STALE ne "") set label 2 sprintf("STALE: %s", STALE) at screen 0.5, screen 0.95 center textcolor rgb "#c0392b"
set label 1 sprintf("median of %s runs on the %s; bars from the fastest run to the slowest", RUNS, GPU) \
    at screen 0.5, screen 0.03 center textcolor rgb "#5f6368"
COLOR(p) = p == 1 ? 0x0b5cad : 0xc0392b
# The median as printed, then the range of the runs (or that every run printed the same).
label(m, lo, hi) = lo eq hi ? sprintf("  %s %s in every run", m, UNIT) : sprintf("  %s %s (%s–%s)", m, UNIT, lo, hi)
plot DATA using 4:(row($1, $2)):5:6:(COLOR($2)):ytic(3) with xerrorbars pt 7 ps 0.9 lw 2 lc rgb variable, \
     DATA using 6:(row($1, $2)):(label(strcol(8), strcol(9), strcol(10))) with labels left textcolor rgb "#1d1d1f"
