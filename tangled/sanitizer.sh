# runs: 1
./reduce_block --no-barrier
compute-sanitizer --tool racecheck ./reduce_block --no-barrier | grep 'RACECHECK SUMMARY'
compute-sanitizer --tool racecheck ./reduce_block --once | grep 'RACECHECK SUMMARY'
compute-sanitizer --tool memcheck ./race | grep -E 'with \+=|ERROR SUMMARY'
