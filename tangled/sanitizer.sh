echo "the tree without its barrier:"
./reduce_block --no-barrier
echo "racecheck, the tree without its barrier:"
compute-sanitizer --tool racecheck ./reduce_block --no-barrier | grep 'RACECHECK SUMMARY'
echo "racecheck, the correct tree:"
compute-sanitizer --tool racecheck ./reduce_block | grep 'RACECHECK SUMMARY'
echo "memcheck, the counter race:"
compute-sanitizer --tool memcheck ./race | grep -E 'with \+=|ERROR SUMMARY'
