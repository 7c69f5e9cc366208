#!/bin/sh
# run.sh -- make run: runs every tangled program and shell session on this machine's GPU and writes
# measurements/SET/NAME.rec as notes/design.md ("Record format") says; the README's table lists its
# settings (RUNS, TIMEOUT, FORCE, ONLY, CHAPTER; the Makefile passes MAKE, NVCC, FLAGS and GPU, and
# GPUINFO, a command printing the provenance, stands in for gpuinfo.cu in the tests). The programs are
# built by `make programs` into build/bin and run there; run.sh's own files live in build/run.
# shellcheck disable=SC3013 # test -nt: dash, bash and busybox have it
set -u
export LC_ALL=C
MAKE=${MAKE:-make} TANGLED=${TANGLED:-tangled} MEASUREMENTS=${MEASUREMENTS:-measurements} GPU=${GPU:-} CHAPTER=${CHAPTER:-}
RUNS=${RUNS:-5} TIMEOUT=${TIMEOUT:-120} FORCE=${FORCE:-} ONLY=${ONLY:-} NVCC=${NVCC:-nvcc} GPUINFO=${GPUINFO:-}
HERE=$(dirname "$0") BIN=$(pwd)/build/bin WORK=$(pwd)/build/run
# What make programs compiles with, as the records say (scripts/gpu/nvccflags owns the flags), and ALONE, a
# reader's nvcc -o NAME NAME.cu, for nvcc's default GPU, whose fallbacks newer GPUs skip: compiled too.
ALONE=$(cat "$HERE/nvccflags") && FLAGS=${FLAGS:-"-arch=native $ALONE"}
NL='
'
die() { echo "run.sh: $*" >&2; exit 2; }
secs() { r=$(($1 / 1000)).$(printf %03d $(($1 % 1000))); } # MS -> r: seconds with 3 decimals
has() { case " $1 " in *" $2 "*) ;; *) return 1 ;; esac; } # LIST NAME: the blank-separated LIST has NAME

case $RUNS in '' | *[!0-9]* | 0*) die "RUNS must be a positive whole number, found '$RUNS'" ;; esac
case $TIMEOUT in '' | *[!0-9.]* | .* | *. | *.*.*) die "TIMEOUT must be a number of seconds, found '$TIMEOUT'" ;; esac
TIMEOUT_MS=$(awk -v t="$TIMEOUT" 'BEGIN { if (t * 1000 >= 1 && t <= 86400) printf "%d", t * 1000 }')
[ -n "$TIMEOUT_MS" ] || die "TIMEOUT must be more than 0 seconds and at most a day (86400), found '$TIMEOUT'"
case $GPU in *[!A-Za-z0-9._-]* | .*) die "GPU must be a set name of letters, digits, '.', '_' and '-', found '$GPU'" ;; esac
[ -d "$TANGLED" ] || die "$TANGLED: no such directory (make tangle makes it)"
mkdir -p "$WORK" "$BIN" || die "cannot create $WORK and $BIN"

# ---------- what there is to run: programs first, then the sessions that run them ----------
names='' width=4
for f in "$TANGLED"/*.cu "$TANGLED"/*.sh; do
    [ -f "$f" ] || continue
    b=${f##*/} && n=${b%.*}
    case $n in '' | .* | *[!A-Za-z0-9._-]*) die "$f: a name of letters, digits, '.', '_' and '-' expected" ;; esac
    ! has "$names" "$n" || die "$TANGLED/$n.cu and $n.sh would both be recorded as $n.rec"
    names="$names $n"
    [ ${#n} -le $width ] || width=${#n}
done
for n in $ONLY; do has "$names" "$n" || die "ONLY names '$n', which is no program or session in $TANGLED"; done
# CHAPTER=NN: the programs and sessions that chapter defines, as ONLY would name them.
if [ -n "$CHAPTER" ]; then
    case $CHAPTER in *[!a-z0-9-]* | -*) die "CHAPTER must be a chapter's NN or NN-slug, found '$CHAPTER'" ;; esac
    ONLY="$ONLY $(awk -F '\t' -v c="$CHAPTER" '{ b = $1; sub(/.*\//, "", b); sub(/\.nw$/, "", b) }
        b == c || substr(b, 1, length(c) + 1) == c "-" { sub(/\.[^.]*$/, "", $2); printf " %s", $2 }' "$TANGLED/roots.tsv" 2>/dev/null)"
    [ -n "$(echo $ONLY)" ] || die "CHAPTER=$CHAPTER: no chapter of that number defines a program or session ($TANGLED/roots.tsv)"
fi

# ---------- provenance, once: gpuinfo (or GPUINFO), nvidia-smi's driver and peak SM clock, nvcc ----------
if [ -n "$GPUINFO" ]; then
    info=$(sh -c "$GPUINFO" </dev/null) || die "GPUINFO ($GPUINFO) failed"
else
    [ "$WORK/gpuinfo" -nt "$HERE/gpuinfo.cu" ] ||
        "$NVCC" -arch=native -o "$WORK/gpuinfo" "$HERE/gpuinfo.cu" </dev/null || die "cannot build $HERE/gpuinfo.cu with $NVCC"
    info=$(timeout -k 5 60 "$WORK/gpuinfo" </dev/null) || die "$WORK/gpuinfo failed: is there a GPU and a driver?"
    # The peak SM clock: the current one, read while nothing runs, is the idle clock.
    smi=$(timeout -k 5 60 nvidia-smi -i 0 --query-gpu=driver_version,clocks.max.sm \
        --format=csv,noheader,nounits 2>/dev/null </dev/null) && info="$info${NL}driver ${smi%%,*}${NL}sm_clock_mhz ${smi#*,}"
fi
ver=$("$NVCC" --version 2>/dev/null </dev/null | sed -n 's/.*release .*, V\([0-9][0-9.]*\).*/\1/p')
# Whatever keys gpuinfo prints (scripts/gpu/gpuinfo.cu owns the device's), in its order, then
# nvidia-smi's and nvcc: a key's first line, blanks after it one space; a value of [N/A] is no value.
PROV=$(printf '%s\nnvcc %s\n' "$info" "$ver" | awk 'NF >= 2 && $2 != "[N/A]" && $1 ~ /^[a-z0-9_]+$/ && !seen[$1]++ {
    k = $1; sub(/^[^ ]+ +/, ""); print k, $0 }' | tr -d '\000-\010\013-\037\177')
GPUNAME=$(printf '%s\n' "$PROV" | sed -n 's/^gpu //p')
[ -n "$GPUNAME" ] || die "the provenance names no GPU (no 'gpu NAME' line)"
[ -n "$GPU" ] || GPU=$(echo "$GPUNAME" | sed 's/^NVIDIA //' | tr A-Z a-z | sed 's/[^a-z0-9][^a-z0-9]*/-/g; s/^-//; s/-$//')
[ -n "$GPU" ] || die "cannot make a set name of the GPU's name '$GPUNAME'; set GPU=name"
SET=$MEASUREMENTS/$GPU
mkdir -p "$SET" || die "$SET: cannot create"
# One make run writes a set at a time (two would mix their records): a lock on its folder, held to the end.
exec 9<"$SET" && flock -n 9 || die "$SET: another make run is writing this set; wait for it to end"
# A writer killed mid-write leaves its hidden temporary file; the records themselves are intact.
rm -f "$SET"/.*.tmp && trap 'rm -f "$SET"/.*.tmp' EXIT
# A set holds one GPU's records: GPU=h200 on another GPU must not overwrite them.
other=$(grep -h -m 1 '^gpu ' "$SET"/*.rec 2>/dev/null | grep -v -x -F "gpu $GPUNAME" | head -n 1)
[ -z "$other" ] || die "$SET holds records of the ${other#gpu }, this machine has the $GPUNAME; choose another GPU=name"

# ---------- the cache ----------
# "\nNAME.cu HEX\n" per file of tangled/, looked up by sha.
SUMS=$NL$(cd "$TANGLED" && sha256sum -- *.cu *.sh 2>/dev/null | sed 's/^\([0-9a-f]*\) [ *]\(.*\)$/\2 \1/')$NL
sha() { h=${SUMS#*"$NL$1 "} && h=${h%%"$NL"*}; }
# built NAME: make built build/bin/NAME from tangled/NAME.cu as it is now (a failed build leaves none)
built() { [ -x "$BIN/$1" ] && ! [ "$TANGLED/$1.cu" -nt "$BIN/$1" ]; }

describe() { # NAME: sets kind src cmd progs, and keys: the record's lines sha256 .. command
    kind=program src=$1.cu cmd=./$1 progs='' cc="${NVCC##*/} $FLAGS -o $1 $1.cu" alone="${NVCC##*/} $ALONE -o $1 $1.cu"
    if [ ! -f "$TANGLED/$src" ]; then
        kind=session src=$1.sh cmd="bash $1.sh" cc="${NVCC##*/} $FLAGS" alone=
        progs=$(sh "$HERE/session.sh" programs "$TANGLED" "$TANGLED/$src" | tr '\n' ' ')
    fi
    sha "$src" && keys="sha256 $h"
    for p in $progs; do sha "$p.cu" && keys="$keys${NL}uses $p.cu $h"; done
    keys="$keys${NL}compile $cc${alone:+${NL}alone $alone}${NL}command $cmd"
}

current() { # NAME (described): its record is complete and was made from these sources, so, on this GPU
    [ -f "$SET/$1.rec" ] && [ "$(awk '/^(sha256|uses|compile|alone|command|gpu) / { print } { last = $0 }
        END { print (last ~ /^end [0-9]+$/) ? "end" : "incomplete" }' "$SET/$1.rec")" = "$keys${NL}gpu $GPUNAME${NL}end" ]
}

say() { printf "%-${width}s  %s\n" "$1" "$2"; }
# last NAME: how long its record's runs took, "N runs  S s", or "not measured" ("" for a total).
last() { awk '/^run [0-9]+ exit / { n++; s += $6 } END { if (n) printf "%d run%s  %8.3f s", n, n == 1 ? " " : "s", s; else print "not measured" }' "$SET/$1.rec" 2>/dev/null || echo "not measured"; }
todo='' cached=0
for n in $names; do
    [ -z "$ONLY" ] || has "$ONLY" "$n" || continue
    describe "$n"
    if [ -z "$ONLY" ] && [ "$FORCE" != 1 ] && current "$n"; then
        cached=$((cached + 1)) && say "$n" cached
    else
        todo="$todo $n"
    fi
done
# What is to run, and how long it took last time; then compile: the binaries measured are the ones make builds.
if [ -n "$todo" ]; then
    echo "run: to measure, with the time its runs took last time:"
    for n in $todo; do say "$n" "last time $(last "$n")"; done
    was=$(for n in $todo; do cat "$SET/$n.rec" 2>/dev/null; done | awk '/^run [0-9]+ exit / { s += $6 } END { printf "%.1f", s }')
    echo "run: $(echo $todo | wc -w) to measure; their runs took $was s last time"
    # -k: a program that does not compile fails alone (below); make leaves no binary of it.
    compiled=$(date +%s%3N)
    # shellcheck disable=SC2086 # MAKE may be a command with arguments
    $MAKE -k -j"$(nproc)" programs NVCCFLAGS="$FLAGS" NVCC="$NVCC" </dev/null 2>&1
    # Alone, device code only (-cubin), all at once: WORK/NAME.alone holds what nvcc said, and .ok follows it.
    rm -f "$WORK"/*.alone*
    for n in $todo; do [ ! -f "$TANGLED/$n.cu" ] || echo "$n"; done | xargs -r -P "$(nproc)" -I @ sh -c \
        'cd "$1" && $2 -cubin $3 -o "$4/@.cubin" @.cu >"$4/@.alone" 2>&1 </dev/null && touch "$4/@.alone.ok"' - "$TANGLED" "$NVCC" "$ALONE" "$WORK"
    compiled=$(($(date +%s%3N) - compiled)) && secs "$compiled" && echo "run: compiled in $r s"
fi

# ---------- the runs ----------
# A run of a session: each command line on its own in a fresh bash with pipefail, its output in
# $2.C.o and $2.C.e; the first command that fails ends the run with its status.
DRIVER='i=0; while IFS= read -r line; do i=$((i + 1)); echo "$i" >"$2.cur"
    bash -o pipefail -c "$line" >"$2.$i.o" 2>"$2.$i.e" </dev/null || exit; done <"$1"'
# stream o|e FILE: a stream of a run as record lines, kept and cleaned as design.md ("Record format") says.
LIMIT='{ sub(/\r$/, "") } n >= 10000 || (b > 4194290 && b + length($0) > 4194303) { more++; next } { n++ }
    b + length($0) > 4194303 { $0 = substr($0, 1, 4194290 - b) "[record: cut]"; cut = 1 } { b += length($0) + 1; print }
    END { if (more || cut) print "[record: " more + 0 " more lines not kept]" }'
SANE='{ gsub(/[\001-\010\013-\037\177]|\302[\200-\237]|\342\200[\252-\256]|\342\201[\246-\251]/, "?"); print p " " $0 }'
stream() { [ ! -s "$2" ] || tr '\000' '?' <"$2" | awk "$LIMIT" | iconv -f UTF-8 -t UTF-8 -c 2>/dev/null | awk -v p="$1" "$SANE"; }
why() { # STATUS MS: what ended a run; timeout says 124 (137 after -k) when it fired, which takes TIMEOUT
    case $1 in 124 | 137) [ "$2" -lt "$TIMEOUT_MS" ] || { echo "timed out after ${TIMEOUT}s" && return; } ;; esac
    [ "$1" -gt 128 ] && s=$(kill -l "$1" 2>/dev/null) && echo "killed by signal $s" || echo "exit status $1"
}
ran=0 failed='' nfailed=0 alltotal=0 child=
fail() { # WHY FILE...: NAME failed; the end of the files says why
    failed="$failed $n" nfailed=$((nfailed + 1)) && echo "FAILED: $1" && shift
    for f; do [ ! -s "$f" ] || tail -n 20 "$f" | sed 's/^/    | /'; done
    [ ! -f "$SET/$n.rec" ] || echo "    the previous record $SET/$n.rec is kept"
}
trap 'if [ -n "$child" ]; then kill -TERM "$child" 2>/dev/null; fi; echo "run.sh: interrupted" >&2; exit 130' INT TERM HUP

for n in $todo; do
    describe "$n"
    printf "%-${width}s  " "$n"
    O=$WORK/out && rm -rf "$O" && mkdir "$O" || die "cannot create $O"
    # The runs it asks for: its first "# runs: N" (session) or "// runs: N" (program) line, maybe followed by a comment.
    runs=$(awk -v r="$RUNS" 'sub(/^[ \t]*(#|\/\/)[ \t]*runs:[ \t]*/, "") { r = ($1 ~ /^[1-9][0-9]*$/) ? $1 : "bad"; exit }
        END { print r }' "$TANGLED/$src")
    [ "$runs" != bad ] || { fail "its 'runs: N' line needs a positive whole number N"; continue; }
    if [ $kind = program ]; then
        echo "./$n" >"$WORK/cmds"
        built "$n" || { fail "does not compile: $cc"; continue; }
        [ -f "$WORK/$n.alone.ok" ] || { fail "does not build alone: its device code for nvcc's default GPU does not compile ($alone)" "$WORK/$n.alone"; continue; }
    else
        sh "$HERE/session.sh" commands "$TANGLED/$src" >"$WORK/cmds"
        bad= && for p in $progs; do built "$p" || bad="$bad $p"; done
        [ -z "$bad" ] || { fail "needs$bad, which does not compile"; continue; }
    fi
    date=$(date -u +%Y-%m-%dT%H:%M:%SZ) walls='' total=0 i=1 st=0
    while [ $i -le "$runs" ]; do
        start=$(date +%s%3N)
        if [ $kind = program ]; then
            (cd "$BIN" && exec timeout -k 5 "$TIMEOUT" "./$n") >"$O/$i.1.o" 2>"$O/$i.1.e" </dev/null &
        else
            (cd "$BIN" && exec timeout -k 5 "$TIMEOUT" bash -c "$DRIVER" session "$WORK/cmds" "$O/$i") </dev/null &
        fi
        # In the background, so that a signal to run.sh reaches timeout and, through it, the program.
        child=$! && wait "$child" 2>/dev/null
        st=$? child='' ms=$(($(date +%s%3N) - start))
        [ "$st" = 0 ] || break
        secs "$ms" && walls="$walls $r" total=$((total + ms)) i=$((i + 1))
    done
    if [ "$st" != 0 ]; then
        c=1 && [ $kind = program ] || c=$(cat "$O/$i.cur" 2>/dev/null || echo 1)
        at= && [ $kind = program ] || at=", at \$ $(sed -n "${c}p" "$WORK/cmds")"
        fail "$(why "$st" "$ms") in run $i$at" "$O/$i.$c.o" "$O/$i.$c.e"
        continue
    fi
    tmp=$SET/.$n.rec.tmp
    {
        echo "# $n.rec -- written by make run; measure it again with make run ONLY=$n, never edit it by hand"
        printf 'name %s\nkind %s\nsource %s\n%s\n%s\ndate %s\n' "$n" $kind "$src" "$keys" "$PROV" "$date"
        i=0 && for w in $walls; do
            i=$((i + 1)) && echo "run $i exit 0 wall_s $w"
            c=0 && while IFS= read -r line; do
                c=$((c + 1))
                [ $kind = program ] || printf '$ %s\n' "$line"
                stream o "$O/$i.$c.o"; stream e "$O/$i.$c.e"
            done <"$WORK/cmds"
        done
        echo "end $runs"
    } >"$tmp" && mv -f "$tmp" "$SET/$n.rec" || { rm -f "$tmp"; fail "cannot write $SET/$n.rec"; continue; }
    secs "$total" && ran=$((ran + 1)) alltotal=$((alltotal + total)) && printf '%d runs  %8s s\n' "$runs" "$r"
done

secs "$alltotal" && took="their runs took $r s"
[ -z "${compiled:-}" ] || { secs "$compiled" && took="$took, compiling $r s"; }
echo "run: $ran ran, $cached cached, $nfailed failed${failed:+:$failed} (in $SET; $took)"
[ -z "$failed" ] || exit 1
