# histogram.gp -- the time of the chapter's two histograms of 16M bytes, spread over 256 bins and
# all in one bin: with global atomics (hist) and with shared-memory atomics (hist_shared).
# A dot is the median over the runs, blue for values spread over 256 bins, red for all in one bin;
# the band behind it spans the fastest to the slowest run, and the label gives both (the key says so).
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
# Text size: pdfcairo sets text at 2/3 of the size asked for, and the PDF book shows the 14cm figure
# across its 17.2cm text, so the PDF's text is asked for at 11/9 of FONTSIZE (9 there): about 9pt on
# the page, against the body's 10pt. The SVG's 13 px text is left as it is. The layout is in
# fractions of the canvas, which both terminals fill alike.
FS = GPVAL_TERM eq "pdfcairo" ? FONTSIZE * 11.0 / 9 : FONTSIZE
F = sprintf(",%g", FS)
GAP = 1.3
row(g, p) = (g - 1) * (2 + GAP) + p
stats DATA using 5 name "LO" nooutput
stats DATA using 6 name "HI" nooutput
set logscale x 10
set xrange [LO_min / 2 : HI_max * 1.5]
set format x "%g"
set xtics nomirror font F
set mxtics 10
set xlabel sprintf("histogram time on the %s (%s), log scale", GPU, UNIT) font F offset 0, 0.3
set yrange [row(2, 2) + 0.7 : 1 - GAP]
set ytics scale 0 nomirror font F textcolor rgb "#1d1d1f"
set grid xtics lc rgb "#d9dce1" lw 1 dt 1
set border 1 lc rgb "#5f6368"
set lmargin at screen 0.27
set rmargin at screen 0.6
set tmargin at screen 0.80
set bmargin at screen 0.14
do for [g = 1:2] {
    set label 10 + g GROUP[g] at screen 0.02, first row(g, 0) + 0.1 left font sprintf(",%g", FS + 1) textcolor rgb "#1d1d1f"
}
# The key, above the plot: the dot's colours and the band.
set key at screen 0.02, screen 0.97 left top vertical maxrows 2 Left reverse samplen 1.5 spacing 1.1 width 2 font F textcolor rgb "#1d1d1f"
# A figure drawn from stale records says so on its face (the book's one stale policy).
if (STALE ne "") set label 2 sprintf("STALE: %s", STALE) at screen 0.5, screen 0.83 center font F textcolor rgb "#c0392b"
COLOR(p) = p == 1 ? 0x0b5cad : 0xc0392b
# The median as printed, then the range of the runs (or that every run printed the same).
label(m, lo, hi) = lo eq hi ? sprintf("  %s %s in every run", m, UNIT) : sprintf("  %s %s (runs %s–%s)", m, UNIT, lo, hi)
BAND = 0.1
plot keyentry with points pt 7 ps 1.1 lc rgb COLOR(1) title sprintf("median of %s runs, spread over 256 bins", RUNS), \
     keyentry with points pt 7 ps 1.1 lc rgb COLOR(2) title sprintf("median of %s runs, all in one bin", RUNS), \
     keyentry with boxes fs solid 0.3 noborder lc rgb "#5f6368" title "fastest to slowest run", \
     DATA using 4:(row($1, $2)):5:6:(row($1, $2) - BAND):(row($1, $2) + BAND):(COLOR($2)) with boxxyerror fs solid 0.3 noborder lc rgb variable notitle, \
     DATA using 4:(row($1, $2)):(COLOR($2)):ytic(3) with points pt 7 ps 1.1 lc rgb variable notitle, \
     DATA using 6:(row($1, $2)):(label(strcol(8), strcol(9), strcol(10))) with labels left font F textcolor rgb "#1d1d1f" notitle
