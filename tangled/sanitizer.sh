# runs: 1
./reduce_block --no-barrier
compute-sanitizer --tool racecheck ./reduce_block --no-barrier > no-barrier.txt & a=$!; compute-sanitizer --tool racecheck ./reduce_block --once > once.txt & b=$!; compute-sanitizer --tool memcheck ./race > race.txt & c=$!; wait $a && wait $b && wait $c
grep 'RACECHECK SUMMARY' no-barrier.txt && grep 'RACECHECK SUMMARY' once.txt && grep -E 'with \+=|ERROR SUMMARY' race.txt
