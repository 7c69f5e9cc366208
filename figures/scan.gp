# scan.gp -- chapter 4: the bandwidth, bytes read and written, of each step of the scan of 1 GiB of digits,
# from three passes to the book's final scan, against the copy rate (dashed) and CUB (dotted).
# A dot is the median over the launches; the band behind it spans the slowest to the fastest launch.
# value 1 "three passes" scan_memory: three passes, 1024 MiB, bandwidth, read and written
# value 1 "reduce, then scan" scan_memory: reduce, then scan, 1024 MiB, bandwidth, read and written
# value 1 "look-back, direct loads" scan_memory: look-back, direct loads, 1024 MiB, bandwidth, read and written
# value 1 "look-back" scan_memory: look-back, 1024 MiB, bandwidth, read and written
# value 1 "status words apart" scan_memory: look-back, words apart, 1024 MiB, bandwidth, read and written
# value 1 "12288-element tiles (final)" scan_memory: look-back, 12288-element tiles, words apart, 1024 MiB, bandwidth, read and written
# value 2 "copy rate" scan_memory: copy rate, 1024 MiB
# value 2 "CUB" scan_memory: CUB, 1024 MiB, bandwidth, read and written
#
# Drawn by scripts/book/figure.sh, which sets the terminal, the output and DATA (one row per value:
# group, position in the group, "caption", median, min, max, "REF", and the median, min and max as
# printed, as text), UNIT, GPU, RUNS, NGROUPS, NVALUES, FONTSIZE and STALE. The steps come first in
# DATA, so "every ::0::(NVALUES - 3)" is group 1.
if (NGROUPS != 2 || NVALUES != 8) { print "scan.gp: expected 6 + 2 values, found ", NVALUES; exit error "wrong number of values" }
# Text size as in the other figures: about 9pt on the PDF's page, 13 px in the SVG.
FS = GPVAL_TERM eq "pdfcairo" ? FONTSIZE * 11.0 / 9 : FONTSIZE
F = sprintf(",%g", FS)
stats DATA using (($1 == 2 && $2 == 1) ? $4 : NaN) name "CEIL" nooutput
stats DATA using (($1 == 2 && $2 == 2) ? $4 : NaN) name "CUB" nooutput
set xrange [0 : CEIL_max * 1.12]
set yrange [6.7 : 0.3]
set xtics nomirror font F
set xlabel sprintf("bandwidth of the scan of 1 GiB on the %s (%s)", GPU, UNIT) font F offset 0, 0.3
set ytics scale 0 nomirror font F textcolor rgb "#1d1d1f"
set grid xtics lc rgb "#d9dce1" lw 1 dt 1
set border 1 lc rgb "#5f6368"
set lmargin at screen 0.36
set rmargin at screen 0.96
set tmargin at screen 0.86
set bmargin at screen 0.15
set key at screen 0.02, screen 0.98 left top horizontal Left reverse samplen 2 width 1 font F textcolor rgb "#1d1d1f"
# A figure drawn from stale records says so on its face (the book's one stale policy).
if (STALE ne "") set label 2 sprintf("STALE: %s", STALE) at screen 0.5, screen 0.9 center font F textcolor rgb "#c0392b"
set arrow 1 from CEIL_max, graph 0 to CEIL_max, graph 1 nohead dt 2 lw 1.5 lc rgb "#1d1d1f"
set arrow 2 from CUB_max, graph 0 to CUB_max, graph 1 nohead dt 3 lw 1.5 lc rgb "#c0392b"
BAND = 0.15
plot keyentry with lines dt 2 lw 1.5 lc rgb "#1d1d1f" title sprintf("copy rate, %.0f %s", CEIL_max, UNIT), \
     keyentry with lines dt 3 lw 1.5 lc rgb "#c0392b" title sprintf("CUB, %.0f %s", CUB_max, UNIT), \
     DATA every ::0::(NVALUES - 3) using 4:2:5:6:($2 - BAND):($2 + BAND) with boxxyerror fs solid 0.3 noborder lc rgb "#5f6368" notitle, \
     DATA every ::0::(NVALUES - 3) using 4:2:ytic(3) with points pt 7 ps 1.1 lc rgb "#0b5cad" notitle
