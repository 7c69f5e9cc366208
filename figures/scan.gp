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
# Drawn by scripts/book/figure.sh (which sets DATA, UNIT, GPU, RUNS, NGROUPS, NVALUES, FONTSIZE and STALE)
# through figures/steps.gpi.
if (NGROUPS != 2 || NVALUES != 8) { print "scan.gp: expected 6 + 2 values, found ", NVALUES; exit error "wrong number of values" }
WHAT = "scan"
CEILING = "copy rate"
load "figures/steps.gpi"
