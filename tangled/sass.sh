# runs: 1
cuobjdump -sass ./race | grep -oE '(RED|ATOM|VOTE|POPC)[A-Z]*(\.[A-Z0-9_]+)*' | sort | uniq -c
cuobjdump -sass ./reduce_atomic | grep -oE '(RED|ATOM|VOTE|MATCH|POPC)[A-Z]*(\.[A-Z0-9_]+)*' | sort | uniq -c
cuobjdump -sass ./reduce_block | grep -oE '(RED|ATOM)[A-Z]*(\.[A-Z0-9_]+)*' | sort | uniq -c
cuobjdump -sass ./reduce_warp | grep -oE '(RED|ATOM)[A-Z]*(\.[A-Z0-9_]+)*' | sort | uniq -c
cuobjdump -sass ./hist | grep -oE '(RED|ATOM|VOTE|MATCH|POPC)[A-Z]*(\.[A-Z0-9_]+)*' | sort | uniq -c
cuobjdump -sass ./hist_shared | grep -oE '(RED|ATOM)[A-Z]*(\.[A-Z0-9_]+)*' | sort | uniq -c
cuobjdump -sass ./cas_max | grep -oE '(RED|ATOM)[A-Z]*(\.[A-Z0-9_]+)*' | sort | uniq -c
cuobjdump -sass ./float_sum | grep -oE '(RED|ATOM)[A-Z]*(\.[A-Z0-9_]+)*' | sort | uniq -c
cuobjdump -sass ./reduce_block | awk '/Function : .*ILb0EL4Send0E/ { f = 1; next } /Function :/ { f = 0 } f' | grep -oE '(LDS|STS|BAR\.SYNC)[^;]*' | awk 'NR <= 9'
