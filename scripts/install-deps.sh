#!/usr/bin/env bash
# Installs the Debian packages the build needs; silent and quick when all are present.
set -euo pipefail

packages=(g++ make llvm-19-dev llvm-19-tools clang-19 libclang-rt-19-dev libre2-dev
          libgtest-dev libbenchmark-dev zlib1g-dev graphviz libopenblas-dev python3
          libopenmpi-dev openmpi-bin python3-dev)

# Wanted but not needed: the browser that hlo-opt --html's page is tested in
# (the test is reported unsupported without it).
optional=(chromium)

installed() { dpkg -s "$1" 2>/dev/null | grep '^Status: install ok installed' >/dev/null; }
missing=() wanted=()
for p in "${packages[@]}"; do installed "$p" || missing+=("$p"); done
for p in "${optional[@]}"; do installed "$p" || wanted+=("$p"); done
[ ${#missing[@]} -eq 0 ] && [ ${#wanted[@]} -eq 0 ] && exit 0

sudo=
[ "$(id -u)" -eq 0 ] || sudo=sudo
$sudo apt-get update || [ ${#missing[@]} -eq 0 ]
if [ ${#missing[@]} -gt 0 ]; then
  echo "install-deps: installing ${missing[*]}"
  $sudo env DEBIAN_FRONTEND=noninteractive apt-get install -y "${missing[@]}"
fi
for p in "${wanted[@]}"; do
  echo "install-deps: installing $p (optional)"
  $sudo env DEBIAN_FRONTEND=noninteractive apt-get install -y "$p" ||
    echo "install-deps: $p could not be installed; the tests that need it are reported unsupported"
done
