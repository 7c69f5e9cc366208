echo "reduce_atomic, one atomic per element:"
ncu --clock-control none --print-units base --metrics gpu__time_duration.sum -k regex:reduce -s 1 -c 1 ./reduce_atomic | grep gpu__time_duration | tr -d , | awk '{ printf "kernel duration: %.3f ms\n", $NF / 1e6 }'
echo "reduce_block, one atomic per block:"
ncu --clock-control none --print-units base --metrics gpu__time_duration.sum -k regex:reduce -s 1 -c 1 ./reduce_block | grep gpu__time_duration | tr -d , | awk '{ printf "kernel duration: %.3f ms\n", $NF / 1e6 }'
echo "reduce_warp, one atomic per warp:"
ncu --clock-control none --print-units base --metrics gpu__time_duration.sum -k regex:reduce -s 1 -c 1 ./reduce_warp | grep gpu__time_duration | tr -d , | awk '{ printf "kernel duration: %.3f ms\n", $NF / 1e6 }'
