# histmem.gp -- chapter 3: the bandwidth of each step of the histogram of 1 GiB of bytes, from
# chapter 1's block histogram to the book's final one, and CUB's, for the three inputs: spread over
# 256 bins (blue), all in one bin (red) and skewed (green), against the read ceiling (dashed).
# A dot is the median over the runs; the band behind it spans the slowest to the fastest run.
# value 1 "chapter 1's block histogram" hist_memory: block histogram, bytes, spread, 1024 MiB, bandwidth
# value 1 "warp histograms" hist_memory: warp histograms, bytes, spread, 1024 MiB, bandwidth
# value 1 "__match_any_sync" hist_memory: warp histograms, __match_any_sync, bytes, spread, 1024 MiB, bandwidth
# value 1 "16-byte loads, 4 in flight" hist_memory: warp histograms, vector loads, 4 in flight, bytes, spread, 1024 MiB, bandwidth
# value 1 "lane histograms" hist_memory: lane histograms, bytes, spread, 1024 MiB, bandwidth
# value 1 "lane columns" hist_memory: lane columns, bytes, spread, 1024 MiB, bandwidth
# value 1 "equal loads counted once (final)" hist_memory: lane columns, equal loads counted once, bytes, spread, 1024 MiB, bandwidth
# value 1 "CUB HistogramEven" hist_memory: CUB, bytes, spread, 1024 MiB, bandwidth
# value 2 "chapter 1's block histogram" hist_memory: block histogram, bytes, one bin, 1024 MiB, bandwidth
# value 2 "warp histograms" hist_memory: warp histograms, bytes, one bin, 1024 MiB, bandwidth
# value 2 "__match_any_sync" hist_memory: warp histograms, __match_any_sync, bytes, one bin, 1024 MiB, bandwidth
# value 2 "16-byte loads, 4 in flight" hist_memory: warp histograms, vector loads, 4 in flight, bytes, one bin, 1024 MiB, bandwidth
# value 2 "lane histograms" hist_memory: lane histograms, bytes, one bin, 1024 MiB, bandwidth
# value 2 "lane columns" hist_memory: lane columns, bytes, one bin, 1024 MiB, bandwidth
# value 2 "equal loads counted once (final)" hist_memory: lane columns, equal loads counted once, bytes, one bin, 1024 MiB, bandwidth
# value 2 "CUB HistogramEven" hist_memory: CUB, bytes, one bin, 1024 MiB, bandwidth
# value 3 "chapter 1's block histogram" hist_memory: block histogram, bytes, skewed, 1024 MiB, bandwidth
# value 3 "warp histograms" hist_memory: warp histograms, bytes, skewed, 1024 MiB, bandwidth
# value 3 "__match_any_sync" hist_memory: warp histograms, __match_any_sync, bytes, skewed, 1024 MiB, bandwidth
# value 3 "16-byte loads, 4 in flight" hist_memory: warp histograms, vector loads, 4 in flight, bytes, skewed, 1024 MiB, bandwidth
# value 3 "lane histograms" hist_memory: lane histograms, bytes, skewed, 1024 MiB, bandwidth
# value 3 "lane columns" hist_memory: lane columns, bytes, skewed, 1024 MiB, bandwidth
# value 3 "equal loads counted once (final)" hist_memory: lane columns, equal loads counted once, bytes, skewed, 1024 MiB, bandwidth
# value 3 "CUB HistogramEven" hist_memory: CUB, bytes, skewed, 1024 MiB, bandwidth
# value 4 "read ceiling" hist_memory: read ceiling, 1024 MiB
#
# Drawn by scripts/book/figure.sh, which sets the terminal, the output and DATA (one row per value:
# group, position in the group, "caption", median, min, max, "REF", and the median, min and max as
# printed, as text), UNIT, GPU, RUNS, NGROUPS, NVALUES, FONTSIZE and STALE. Groups 1 to 3 are the
# three inputs, step by step in the same order; group 4 is the ceiling.
if (NGROUPS != 4 || NVALUES != 25) { print "histmem.gp: expected 3 x 8 + 1 values, found ", NVALUES; exit error "wrong number of values" }
# Text size as in the other figures: about 9pt on the PDF's page, 13 px in the SVG.
FS = GPVAL_TERM eq "pdfcairo" ? FONTSIZE * 11.0 / 9 : FONTSIZE
F = sprintf(",%g", FS)
stats DATA using (($1 == 4) ? $4 : NaN) name "CEIL" nooutput
# Each step is a row; the three inputs sit just above, on and just below it.
OFFSET(g) = (g - 2) * 0.22
COLOR(g) = g == 1 ? 0x0b5cad : g == 2 ? 0xc0392b : 0x1e8449
set xrange [0 : CEIL_max * 1.12]
set yrange [8.6 : 0.4]
set xtics nomirror font F
set xlabel sprintf("bandwidth, 1 GiB of bytes, on the %s (%s)", GPU, UNIT) font F offset 0, 0.3
set ytics scale 0 nomirror font F textcolor rgb "#1d1d1f"
set grid xtics lc rgb "#d9dce1" lw 1 dt 1
set border 1 lc rgb "#5f6368"
set lmargin at screen 0.36
set rmargin at screen 0.96
set tmargin at screen 0.95
set bmargin at screen 0.15
set key at graph 0.01, graph 0.42 left top vertical Left reverse samplen 1.5 width 1 font F textcolor rgb "#1d1d1f"
# A figure drawn from stale records says so on its face (the book's one stale policy).
if (STALE ne "") set label 2 sprintf("STALE: %s", STALE) at screen 0.5, screen 0.9 center font F textcolor rgb "#c0392b"
set arrow 1 from CEIL_max, graph 0 to CEIL_max, graph 1 nohead dt 2 lw 1.5 lc rgb "#1d1d1f"
BAND = 0.08
plot keyentry with points pt 7 ps 0.9 lc rgb COLOR(1) title "spread", \
     keyentry with points pt 7 ps 0.9 lc rgb COLOR(2) title "one bin", \
     keyentry with points pt 7 ps 0.9 lc rgb COLOR(3) title "skewed", \
     keyentry with lines dt 2 lw 1.5 lc rgb "#1d1d1f" title sprintf("read ceiling, %.0f %s", CEIL_max, UNIT), \
     DATA every ::0::(NVALUES - 2) using 4:($2 + OFFSET($1)):5:6:($2 + OFFSET($1) - BAND):($2 + OFFSET($1) + BAND):(COLOR($1)) with boxxyerror fs solid 0.3 noborder lc rgb variable notitle, \
     DATA every ::0::(NVALUES - 2) using 4:($2 + OFFSET($1)):(COLOR($1)) with points pt 7 ps 0.9 lc rgb variable notitle, \
     DATA every ::0::7 using (0):2:ytic(3) with points ps 0 notitle
