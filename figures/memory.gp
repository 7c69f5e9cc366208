# memory.gp -- chapter 2: the bandwidth of each step of the sum of 1 GiB of digits, from chapter 1's
# block reduction to the book's final reduction, against the read ceiling (dashed) and CUB (dotted).
# A dot is the median over the launches; the band behind it spans the slowest to the fastest launch.
# value 1 "chapter 1's block reduction" reduce_memory: baseline, 1024 MiB, bandwidth
# value 1 "grid-stride loop and tree" reduce_memory: grid-stride loop and tree, 1024 MiB, bandwidth
# value 1 "warp shuffles" reduce_memory: warp shuffles, 1024 MiB, bandwidth
# value 1 "16-byte loads" reduce_memory: vector loads, 1024 MiB, bandwidth
# value 1 "2 loads in flight" reduce_memory: vector loads, 2 in flight, 1024 MiB, bandwidth
# value 1 "4 loads in flight (final)" reduce_memory: vector loads, 4 in flight, 1024 MiB, bandwidth
# value 1 "8 loads in flight" reduce_memory: vector loads, 8 in flight, 1024 MiB, bandwidth
# value 2 "read ceiling" reduce_memory: read ceiling, 1024 MiB
# value 2 "CUB" reduce_memory: CUB, 1024 MiB, bandwidth
#
# Drawn by scripts/book/figure.sh (which sets DATA, UNIT, GPU, RUNS, NGROUPS, NVALUES, FONTSIZE and STALE)
# through figures/steps.gpi.
if (NGROUPS != 2 || NVALUES != 9) { print "memory.gp: expected 7 + 2 values, found ", NVALUES; exit error "wrong number of values" }
WHAT = "sum"
CEILING = "read ceiling"
load "figures/steps.gpi"
