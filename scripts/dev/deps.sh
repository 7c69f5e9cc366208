#!/bin/sh
# deps.sh -- installs the Debian 12 packages that build, weave and test the book (run as root).
# Quick and harmless when everything is installed: apt is asked only for what is missing.
set -eu
packages="make gcc libc6-dev noweb pandoc latexmk texlive-xetex texlive-latex-recommended texlive-latex-extra
texlive-fonts-recommended lmodern fonts-dejavu-core gnuplot-nox chromium poppler-utils"
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
