#!/bin/sh
# browsercheck.sh -- renders every page of the HTML book in headless Chromium, with no network, and
# checks what a reader would see.   scripts/check/browsercheck.sh DIR [SHOTS]   (notes/design.md, "Checks")
# Exit 1 with a line "PAGE: what is wrong" per problem; 2 on bad usage or without Chromium. One Chromium
# checks every page in turn, each in two iframes (a headless window is never narrower than 500 px).
set -u
[ $# -eq 1 ] || [ $# -eq 2 ] || { echo "usage: scripts/check/browsercheck.sh DIR [SHOTS]" >&2; exit 2; }
dir=${1%/} shots=${2:-}
CHROMIUM=${CHROMIUM:-chromium} CHECK_TIMEOUT=${CHECK_TIMEOUT:-60}
PHONE=390 DESKTOP=1280 PART=${CHECK_PART:-16000}  # px; Chromium shoots at most 16,000 px at once
js=$(dirname "$0")/browsercheck.js

[ -d "$dir" ] || { echo "browsercheck: $dir: no such folder" >&2; exit 2; }
[ -r "$js" ] || { echo "browsercheck: $js: missing" >&2; exit 2; }
command -v "$CHROMIUM" >/dev/null 2>&1 || { echo "browsercheck: no $CHROMIUM (make deps installs it)" >&2; exit 2; }
pages=$(cd "$dir" && ls -1 | grep '\.html$' | LC_ALL=C sort)
[ -n "$pages" ] || { echo "browsercheck: $dir: no pages (*.html)" >&2; exit 1; }

scratch=$(mktemp -d "${TMPDIR:-/tmp}/browsercheck.XXXXXX") || exit 2
trap 'rm -rf "$scratch"' EXIT
trap 'exit 1' HUP INT TERM
site=$scratch/site
mkdir -p "$site" "$scratch/found" && cp -R "$dir/." "$site/" && cp "$js" "$site/__browsercheck.js" || exit 2
[ -z "$shots" ] || mkdir -p "$shots" || exit 2

# chromium SECONDS ARGS...: one headless run of at most SECONDS, with no network, a fresh profile and
# its own TMPDIR (a run killed by the timeout leaves its temporary files there, removed with the rest).
chromium() {
    rm -rf "$scratch/profile"
    mkdir -p "$scratch/profile" "$scratch/tmp"
    limit=$1 && shift
    TMPDIR=$scratch/tmp exec timeout -k 5 "$limit" "$CHROMIUM" --headless --no-sandbox --disable-gpu --disable-quic \
        --no-first-run --disable-background-networking --disable-component-update --disable-sync \
        --disable-extensions --mute-audio --hide-scrollbars --user-data-dir="$scratch/profile" \
        "$@" </dev/null
}

problems=$scratch/problems
say() { printf '%s: %s\n' "$1" "$2" >>"$problems"; }

todo=""
for p in $pages; do
    case $p in
    *[!A-Za-z0-9._-]*) say "$p" "a page name with characters other than letters, digits and ._- (links to it need escaping)"; continue ;;
    esac
    # The check script goes first into <head>, before anything that could fail.
    awk '!done && match(tolower($0), /<head[^>]*>/) {
             i = RSTART + RLENGTH; $0 = substr($0, 1, i - 1) "<script src=\"__browsercheck.js\"></script>" substr($0, i); done = 1
         }
         { print } END { exit !done }' "$dir/$p" >"$site/$p" ||
        { say "$p" "no <head> element: the page is not a complete HTML document"; continue; }
    todo="$todo $p"
done

# The harness waits for both reports of a page (or 20 s) and logs "browsercheck-page PAGE" before
# them, so what Chromium itself refuses (on stderr) is told by the page it refused for. A page that
# never finishes stops Chromium: it is reported, and a new Chromium checks the pages after it.
while [ -n "$todo" ]; do
    # shellcheck disable=SC2086 # page names have no blanks
    list=$(printf '"%s",' $todo)
    cat >"$site/__check__.html" <<EOF
<!DOCTYPE html>
<html><head><meta charset="utf-8"><style>html, body { margin: 0; } iframe { border: 0; display: block; }</style></head>
<body><script>
var pages = [${list%,}], widths = [$PHONE, $DESKTOP], i = -1, frames = [], got = [], timer = null;
function next() {
  clearTimeout(timer);
  if (i >= 0) widths.forEach(function (w, k) {
    (got[k] || ["problem the page did not finish loading, or a script stopped it before its check ran"])
      .forEach(function (l) { console.log("browsercheck-line " + w + " " + l); });
  });
  frames.forEach(function (f) { f.remove(); });
  if (++i >= pages.length) { console.log("browsercheck-done"); return; }
  console.log("browsercheck-page " + pages[i]);
  got = [];
  frames = widths.map(function (w) {
    var f = document.createElement("iframe");
    f.width = w; f.height = 900; f.src = pages[i];
    return document.body.appendChild(f);
  });
  timer = setTimeout(next, 20000);
}
window.addEventListener("message", function (e) {
  var k = frames.findIndex(function (f) { return f.contentWindow === e.source; });
  if (k < 0 || !e.data || !e.data.browsercheck || got[k]) return;
  got[k] = e.data.lines;
  if (got.filter(Boolean).length === widths.length) setTimeout(next, 0);
});
next();
</script></body></html>
EOF
    # In the background, watched: each page has CHECK_TIMEOUT seconds from the one before it.
    n=$(echo $todo | wc -w)
    (chromium $((CHECK_TIMEOUT * (n + 1))) --window-size=1280,900 --virtual-time-budget=$((30000 + 21000 * n)) \
        --enable-logging=stderr --v=0 --dump-dom "file://$site/__check__.html" >/dev/null 2>"$scratch/err") &
    pid=$! marks=0 since=$(date +%s) rc=
    while kill -0 "$pid" 2>/dev/null; do
        sleep 0.2
        m=$(grep -c 'browsercheck-page ' "$scratch/err")
        [ "$m" = "$marks" ] || { marks=$m since=$(date +%s); }
        [ $(($(date +%s) - since)) -lt "$CHECK_TIMEOUT" ] || { kill -TERM "$pid" 2>/dev/null; rc=124; }
    done
    wait "$pid"
    rc=${rc:-$?}
    # The console's messages, in order: "PAGE" for a page's start, "PAGE WIDTH LINE" for its report.
    sed -n 's/.*:CONSOLE[^]]*\] "\(.*\)", source: .*/\1/p' "$scratch/err" | awk -v found="$scratch/found" '
        /^browsercheck-page / { p = $2; next }
        /^browsercheck-line / && p != "" { sub(/^browsercheck-line /, ""); print > (found "/" p); next }
        /^browsercheck-done$/ { p = ""; next }
        p != "" && /^(Refused to|Not allowed to load|Failed to load resource)/ { print p ": console error: " $0 }' | sort -u >>"$problems"
    last=$(sed -n 's/.*:CONSOLE[^]]*\] "browsercheck-page \([^"]*\)".*/\1/p' "$scratch/err" | tail -n 1)
    grep -q '"browsercheck-done"' "$scratch/err" && rc=0 && last=
    case $rc in
    0) ;;
    124 | 137) say "$last" "did not load: Chromium did not finish in $CHECK_TIMEOUT s (a script that never ends?)" ;;
    *) say "${last:-$(echo $todo | cut -d' ' -f1)}" "did not load: Chromium failed (exit $rc): $(grep -v '^/usr/bin/chromium:' "$scratch/err" | grep -v ':CONSOLE' | grep -iv 'dbus\|vaapi\|sandbox' | tail -n 3 | tr '\n' ' ')" ;;
    esac
    # What is left: the pages after the one that stopped Chromium.
    todo=$(echo $todo | tr ' ' '\n' | awk -v last="$last" 'last == "" { exit } seen { print } $0 == last { seen = 1 }' | tr '\n' ' ')
done

# Of each page that reported: its problems, its links across pages (the file exists in DIR, and a
# page linked with #id has that id), then screenshots of it whole (the height each width reported).
for p in $pages; do
    [ -f "$scratch/found/$p" ] || continue
    sed -n 's/^[0-9]* problem //p' "$scratch/found/$p" | awk '!seen[$0]++' | sed "s|^|$p: |" >>"$problems"
    sed -n "s/^$DESKTOP link //p" "$scratch/found/$p" | LC_ALL=C sort -u | while read -r target frag; do
        if [ ! -e "$dir/$target" ]; then
            say "$p" "broken link: $target${frag:+#$frag}: $target is not a file of the book ($dir/$target does not exist)"
        elif [ -n "$frag" ] && [ -f "$scratch/found/$target" ]; then  # a page that was checked
            grep -qxF -e "$DESKTOP id $frag" "$scratch/found/$target" ||
                say "$p" "broken anchor: link to $target#$frag, but $target has no id \"$frag\""
        fi
    done
    [ -n "$shots" ] || continue
    for shot in desktop:$DESKTOP phone:$PHONE; do
        kind=${shot%:*} w=${shot#*:} base=$shots/${p%.html}-$kind
        h=$(sed -n "s/^$w height //p" "$scratch/found/$p" | head -n 1)
        case $h in '' | *[!0-9]*) h=900 ;; esac
        [ "$h" -ge 200 ] || h=200
        # In parts of at most PART px (Chromium's limit) each: the whole page, moved up by the parts before.
        n=$(((h + PART - 1) / PART)) i=0 part=$(((h + n - 1) / n))
        rm -f "$base.png" "$base"-[0-9].png "$base"-[0-9][0-9].png
        while [ $((i += 1)) -le $n ]; do
            png=$base$([ "$n" -eq 1 ] || echo "-$i").png
            cat >"$site/__shot__$p" <<EOF
<!DOCTYPE html>
<html><head><meta charset="utf-8"><style>html, body { margin: 0; overflow: hidden; } iframe { border: 0; display: block; }</style></head>
<body><iframe src="$p" width="$w" height="$h" style="margin-top: -$(((i - 1) * part))px"></iframe></body></html>
EOF
            (chromium "$CHECK_TIMEOUT" --window-size="$w,$((i < n ? part : h - (n - 1) * part))" --virtual-time-budget=5000 \
                --screenshot="$scratch/shot.png" "file://$site/__shot__$p" >"$scratch/out" 2>"$scratch/err")
            if [ -s "$scratch/shot.png" ]; then mv "$scratch/shot.png" "$png"; else say "$p" "Chromium made no $kind screenshot"; fi
        done
    done
done

n=$(echo "$pages" | wc -l)
if [ -s "$problems" ]; then
    LC_ALL=C sort -s -t: -k1,1 "$problems"
    echo "browsercheck: $(wc -l <"$problems") problem(s) in $n page(s) of $dir" >&2
    exit 1
fi
echo "browsercheck: $n page(s) of $dir pass${shots:+; screenshots in $shots}"
