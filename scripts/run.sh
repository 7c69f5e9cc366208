#!/bin/sh
# run.sh -- make run: builds the tangled programs, runs them and their sessions, writes their records.
#
# Environment (the Makefile passes these): TANGLED (tangled), MEASUREMENTS (measurements), GPU (the
# set's name; empty: from the GPU's name), RUNS (5), TIMEOUT (seconds per run, 120), FORCE (1: ignore
# the cache), ONLY (names to run, ignoring the cache), NVCC (nvcc), ARCH (native), RECORD
# (build/tools/record), GPUINFO (a command printing provenance lines; empty: build and run
# scripts/gpuinfo.cu, then merge nvidia-smi's driver and clock), WORK (build/run).
# Needs only sh, cc-built tools, the CUDA toolkit and GNU coreutils (timeout, date +%N); bash for sessions.

set -u
export LC_ALL=C

TANGLED=${TANGLED:-tangled}
MEASUREMENTS=${MEASUREMENTS:-measurements}
GPU=${GPU:-}
RUNS=${RUNS:-5}
TIMEOUT=${TIMEOUT:-120}
FORCE=${FORCE:-}
ONLY=${ONLY:-}
NVCC=${NVCC:-nvcc}
ARCH=${ARCH:-native}
RECORD=${RECORD:-build/tools/record}
GPUINFO=${GPUINFO:-}
WORK=${WORK:-build/run}
# nvcc has no business taking longer; a hung compiler must not hang make run.
COMPILE_TIMEOUT=600

die() {
	echo "run.sh: $*" >&2
	exit 2
}

ROOT=$(pwd)
abs() {
	case $1 in
	/*) echo "$1" ;;
	*) echo "$ROOT/$1" ;;
	esac
}

case $RUNS in
'' | *[!0-9]* | 0) die "RUNS must be a positive whole number, found '$RUNS'" ;;
esac
case $TIMEOUT in
'' | *[!0-9.]* | .* | *.*.*) die "TIMEOUT must be a number of seconds, found '$TIMEOUT'" ;;
esac
case $GPU in
*[!A-Za-z0-9._-]* | .*) die "GPU must be a set name of letters, digits, '.', '_' and '-', found '$GPU'" ;;
esac
[ -d "$TANGLED" ] || die "$TANGLED: no such directory (make tangle makes it)"
[ -x "$RECORD" ] || die "$RECORD: missing (make run builds it first)"
command -v timeout >/dev/null 2>&1 || die "timeout (GNU coreutils) is needed to run programs safely"
# Paths stay as given (messages show them so); only NVCC is used after a cd into WORK.
case $NVCC in */*) NVCC=$(abs "$NVCC") ;; esac
# Records show the compiler by name only: no machine paths in the book.
NVCC_SHOWN=${NVCC##*/}
mkdir -p "$WORK/runs" || die "$WORK: cannot create"

case $(date +%N) in
*[!0-9]* | '') now_ns() { echo "$(($(date +%s) * 1000000000))"; } ;;
*) now_ns() { date +%s%N; } ;;
esac

# ---------- provenance ----------

PROV=$WORK/prov
nvcc_version=$(timeout -k 5 60 "$NVCC" --version 2>/dev/null </dev/null | sed -n 's/.*release [0-9.]*, V\([0-9][0-9.]*\).*/\1/p' | head -n 1)
if [ -n "$GPUINFO" ]; then
	{
		echo "nvcc ${nvcc_version:-unknown}"
		timeout -k 5 60 sh -c "$GPUINFO" </dev/null
	} >"$PROV.tmp" 2>"$WORK/gpuinfo.err" || {
		cat "$WORK/gpuinfo.err" >&2
		die "GPUINFO ($GPUINFO) failed"
	}
else
	if [ ! -x "$WORK/gpuinfo" ] || ! cmp -s "$ROOT/scripts/gpuinfo.cu" "$WORK/gpuinfo.cu"; then
		rm -f "$WORK/gpuinfo" "$WORK/gpuinfo.cu"
		timeout -k 5 "$COMPILE_TIMEOUT" "$NVCC" -arch="$ARCH" -o "$WORK/gpuinfo" "$ROOT/scripts/gpuinfo.cu" \
			>"$WORK/gpuinfo.log" 2>&1 || {
			cat "$WORK/gpuinfo.log" >&2
			die "cannot build scripts/gpuinfo.cu with $NVCC"
		}
		cp "$ROOT/scripts/gpuinfo.cu" "$WORK/gpuinfo.cu"
	fi
	{
		echo "nvcc ${nvcc_version:-unknown}"
		timeout -k 5 60 "$WORK/gpuinfo" </dev/null
	} >"$PROV.tmp" 2>"$WORK/gpuinfo.err" || {
		cat "$WORK/gpuinfo.err" >&2
		die "gpuinfo failed: is there a GPU and a driver?"
	}
	if command -v nvidia-smi >/dev/null 2>&1; then
		# The maximum SM clock: the current one, read before anything runs, is the idle clock
		# (345 MHz on an H200 whose programs run at 1980).
		q=$(timeout -k 5 30 nvidia-smi -i 0 --query-gpu=driver_version,clocks.max.sm --format=csv,noheader,nounits 2>/dev/null | head -n 1)
		drv=$(echo "${q%%,*}" | tr -d ' ')
		clk=$(echo "${q#*,}" | tr -d ' ')
		case $drv in '' | *[!0-9.]*) ;; *) echo "driver $drv" >>"$PROV.tmp" ;; esac
		case $q in *,*) case $clk in '' | *[!0-9]*) ;; *) echo "sm_clock_mhz $clk" >>"$PROV.tmp" ;; esac ;; esac
	fi
fi
mv "$PROV.tmp" "$PROV"

if [ -z "$GPU" ]; then
	gpuname=$(sed -n 's/^gpu //p' "$PROV" | tail -n 1)
	GPU=$(printf '%s\n' "$gpuname" | sed 's/^NVIDIA //' | tr 'A-Z' 'a-z' | sed 's/[^a-z0-9]/-/g; s/--*/-/g; s/^-//; s/-$//')
	[ -n "$GPU" ] && [ "$GPU" != unknown ] || die "cannot tell the GPU's name from the provenance; set GPU=name"
fi
SET=$MEASUREMENTS/$GPU
mkdir -p "$SET" || die "$SET: cannot create"
# A set holds one GPU's numbers: GPU=h200 on another GPU must not overwrite them (as stale).
here=$(sed -n 's/^gpu //p' "$PROV" | tail -n 1 | tr -cd 'A-Za-z0-9 .()/:+-')
for f in "$SET"/*.rec; do
	[ -f "$f" ] || continue
	there=$(sed -n 's/^gpu //p' "$f" | head -n 1)
	[ "$there" = "$here" ] ||
		die "$SET holds records of the $there (e.g. $f), this machine has the $here; choose another GPU=name"
done
# A writer killed mid-write leaves its hidden temporary file; the record itself is intact.
rm -f "$SET"/.*.rec.tmp.*

# ---------- what there is to run ----------

programs=
sessions=
width=8
for f in "$TANGLED"/*.cu "$TANGLED"/*.sh; do
	[ -f "$f" ] || continue
	b=${f##*/}
	n=${b%.*}
	case $n in
	'' | *[!A-Za-z0-9._-]*) die "$TANGLED/$b: expected a name of letters, digits, '.', '_' and '-'" ;;
	esac
	case $b in
	*.cu) programs="$programs $n" ;;
	*.sh)
		[ -f "$TANGLED/$n.cu" ] && die "$TANGLED/$n.cu and $TANGLED/$n.sh would both be recorded as $n.rec"
		sessions="$sessions $n"
		;;
	esac
	[ ${#n} -gt $width ] && width=${#n}
done
for n in $ONLY; do
	case " $programs $sessions " in
	*" $n "*) ;;
	*) die "ONLY names '$n', which is no program or session in $TANGLED" ;;
	esac
done
if [ -n "$sessions" ] && ! command -v bash >/dev/null 2>&1; then
	die "sessions ($sessions) need bash"
fi

# ---------- helpers ----------

show_tail() { # FILE LABEL: the last lines of a log, indented, so a failure shows why
	if [ -s "$1" ]; then
		echo "    $2:"
		tail -n 25 "$1" | sed 's/^/    | /'
	fi
}

compile_cmd() { echo "$NVCC_SHOWN -arch=$ARCH -Werror all-warnings -o $1 $1.cu"; }

compiled_bad=
compile() { # NAME: builds WORK/NAME from tangled/NAME.cu unless it is up to date; 1 when it fails
	c=$(compile_cmd "$1")
	if [ -x "$WORK/$1" ] && cmp -s "$TANGLED/$1.cu" "$WORK/$1.cu" &&
		[ "$(cat "$WORK/$1.cmd" 2>/dev/null)" = "$c" ]; then
		return 0
	fi
	case " $compiled_bad " in *" $1 "*) return 1 ;; esac
	rm -f "$WORK/$1" "$WORK/$1.cmd"
	cp "$TANGLED/$1.cu" "$WORK/$1.cu" || return 1
	if (cd "$WORK" && exec timeout -k 5 "$COMPILE_TIMEOUT" "$NVCC" -arch="$ARCH" -Werror all-warnings -o "$1" "$1.cu") \
		>"$WORK/$1.compile.log" 2>&1 </dev/null; then
		echo "$c" >"$WORK/$1.cmd"
		return 0
	fi
	compiled_bad="$compiled_bad $1"
	return 1
}

child=
trap 'if [ -n "$child" ]; then kill -TERM "$child" 2>/dev/null; fi; echo "run.sh: interrupted" >&2; exit 130' INT TERM HUP

runs_of() { # NAME COMMAND...: RUNS runs in WORK; 1 (with why set) at the first that fails
	n=$1
	shift
	rd=$WORK/runs/$n
	rm -rf "$rd"
	mkdir -p "$rd" || return 1
	i=1
	while [ "$i" -le "$RUNS" ]; do
		start=$(now_ns)
		# In the background so that a signal to run.sh can reach timeout and, through it, the program.
		(cd "$WORK" && exec timeout -k 5 "$TIMEOUT" "$@") >"$rd/$i.out" 2>"$rd/$i.err" </dev/null &
		child=$!
		# (its stderr: the shell would announce a killed job there, in the middle of the progress)
		wait "$child" 2>/dev/null
		st=$?
		child=
		end=$(now_ns)
		echo "$st" >"$rd/$i.status"
		echo "$((end - start))" >"$rd/$i.wall"
		if [ "$st" -ne 0 ]; then
			case $st in
			124 | 137) why="timed out after ${TIMEOUT} s in run $i" ;;
			*) if [ "$st" -gt 128 ]; then why="crashed (status $st, signal $((st - 128))) in run $i"; else why="exited with status $st in run $i"; fi ;;
			esac
			failed_run=$i
			return 1
		fi
		i=$((i + 1))
	done
	return 0
}

ran=0
cached=0
failed=
say() { printf "%-${width}s  %s\n" "$1" "$2"; }

fail() { # NAME WHY [RUN [LOG LABEL]]: a failure, with the output that says why
	failed="$failed $1"
	say "$1" "FAILED: $2"
	if [ -n "${3:-}" ]; then
		show_tail "$WORK/runs/$1/$3.out" "stdout (run $3)"
		show_tail "$WORK/runs/$1/$3.err" "stderr (run $3)"
	fi
	if [ -n "${4:-}" ]; then
		show_tail "$4" "$5"
	fi
	if [ -f "$SET/$1.rec" ]; then
		echo "    the previous record $SET/$1.rec is kept"
	fi
}

wanted() { # NAME: whether this invocation runs NAME at all
	[ -z "$ONLY" ] && return 0
	case " $ONLY " in *" $1 "*) return 0 ;; esac
	return 1
}

use_cache() { [ -z "$ONLY" ] && [ "$FORCE" != 1 ]; }

write_record() { # KIND NAME SOURCE COMPILE COMMAND [USES...]
	k=$1 n=$2 src=$3 cc=$4 cmd=$5
	shift 5
	if ! "$RECORD" write --name "$n" --kind "$k" --source "$src" --dir "$WORK/runs/$n" --out "$SET/$n.rec" \
		--uses "$@" --compile "$cc" --command "$cmd" --prov "$PROV" --timeout "$TIMEOUT" \
		>"$WORK/runs/$n.write.log" 2>&1; then
		fail "$n" "cannot write its record"
		sed 's/^/    | /' "$WORK/runs/$n.write.log"
		return 1
	fi
	s=$("$RECORD" summary "$SET/$n.rec") || s="$RUNS ?"
	ran=$((ran + 1))
	say "$n" "$(printf '%d runs  ok  %9s s' "${s%% *}" "${s#* }")"
}

# ---------- programs ----------

for n in $programs; do
	wanted "$n" || continue
	cc=$(compile_cmd "$n")
	if use_cache && "$RECORD" fresh --rec "$SET/$n.rec" --source "$TANGLED/$n.cu" --prov "$PROV" \
		--compile "$cc" --command "./$n" --runs "$RUNS" >/dev/null 2>&1; then
		cached=$((cached + 1))
		say "$n" cached
		continue
	fi
	if ! compile "$n"; then
		fail "$n" "does not compile: $cc" "" "$WORK/$n.compile.log" "$NVCC_SHOWN"
		continue
	fi
	if ! runs_of "$n" "./$n"; then
		fail "$n" "$why" "$failed_run"
		continue
	fi
	write_record program "$n" "$TANGLED/$n.cu" "$cc" "./$n"
done

# ---------- sessions ----------

for n in $sessions; do
	wanted "$n" || continue
	cc="$NVCC_SHOWN -arch=$ARCH -Werror all-warnings"
	uses=
	for u in $("$RECORD" uses "$TANGLED/$n.sh"); do
		[ -f "$TANGLED/$u.cu" ] && uses="$uses $u"
	done
	use_paths=
	for u in $uses; do use_paths="$use_paths $TANGLED/$u.cu"; done
	# shellcheck disable=SC2086 # the names are checked: no blanks in them
	if use_cache && "$RECORD" fresh --rec "$SET/$n.rec" --source "$TANGLED/$n.sh" --uses $use_paths \
		--prov "$PROV" --compile "$cc" --command "bash $n.sh" --runs "$RUNS" >/dev/null 2>&1; then
		cached=$((cached + 1))
		say "$n" cached
		continue
	fi
	bad=
	for u in $uses; do
		compile "$u" || bad="$bad $u"
	done
	if [ -n "$bad" ]; then
		fail "$n" "needs${bad}, which does not compile"
		continue
	fi
	cp "$TANGLED/$n.sh" "$WORK/$n.sh" || {
		fail "$n" "cannot copy $n.sh into $WORK"
		continue
	}
	if ! runs_of "$n" bash "$n.sh"; then
		fail "$n" "$why" "$failed_run"
		continue
	fi
	# shellcheck disable=SC2086
	write_record session "$n" "$TANGLED/$n.sh" "$cc" "bash $n.sh" $use_paths
done

# ---------- records nobody makes any more ----------

for f in "$SET"/*.rec; do
	[ -f "$f" ] || continue
	b=${f##*/}
	n=${b%.rec}
	case " $programs $sessions " in
	*" $n "*) ;;
	*) echo "note: $f belongs to no program or session in $TANGLED; remove it if it is obsolete" ;;
	esac
done

nfailed=0
for n in $failed; do nfailed=$((nfailed + 1)); done
if [ "$nfailed" -gt 0 ]; then
	echo "run: $ran ran, $cached cached, $nfailed FAILED:$failed (in $SET)"
	exit 1
fi
echo "run: $ran ran, $cached cached, 0 failed (in $SET)"
exit 0
