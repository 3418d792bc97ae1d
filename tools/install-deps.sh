#!/bin/sh
# install-deps.sh PACKAGE...: install the Debian packages that are missing.
# Needs root (or sudo) only when something is missing. Before installing,
# it names every installed package the install would remove (one that
# conflicts with a package being installed: libomp-22-dev removes
# libomp-dev) or replace by another version, from apt-get's simulation.
set -eu
missing=""
for p in "$@"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" ||
        missing="$missing $p"
done
[ -z "$missing" ] && exit 0
echo "installing Debian packages:$missing"
if [ "$(id -u)" -eq 0 ]; then
    sudo=""
elif command -v sudo >/dev/null 2>&1; then
    sudo="sudo"
else
    echo "install-deps: need root to install:$missing" >&2
    exit 1
fi
export DEBIAN_FRONTEND=noninteractive
$sudo apt-get update -q
# shellcheck disable=SC2086
plan=$(apt-get install -s -q --no-install-recommends $missing) ||
    { echo "$plan"; echo "install-deps: apt-get cannot install:$missing" >&2; exit 1; }
# "Remv PKG [VERSION]" and "Inst PKG [OLD] (NEW ...)" in the simulation
removed=$(echo "$plan" | awk '$1 == "Remv" { printf " %s", $2 }')
replaced=$(echo "$plan" | awk '$1 == "Inst" && $3 ~ /^\[/ {
    old = substr($3, 2, length($3) - 2); new = substr($4, 2)
    printf " %s (%s -> %s)", $2, old, new }')
[ -z "$removed" ] ||
    echo "install-deps: installing$missing REMOVES these installed packages:$removed"
[ -z "$replaced" ] ||
    echo "install-deps: installing$missing replaces these installed packages' versions:$replaced"
# shellcheck disable=SC2086
$sudo apt-get install -y -q --no-install-recommends $missing
