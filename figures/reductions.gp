# reductions.gp -- the time of the chapter's three sums of 16M digits: one atomic per element,
# per block, per warp. A point is the median over the runs; its bar spans the fastest to the slowest run.
# value 1 "one atomic per element" reduce_atomic: one atomic per element
# value 1 "one atomic per block" reduce_block: one atomic per block
# value 1 "one atomic per warp" reduce_warp: one atomic per warp
#
# Drawn by scripts/book/figure.sh, which sets the terminal, the output and DATA (one row per value:
# group, position in the group, "caption", median, min, max, "REF", and the median, min and max as
# printed, as text), UNIT, GPU, RUNS, NGROUPS, NVALUES, FONTSIZE and STALE.
# The times differ by more than ten times, so the time axis is logarithmic.
stats DATA using 5 name "LO" nooutput
stats DATA using 6 name "HI" nooutput
set logscale x 10
set xrange [LO_min / 2 : HI_max * 1.5]
set format x "%g"
set xtics nomirror
set mxtics 10
set xlabel sprintf("kernel time (%s), log scale", UNIT) offset 0, 0.3
set yrange [NVALUES + 0.5 : 0.5]
set ytics scale 0 nomirror
unset y2tics
set grid xtics lc rgb "#d9dce1" lw 1 dt 1
set border 1 lc rgb "#5f6368"
set errorbars 2.5
unset key
set lmargin 22
set rmargin 25
set bmargin 5
# A figure drawn from stale records says so on its face (the book's one stale policy).
if (STALE ne "") set label 2 sprintf("STALE: %s", STALE) at screen 0.5, screen 0.95 center textcolor rgb "#c0392b"
set label 1 sprintf("median of %s runs on the %s; bars from the fastest run to the slowest", RUNS, GPU) \
    at screen 0.5, screen 0.03 center textcolor rgb "#5f6368"
# The median as printed, then the range of the runs (or that every run printed the same).
label(m, lo, hi) = lo eq hi ? sprintf("  %s %s in every run", m, UNIT) : sprintf("  %s %s (%s–%s)", m, UNIT, lo, hi)
plot DATA using 4:2:5:6:ytic(3) with xerrorbars pt 7 ps 0.9 lw 2 lc rgb "#0b5cad", \
     DATA using 6:2:(label(strcol(8), strcol(9), strcol(10))) with labels left textcolor rgb "#1d1d1f"
