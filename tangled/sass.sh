# runs: 1
for p in ./race ./reduce_atomic ./reduce_block ./reduce_warp ./hist ./hist_shared ./cas_max ./float_sum; do echo "${p#./}:"; cuobjdump -sass $p | grep -oE '(RED|ATOM|VOTE|MATCH|POPC)[A-Z]*(\.[A-Z0-9_]+)*' | sort | uniq -c || exit 1; done
cuobjdump -sass ./reduce_block | awk '/Function : .*ILb0EL4Send0E/ { f = 1; next } /Function :/ { f = 0 } f' | grep -oE '(LDS|STS|BAR\.SYNC)[^;]*' | awk 'NR <= 9'
