#!/bin/sh
# wrap-tools.sh -- puts logging wrappers for some tools in a folder, to count how often a build starts them.
#   scripts/dev/wrap-tools.sh DIR LOG TOOL...   then run the build with PATH=DIR:$PATH; LOG gets one line per start
set -eu
dir=$1 log=$2
shift 2
mkdir -p "$dir"
for tool in "$@"; do
    real=$(command -v "$tool") || { echo "wrap-tools: $tool is not installed (make deps)" >&2; exit 1; }
    printf '#!/bin/sh\necho %s >>"%s"\nexec "%s" "$@"\n' "$tool" "$log" "$real" >"$dir/$tool"
    chmod +x "$dir/$tool"
done
