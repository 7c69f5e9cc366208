# runs: 1
printf '%s\n' ./race ./reduce_atomic ./reduce_block ./reduce_warp ./hist ./hist_shared ./cas_max ./float_sum | xargs -P 8 -n 1 sh -c 'cuobjdump -sass "$0" > "$0.sass"'
for p in race reduce_atomic reduce_block reduce_warp hist hist_shared cas_max float_sum; do echo "$p:"; grep -oE '(RED|ATOM|VOTE|MATCH|POPC)[A-Z]*(\.[A-Z0-9_]+)*' $p.sass | sort | uniq -c || exit 1; done
awk '/Function : .*ILb0EL4Send0E/ { f = 1; next } /Function :/ { f = 0 } f' reduce_block.sass | grep -oE '(LDS|STS|BAR\.SYNC)[^;]*' | awk 'NR <= 9; /^BAR/ { b = 1; next } b && /^STS/ { d = 1 } b && !d && /^LDS.*\+0x(100|80|40|20|10|8|4)\]/ { n++ } END { if (b) print "loads of later steps before the first pair sum, tree without its barrier: " n + 0 }'
echo "REDUX in cas_max: $(grep -c REDUX cas_max.sass)"
echo "ATOMS.POPC.INC in hist_shared: $(grep -c ATOMS.POPC.INC hist_shared.sass)"
