# reductions.gp -- the time of the chapter's three sums of 16M digits: one atomic per element,
# per block, per warp. A dot is the median over the runs; the band behind it spans the fastest to the
# slowest run (the key says so), and the label gives both.
# value 1 "one atomic per element" reduce_atomic: one atomic per element
# value 1 "one atomic per block" reduce_block: one atomic per block
# value 1 "one atomic per warp" reduce_warp: one atomic per warp
#
# Drawn by scripts/book/figure.sh, which sets the terminal, the output and DATA (one row per value:
# group, position in the group, "caption", median, min, max, "REF", and the median, min and max as
# printed, as text), UNIT, GPU, RUNS, NGROUPS, NVALUES, FONTSIZE and STALE.
# The times differ by more than ten times, so the time axis is logarithmic.
# Text size: pdfcairo sets text at 2/3 of the size asked for, and the PDF book shows the 14cm figure
# across its 17.2cm text, so the PDF's text is asked for at 11/9 of FONTSIZE (9 there): about 9pt on
# the page, against the body's 10pt. The SVG's 13 px text is left as it is. The layout is in
# fractions of the canvas, which both terminals fill alike.
FS = GPVAL_TERM eq "pdfcairo" ? FONTSIZE * 11.0 / 9 : FONTSIZE
F = sprintf(",%g", FS)
stats DATA using 5 name "LO" nooutput
stats DATA using 6 name "HI" nooutput
set logscale x 10
set xrange [LO_min / 2 : HI_max * 1.5]
set format x "%g"
set xtics nomirror font F
set mxtics 10
set xlabel sprintf("kernel time on the %s (%s), log scale", GPU, UNIT) font F offset 0, 0.3
set yrange [NVALUES + 0.5 : 0.5]
set ytics scale 0 nomirror font F textcolor rgb "#1d1d1f"
unset y2tics
set grid xtics lc rgb "#d9dce1" lw 1 dt 1
set border 1 lc rgb "#5f6368"
set lmargin at screen 0.28
set rmargin at screen 0.64
set tmargin at screen 0.88
set bmargin at screen 0.15
# The key, above the plot: what the dot and the band are.
set key at screen 0.02, screen 0.97 left top vertical maxrows 1 Left reverse samplen 1.5 spacing 1.1 width 2 font F textcolor rgb "#1d1d1f"
# A figure drawn from stale records says so on its face (the book's one stale policy).
if (STALE ne "") set label 2 sprintf("STALE: %s", STALE) at screen 0.5, screen 0.87 center font F textcolor rgb "#c0392b"
# The median as printed, then the range of the runs (or that every run printed the same).
label(m, lo, hi) = lo eq hi ? sprintf("  %s %s in every run", m, UNIT) : sprintf("  %s %s (runs %s–%s)", m, UNIT, lo, hi)
BAND = 0.07
plot keyentry with points pt 7 ps 1.1 lc rgb "#0b5cad" title sprintf("median of %s runs", RUNS), \
     keyentry with boxes fs solid 0.3 noborder lc rgb "#0b5cad" title "fastest to slowest run", \
     DATA using 4:2:5:6:($2 - BAND):($2 + BAND) with boxxyerror fs solid 0.3 noborder lc rgb "#0b5cad" notitle, \
     DATA using 4:2:ytic(3) with points pt 7 ps 1.1 lc rgb "#0b5cad" notitle, \
     DATA using 6:2:(label(strcol(8), strcol(9), strcol(10))) with labels left font F textcolor rgb "#1d1d1f" notitle
