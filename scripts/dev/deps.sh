#!/bin/sh
# deps.sh -- installs the Debian 12 packages that build, weave and test the book (run as root).
# Quick and harmless when everything is installed: apt is asked only for what is missing.
# `deps.sh --list` prints the packages, one a line (tests/deps.test checks every command against it).
# The CUDA toolkit is not a Debian package: install CUDA 13.0 from NVIDIA (README).
set -eu
packages="make gcc g++ binutils libc6-dev gawk noweb pandoc latexmk texlive-xetex texlive-binaries texlive-latex-recommended
texlive-latex-extra texlive-fonts-recommended lmodern fonts-dejavu-core gnuplot-nox chromium poppler-utils
libjs-lunr nodejs inotify-tools python3 python3-minimal chromium-driver python3-selenium"
[ "${1:-}" != --list ] || { printf '%s\n' $packages; exit 0; }
missing=""
for p in $packages; do
    dpkg-query -W -f='${Status}\n' "$p" 2>/dev/null | grep -q '^install ok installed$' || missing="$missing $p"
done
[ -n "$missing" ] || { echo "deps: all packages are installed"; exit 0; }
[ "$(id -u)" -eq 0 ] || { echo "deps: these packages are missing and installing them needs root:$missing" >&2; exit 1; }
echo "deps: installing$missing"
apt-get update -q
DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends $missing
command -v nvcc >/dev/null 2>&1 || echo "deps: note: nvcc (CUDA 13) is not on PATH; make programs and the compile tests need it" >&2
