# runs: 1
cuobjdump -sass ./reduce_memory > reduce_memory.sass
for k in 1 2 4 8; do awk -v k=$k '$0 ~ "Function : .*reduce_fastI5uint4Li" k "EL7WarpAdd0ELb0E" { f = 1; next } /Function :/ { f = 0 } f' reduce_memory.sass | grep -oE 'LDG\.E\.128|IADD3 R[0-9]+, R[0-9]+, R[0-9]+, R[0-9]+ ' | awk -v k=$k '/IADD3/ { a = 1 } !a { n++ } END { if (!n) { print "sass_memory: no 16-byte load before an addition in reduce_fast<uint4, " k ">: not the mnemonics of this GPU?" > "/dev/stderr"; exit 1 } print "vector loads, " k " in flight, 16-byte loads before the first addition: " n }' || exit 1; done
