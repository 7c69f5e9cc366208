# reductions.gp -- the time of the chapter's sums of 16M digits against the number of atomic updates
# that each sends to the one total: one per element, per warp and per block (dots), and the same
# block and warp kernels with their atomics taken out (dashed lines: they send none).
# value 1 "one atomic per element" reduce_atomic: one atomic per element
# value 1 "one atomic per warp" reduce_warp: one atomic per warp
# value 1 "one atomic per block" reduce_block: one atomic per block
# value 2 "warp sums stored, no atomic" reduce_warp: warp sums stored, no atomic
# value 2 "block sums stored, no atomic" reduce_block: block sums stored, no atomic
#
# Drawn by scripts/book/figure.sh, which sets the terminal, the output and DATA (one row per value:
# group, position in the group, "caption", median, min, max, "REF", and the median, min and max as
# printed, as text), UNIT, GPU, RUNS, NGROUPS, NVALUES, FONTSIZE and STALE.
# The updates each kernel of group 1 sends are fixed by the programs, not measured: N = 2^24
# elements, one update per element, per warp of 32 and per block of 256.
array UPDATES[3] = [16777216, 524288, 65536]
if (NGROUPS != 2 || NVALUES != 5) { print "reductions.gp: expected 3 + 2 values, found ", NVALUES; exit error "wrong number of values" }
# Text size: pdfcairo sets text at 2/3 of the size asked for, and the PDF book shows the 14cm figure
# across its 17.2cm text, so the PDF's text is asked for at 11/9 of FONTSIZE (9 there): about 9pt on
# the page, against the body's 10pt. The SVG's 13 px text is left as it is.
FS = GPVAL_TERM eq "pdfcairo" ? FONTSIZE * 11.0 / 9 : FONTSIZE
F = sprintf(",%g", FS)
x(g, p) = g == 1 ? UPDATES[p] : NaN
XLO = 2.0**14
XHI = 2.0**25 * 1.5
stats DATA using 5 name "LO" nooutput
stats DATA using 6 name "HI" nooutput
# The median time of one atomic per element: the line through it, proportional to the number of
# updates, is what each kernel's updates alone would take at the same cost per update.
stats DATA using (($1 == 1 && $2 == 1) ? $4 : NaN) name "E" nooutput
set logscale xy 10
set xrange [XLO : XHI]
set yrange [LO_min / 2 : HI_max * 3]
set format x "%.0s%c"
set format y "%g"
set xtics nomirror font F
set ytics nomirror font F
set xlabel "updates of the one total, log scale" font F offset 0, 0.3
set ylabel sprintf("time on the %s (%s), log scale", GPU, UNIT) font F offset -0.5, 0
set grid xtics ytics lc rgb "#d9dce1" lw 1 dt 1
set border 3 lc rgb "#5f6368"
set lmargin at screen 0.15
set rmargin at screen 0.97
set tmargin at screen 0.70
set bmargin at screen 0.15
set key at screen 0.02, screen 0.98 left top vertical maxrows 4 Left reverse samplen 2 spacing 1.1 width 2 font F textcolor rgb "#1d1d1f"
# A figure drawn from stale records says so on its face (the book's one stale policy).
if (STALE ne "") set label 2 sprintf("STALE: %s", STALE) at screen 0.97, screen 0.90 right font F textcolor rgb "#c0392b"
BLUE = "#0b5cad"
GREY = "#5f6368"
plot keyentry with points pt 7 ps 1.1 lc rgb BLUE title sprintf("with its atomics: median of %s runs", RUNS), \
     keyentry with boxes fs solid 0.3 noborder lc rgb BLUE title "fastest to slowest run", \
     keyentry with lines dt 2 lw 1.5 lc rgb GREY title "the same kernel without its atomics (no updates)", \
     keyentry with lines dt 3 lw 1.5 lc rgb "#c0392b" title "the updates alone, at the cost per update of one atomic per element", \
     E_max * x / 16777216 with lines dt 3 lw 1.5 lc rgb "#c0392b" notitle, \
     DATA using (XLO):($1 == 2 ? $4 : NaN):(XHI - XLO):(0) with vectors nohead dt 2 lw 1.5 lc rgb GREY notitle, \
     DATA using (XHI / 1.1):(($1 == 2 && $2 == 1) ? $4 : NaN):(sprintf("%s, %s %s", strcol(3), strcol(8), UNIT)) with labels right offset 0, -0.7 font F textcolor rgb GREY notitle, \
     DATA using (XHI / 1.1):(($1 == 2 && $2 == 2) ? $4 : NaN):(sprintf("%s, %s %s", strcol(3), strcol(8), UNIT)) with labels right offset 0, 0.7 font F textcolor rgb GREY notitle, \
     DATA using (x($1, $2)):4:(x($1, $2) / 1.15):(x($1, $2) * 1.15):5:6 with boxxyerror fs solid 0.3 noborder lc rgb BLUE notitle, \
     DATA using (x($1, $2)):4 with points pt 7 ps 1.1 lc rgb BLUE notitle, \
     DATA using (x($1, $2)):($2 == 1 ? NaN : $4):(sprintf("%s, %s %s", strcol(3), strcol(8), UNIT)) with labels left offset 0.5, 1.3 font F textcolor rgb "#1d1d1f" notitle, \
     DATA using (x($1, $2)):($2 == 1 ? $4 : NaN):(sprintf("%s, %s %s", strcol(3), strcol(8), UNIT)) with labels right offset -1, 0 font F textcolor rgb "#1d1d1f" notitle
