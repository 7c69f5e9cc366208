#!/bin/sh
# run.sh -- make run: runs every tangled program and shell session on this machine's GPU and writes
# measurements/SET/NAME.rec as notes/design.md ("Record format") says; the README's table lists its
# settings (RUNS, TIMEOUT, FORCE, ONLY, CHAPTER; the Makefile passes MAKE, NVCC, FLAGS and GPU, and
# GPUINFO, a command printing the provenance, stands in for gpuinfo.cu in the tests). The programs are
# built by `make programs` into build/bin and run there; run.sh's own files live in build/run.
# shellcheck disable=SC3013 # test -nt: dash, bash and busybox have it
set -u
export LC_ALL=C
MAKE=${MAKE:-make} TANGLED=${TANGLED:-tangled} MEASUREMENTS=${MEASUREMENTS:-measurements} NVCC=${NVCC:-nvcc}
RUNS=${RUNS:-5} TIMEOUT=${TIMEOUT:-120} FORCE=${FORCE:-} ONLY=${ONLY:-} CHAPTER=${CHAPTER:-} GPU=${GPU:-}
GPUINFO=${GPUINFO:-} HERE=$(dirname "$0") BIN=$(pwd)/build/bin WORK=$(pwd)/build/run O=$(pwd)/build/run/out
# What make programs compiles with, as the records say (scripts/gpu/nvccflags owns the flags), and ALONE, a
# reader's nvcc -o NAME NAME.cu, for nvcc's default GPU, whose fallbacks newer GPUs skip: compiled too.
ALONE=$(cat "$HERE/nvccflags") && FLAGS=${FLAGS:-"-arch=native $ALONE"}
NL='
'
die() { echo "run.sh: $*" >&2; exit 2; }
must() { die "$1 must be $2, found '$3'"; } # SETTING WHAT VALUE: a setting it cannot take
secs() { r=$(($1 / 1000)).$(printf %03d $(($1 % 1000))); } # MS -> r: seconds with 3 decimals
has() { case " $1 " in *" $2 "*) ;; *) return 1 ;; esac; } # LIST NAME: the blank-separated LIST has NAME

case $RUNS in '' | *[!0-9]* | 0*) must RUNS "a positive whole number" "$RUNS" ;; esac
case $TIMEOUT in '' | *[!0-9.]* | .* | *. | *.*.*) must TIMEOUT "a number of seconds" "$TIMEOUT" ;; esac
TIMEOUT_MS=$(awk -v t="$TIMEOUT" 'BEGIN { if (t * 1000 >= 1 && t <= 86400) printf "%d", t * 1000 }')
[ -n "$TIMEOUT_MS" ] || must TIMEOUT "more than 0 seconds and at most a day (86400)" "$TIMEOUT"
case $GPU in *[!A-Za-z0-9._-]* | .*) must GPU "a set name of letters, digits, '.', '_' and '-'" "$GPU" ;; esac
[ -d "$TANGLED" ] || die "$TANGLED: no such directory (make tangle makes it)"
mkdir -p "$WORK" "$BIN" || die "cannot create $WORK and $BIN"

# ---------- what there is to run: programs first, then the sessions that run them ----------
all='' width=4
for f in "$TANGLED"/*.cu "$TANGLED"/*.sh; do   # (the globs match no hidden file: a name starts with no '.')
    [ -f "$f" ] || continue
    b=${f##*/} && n=${b%.*}
    case $n in *[!A-Za-z0-9._-]*) die "$f: a name of letters, digits, '.', '_' and '-' expected" ;; esac
    ! has "$all" "$n" || die "$TANGLED/$n.cu and $n.sh would both be recorded as $n.rec"
    all="$all $n"
    [ ${#n} -le $width ] || width=${#n}
done
for n in $ONLY; do has "$all" "$n" || die "ONLY names '$n', which is no program or session in $TANGLED"; done
# CHAPTER=NN: the programs and sessions that chapter (NN.nw or NN-slug.nw) defines, as ONLY would name them.
if [ -n "$CHAPTER" ]; then
    case $CHAPTER in *[!a-z0-9-]* | -*) must CHAPTER "a chapter's NN or NN-slug" "$CHAPTER" ;; esac
    ONLY="$ONLY $(awk -F '\t' -v c="$CHAPTER" '$1 ~ "(^|/)" c "(-[^/]*|\\.nw)?$" {
        sub(/\.[^.]*$/, "", $2); printf " %s", $2 }' "$TANGLED/roots.tsv" 2>/dev/null)"
    [ -n "$(echo $ONLY)" ] ||
        die "CHAPTER=$CHAPTER: no chapter of that number defines a program or session ($TANGLED/roots.tsv)"
fi

# ---------- provenance, once: gpuinfo (or GPUINFO), nvidia-smi's driver and peak SM clock, nvcc ----------
if [ -n "$GPUINFO" ]; then
    info=$(sh -c "$GPUINFO") || die "GPUINFO ($GPUINFO) failed"
else
    [ "$WORK/gpuinfo" -nt "$HERE/gpuinfo.cu" ] || "$NVCC" -arch=native -o "$WORK/gpuinfo" \
        "$HERE/gpuinfo.cu" || die "cannot build $HERE/gpuinfo.cu with $NVCC"
    info=$(timeout -k 5 60 "$WORK/gpuinfo") || die "$WORK/gpuinfo failed: is there a GPU and a driver?"
    # The peak SM clock: the current one, read while nothing runs, is the idle clock.
    smi=$(timeout -k 5 60 nvidia-smi -i 0 --query-gpu=driver_version,clocks.max.sm 2>/dev/null \
        --format=csv,noheader,nounits) && info="$info${NL}driver ${smi%%,*}${NL}sm_clock_mhz ${smi#*,}"
fi </dev/null
ver=$("$NVCC" --version 2>/dev/null </dev/null | sed -n 's/.*release .*, V\([0-9][0-9.]*\).*/\1/p')
# Whatever keys gpuinfo prints (scripts/gpu/gpuinfo.cu owns the device's), in its order, then
# nvidia-smi's and nvcc: a key's first line, blanks after it one space; a value of [N/A] is no value.
PROV=$(printf '%s\nnvcc %s\n' "$info" "$ver" | awk 'NF >= 2 && $2 != "[N/A]" && $1 ~ /^[a-z0-9_]+$/ &&
    !seen[$1]++ { k = $1; sub(/^[^ ]+ +/, ""); print k, $0 }' | tr -d '\000-\010\013-\037\177')
GPUNAME=$(printf '%s\n' "$PROV" | sed -n 's/^gpu //p')
[ -n "$GPUNAME" ] || die "the provenance names no GPU (no 'gpu NAME' line)"
[ -n "$GPU" ] || GPU=$(printf %s "${GPUNAME#NVIDIA }" | tr A-Z a-z | tr -cs a-z0-9 - | sed 's/^-//; s/-$//')
[ -n "$GPU" ] || die "cannot make a set name of the GPU's name '$GPUNAME'; set GPU=name"
SET=$MEASUREMENTS/$GPU
mkdir -p "$SET" || die "$SET: cannot create"
# One make run writes a set at a time (two would mix their records): a lock on its folder, held to the end.
exec 9<"$SET" && flock -n 9 || die "$SET: another make run is writing this set; wait for it to end"
# A writer killed mid-write leaves its hidden temporary file; the records themselves are intact. On exit the
# runs' files in WORK go too: a program's output (O) and the builds alone; gpuinfo, a cache, stays.
rm -f "$SET"/.*.tmp && trap 'rm -rf "$SET"/.*.tmp "$O" "$WORK"/*.alone* "$WORK"/*.cubin' EXIT
# A set holds one GPU's records: GPU=h200 on another GPU must not overwrite them.
had=$(grep -h -m 1 '^gpu ' "$SET"/*.rec 2>/dev/null | grep -v -x -F "gpu $GPUNAME" | sed -n '1s/^gpu //p')
[ -z "$had" ] || die "$SET holds records of the $had, this machine has the $GPUNAME; choose another GPU=name"

# ---------- the cache ----------
# "\nNAME.cu HEX\n" per file of tangled/, looked up by sha.
SUMS=$NL$(cd "$TANGLED" && sha256sum -- *.cu *.sh 2>/dev/null | sed 's/^\([0-9a-f]*\) [ *]\(.*\)$/\2 \1/')$NL
sha() { h=${SUMS#*"$NL$1 "} && h=${h%%"$NL"*}; }
# built NAME: make built build/bin/NAME from tangled/NAME.cu as it is now (a failed build leaves none)
built() { [ -x "$BIN/$1" ] && ! [ "$TANGLED/$1.cu" -nt "$BIN/$1" ]; }

describe() { # NAME: sets kind src file cmd progs cc alone, and keys: the record's lines sha256 .. command
    kind=program src=$1.cu file=$TANGLED/$1.cu cmd=./$1 progs='' o=" -o $1 $1.cu"
    if [ ! -f "$file" ]; then
        kind=session src=$1.sh file=$TANGLED/$1.sh cmd="bash $1.sh" o=''
        progs=$(sh "$HERE/session.sh" programs "$TANGLED" "$file")
    fi
    cc="${NVCC##*/} $FLAGS$o" alone=${o:+"${NVCC##*/} $ALONE$o"} && sha "$src" && keys="sha256 $h"
    for p in $progs; do sha "$p.cu" && keys="$keys${NL}uses $p.cu $h"; done
    keys="$keys${NL}compile $cc${alone:+${NL}alone $alone}${NL}command $cmd"
}

current() { # NAME: describes it; its record is complete and was made from these sources, so, on this GPU
    describe "$1" && [ -f "$SET/$1.rec" ] && [ "$(awk '/^(sha256|uses|compile|alone|command|gpu) /
        END { if ($0 ~ /^end [0-9]+$/) print "end" }' "$SET/$1.rec")" = "$keys${NL}gpu $GPUNAME${NL}end" ]
}

todo='' cached=0 compiling=''
for n in $all; do
    if [ -n "$ONLY" ]; then has "$ONLY" "$n" && todo="$todo $n"
    elif [ "$FORCE" = 1 ] || ! current "$n"; then todo="$todo $n"
    else cached=$((cached + 1)) && printf "%-${width}s  cached\n" "$n"; fi
done
# What is to run, and what it took last time; then compile: the binaries measured are the ones make builds.
if [ -n "$todo" ]; then
    echo "run: to measure, with the time its runs took last time:"
    printf '%s\n' $todo | awk -v set="$SET" -v f="%-${width}s  last time %s\n" '{ m = $1; n = s = 0
        r = set "/" m ".rec"; while ((getline < r) > 0) if (/^run [0-9]+ exit /) { n++; s += $6 }; close(r)
        all += s; printf f, m, n ? sprintf("%d run%s  %8.3f s", n, n == 1 ? " " : "s", s) : "not measured" }
        END { printf "run: %d to measure; their runs took %.1f s last time\n", NR, all }'
    # -k: a program that does not compile fails alone (below); make leaves no binary of it.
    compiled=$(date +%s%3N)
    # shellcheck disable=SC2086 # MAKE may be a command with arguments
    $MAKE -k -j"$(nproc)" programs NVCCFLAGS="$FLAGS" NVCC="$NVCC" </dev/null 2>&1
    # Alone, device code only (-cubin), all at once: WORK/NAME.alone holds what nvcc said, and .ok follows it.
    rm -f "$WORK"/*.alone*
    for n in $todo; do [ ! -f "$TANGLED/$n.cu" ] || echo "$n"; done | xargs -r -P "$(nproc)" -I @ sh -c \
        'cd "$1" && $2 -cubin $3 -o "$4/@.cubin" @.cu >"$4/@.alone" 2>&1 </dev/null &&
        touch "$4/@.alone.ok"' - "$TANGLED" "$NVCC" "$ALONE" "$WORK"
    secs $(($(date +%s%3N) - compiled)) && echo "run: compiled in $r s" && compiling=", compiling $r s"
fi

# ---------- the runs ----------
# A run: each line of $O/cmds (a program's: ./NAME) in a fresh bash with pipefail, its output in $O/RUN.C.o
# and .e, C in $O/RUN.cur; the first that fails ends the run with its status (which says what killed it: the
# driver's stderr goes nowhere). On TERM the driver waits for the command: timeout's KILL (-k), which a
# command that ignores TERM needs, comes only while the driver lives.
DRIVER='trap "exit 143" TERM; exec 2>/dev/null; i=0; while IFS= read -r line; do i=$((i + 1))
    echo "$i" >"$2.cur"; bash -o pipefail -c "$line" >"$2.$i.o" 2>"$2.$i.e" </dev/null || exit; done <"$1"'
# stream o|e FILE: a stream of a run as record lines, kept and cleaned as design.md ("Record format") says,
# by one awk, whose status is the stream's; a byte in no UTF-8 character (RFC 3629) becomes "?", as a control
# does. (mawk takes a time quadratic in the line's length on a regular expression with | outside parentheses.)
STREAM='BEGIN { X = "(\302[\200-\237]|\342(\200[\252-\256]|\201[\246-\251]))"   # C1, bidirectional controls
    C = "[\200-\277]"  # UTF8: at the start, a UTF-8 character (RFC 3629), else a byte; C: a continuation byte
    U = "[\302-\337]|\340[\240-\277]|[\341-\354\356\357]" C "|\355[\200-\237]"  # U: a character of 2, 3 bytes
    U = U "|\360[\220-\277]" C "|[\361-\363]" C C "|\364[\200-\217]" C          # or 4, less its last byte
    UTF8 = "^((" U ")" C "|[\200-\377])" }
function out(s,   a, k, i, j) { # controls but tab, X, and bytes in no character become "?"
    gsub(/[\000-\010\013-\037\177]/, "?", s); gsub(X, "?", s)
    k = split(s, a, /[\200-\377]+/); j = 1
    for (i = 1; i <= k; i++) { # a run of ASCII, then the bytes after it: UTF-8 characters, "?" for others
        printf "%s", a[i]; j += length(a[i])
        for (; match(substr(s, j, 4), UTF8); j += RLENGTH)
            printf "%s", (RLENGTH > 1 ? substr(s, j, RLENGTH) : "?")
    }
    print ""
}
{ sub(/\r$/, "") } n >= 10000 || (b > 4194290 && b + length($0) > 4194303) { more++; next }
b + length($0) > 4194303 { $0 = substr($0, 1, 4194290 - b) "[record: cut]"; cut = 1 }
{ n++; b += length($0) + 1; out(p " " $0) }
END { if (more || cut) out(p " [record: " more + 0 " more lines not kept]") }'
stream() { [ ! -s "$2" ] || awk -v p="$1" "$STREAM" "$2" || { err=" (awk: $(why $? 0))"; return 1; }; }
why() { # STATUS MS: what ended a run; timeout says 124 (137 after -k) when it fired, which takes TIMEOUT
    case $1:$(($2 >= TIMEOUT_MS)) in 124:1 | 137:1) echo "timed out after ${TIMEOUT}s" && return ;; esac
    [ "$1" -gt 128 ] && s=$(kill -l "$1" 2>/dev/null) && echo "killed by signal $s" || echo "exit status $1"
}
record() { # NAME's record, from its runs' output in $O; it fails where a stream does, err says how
    echo "# $n.rec -- written by make run; measure it again with make run ONLY=$n, never edit it by hand"
    printf 'name %s\nkind %s\nsource %s\n%s\n%s\ndate %s\n' "$n" $kind "$src" "$keys" "$PROV" "$date"
    i=0 && for w in $walls; do
        i=$((i + 1)) && echo "run $i exit 0 wall_s $w"
        c=0 && while IFS= read -r line; do
            c=$((c + 1))
            [ $kind = program ] || printf '$ %s\n' "$line"
            stream o "$O/$i.$c.o" && stream e "$O/$i.$c.e" || return
        done <"$O/cmds"
    done
    echo "end $runs"
}
ran=0 failed='' nfailed=0 alltotal=0 child=
fail() { # WHY FILE...: NAME failed; the end of the files says why. Its output and half-written record go.
    failed="$failed $n" nfailed=$((nfailed + 1)) && echo "FAILED: $1" && shift
    for f; do [ ! -s "$f" ] || tail -n 20 "$f" | sed 's/^/    | /'; done
    [ ! -f "$SET/$n.rec" ] || echo "    the previous record $SET/$n.rec is kept"
    rm -rf "$O" "$SET/.$n.rec.tmp"
}
trap '{ kill "$child" && wait "$child"; } 2>/dev/null; echo "run.sh: interrupted" >&2; exit 130' INT TERM HUP

for n in $todo; do
    describe "$n"
    printf "%-${width}s  " "$n"
    rm -rf "$O" && mkdir "$O" || die "cannot create $O"
    # The runs it asks for: its first "# runs: N" (session) or "// runs: N" (program) line, maybe commented.
    runs=$(awk -v r="$RUNS" 'sub(/^[ \t]*(#|\/\/)[ \t]*runs:/, "") { r = $1 ~ /^[1-9][0-9]*$/ ? $1 : "bad"
        exit } END { print r }' "$file") || { fail "cannot read $file (awk: $(why $? 0))"; continue; }
    [ "$runs" != bad ] || { fail "its 'runs: N' line needs a positive whole number N"; continue; }
    [ $kind = session ] || built "$n" || { fail "does not compile: $cc"; continue; }
    [ -z "$alone" ] || [ -f "$WORK/$n.alone.ok" ] ||
        { fail "does not build alone: its device code for nvcc's default GPU does not compile ($alone)" \
            "$WORK/$n.alone"; continue; }
    bad= && for p in $progs; do built "$p" || bad="$bad $p"; done
    [ -z "$bad" ] || { fail "needs$bad, which does not compile"; continue; }
    if [ $kind = program ]; then echo "$cmd"; else sh "$HERE/session.sh" commands "$file"; fi >"$O/cmds" ||
        { fail "cannot list its commands (scripts/gpu/session.sh commands $file failed)"; continue; }
    date=$(date -u +%Y-%m-%dT%H:%M:%SZ) walls='' total=0 i=1 st=0
    while [ $i -le "$runs" ]; do
        start=$(date +%s%3N)
        # In the background, so that a signal to run.sh reaches timeout and, through it, the program.
        (cd "$BIN" && exec timeout -k 5 "$TIMEOUT" bash -c "$DRIVER" run "$O/cmds" "$O/$i") </dev/null &
        child=$! && wait "$child" 2>/dev/null
        st=$? child='' ms=$(($(date +%s%3N) - start))
        [ "$st" = 0 ] || break
        secs "$ms" && walls="$walls $r" total=$((total + ms)) i=$((i + 1))
    done
    if [ "$st" != 0 ]; then   # a run failed: what ended it, at which command C, and the end of what C printed
        c=$(cat "$O/$i.cur" 2>/dev/null || echo 1) && at=$(sed -n "${c}p" "$O/cmds")
        fail "$(why "$st" "$ms") in run $i, at \$ $at" "$O/$i.$c.o" "$O/$i.$c.e"
        continue
    fi
    err='' tmp=$SET/.$n.rec.tmp && record >"$tmp" && mv -f "$tmp" "$SET/$n.rec" ||
        { fail "cannot write $SET/$n.rec$err"; continue; }
    rm -rf "$O" && secs "$total" && ran=$((ran + 1)) alltotal=$((alltotal + total))
    printf '%d runs  %8s s\n' "$runs" "$r"
done

secs "$alltotal" && echo "run: $ran ran, $cached cached, $nfailed failed${failed:+:$failed}" \
    "(in $SET; their runs took $r s$compiling)"
[ -z "$failed" ] || exit 1
