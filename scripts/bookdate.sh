#!/bin/sh
# bookdate.sh -- the book's date: SOURCE_DATE_EPOCH when set, else the last commit's, else 1970.
#   scripts/bookdate.sh      prints it as YYYY-MM-DD (for the title page)
#   scripts/bookdate.sh -e   prints it as seconds since the epoch (for TeX)
set -eu
epoch=${SOURCE_DATE_EPOCH:-$(git log -1 --format=%ct 2>/dev/null || echo 0)}
case ${1:-} in
-e) echo "$epoch" ;;
*) date -u -d "@$epoch" +%Y-%m-%d ;;
esac
