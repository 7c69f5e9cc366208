# tests/measure-lib.sh -- set-up shared by the measurement tests (sourced): scratch, tools, checks.
# It builds on tests/lib.sh: a fresh build/tests/<name>/ for each test, and fail.

. tests/lib.sh
# The measurement tests name paths relative to the repository root, as the tools print them.
S=build/tests/$NAME
F=tests/fixtures/run

# The record tool of scripts/, as the Makefile builds it (make rebuilds it when a source changed).
build_record() {
	make -s build/tools/record >/dev/null || fail "cannot build scripts/record.c"
	REC=$ROOT/build/tools/record
}

# expect_same WHAT EXPECTED-FILE ACTUAL-FILE
expect_same() {
	diff -u "$2" "$3" >"$S/diff" 2>&1 || {
		echo "FAIL: $1 differs (expected, actual):"
		cat "$S/diff"
		exit 1
	}
}

# expect_grep WHAT FILE FIXED-STRING: FILE has a line containing the string
expect_grep() {
	grep -F -e "$3" "$2" >/dev/null || {
		echo "FAIL: $1: expected a line with '$3' in $2, which holds:"
		sed 's/^/  | /' "$2"
		exit 1
	}
}

expect_no_grep() {
	if grep -F -e "$3" "$2" >/dev/null; then
		echo "FAIL: $1: expected no line with '$3' in $2, which holds:"
		sed 's/^/  | /' "$2"
		exit 1
	fi
}

# A fake provenance command for machines without a GPU.
fake_prov() {
	cat >"$S/prov" <<'PROV'
gpu NVIDIA H200
compute_capability 9.0
sm_count 132
sm_clock_mhz 1980
driver 580.159.04
cuda_runtime 13.0
nvcc 13.0.88
date 2026-11-29T14:03:11Z
PROV
}

# nvcc compiles the host-only fixture programs; without it, a stand-in that calls c++.
pick_nvcc() {
	if command -v nvcc >/dev/null 2>&1; then
		NVCC=nvcc
		ARCH=sm_90
	elif command -v c++ >/dev/null 2>&1; then
		NVCC=$(pwd)/$F/fake-nvcc
		ARCH=sm_90
	else
		echo "neither nvcc nor c++: cannot build the fixture programs"
		exit 77
	fi
}
