# runs: 1
ncu --clock-control none --print-units base --metrics gpu__time_duration.sum -k regex:reduce -s 1 -c 1 ./reduce_atomic | grep gpu__time_duration | tr -d , | awk '{ printf "reduce_atomic, one atomic per element: %.3f ms\n", $NF / 1e6 }'
ncu --clock-control none --print-units base --metrics gpu__time_duration.sum -k regex:reduce -s 1 -c 1 ./reduce_block | grep gpu__time_duration | tr -d , | awk '{ printf "reduce_block, one atomic per block: %.3f ms\n", $NF / 1e6 }'
ncu --clock-control none --print-units base --metrics gpu__time_duration.sum -k regex:reduce -s 1 -c 1 ./reduce_warp | grep gpu__time_duration | tr -d , | awk '{ printf "reduce_warp, one atomic per warp: %.3f ms\n", $NF / 1e6 }'
