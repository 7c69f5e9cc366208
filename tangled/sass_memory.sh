# runs: 1
cuobjdump -sass ./reduce_memory > reduce_memory.sass
for k in 1 2 4 8; do awk -v k=$k '$0 ~ "Function : .*reduce_fastI5uint4Li" k "EL7WarpAdd0E" { f = 1; next } /Function :/ { f = 0 } f' reduce_memory.sass | grep -oE 'LDG\.E\.128|IADD3 R[0-9]+, R[0-9]+, R[0-9]+, R[0-9]+ ' | awk -v k=$k '/IADD3/ { a = 1 } !a { n++ } END { print "vector loads, " k " in flight, 16-byte loads before the first addition: " n + 0 }' || exit 1; done
