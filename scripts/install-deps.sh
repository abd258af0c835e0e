#!/usr/bin/env bash
# Installs the Debian packages the build needs; silent and quick when all are present.
set -euo pipefail

packages=(g++ make llvm-19-dev llvm-19-tools clang-19 libclang-rt-19-dev libre2-dev
          libgtest-dev libbenchmark-dev zlib1g-dev graphviz libopenblas-dev python3
          libopenmpi-dev openmpi-bin python3-dev)

missing=()
for p in "${packages[@]}"; do
  dpkg -s "$p" 2>/dev/null | grep '^Status: install ok installed' >/dev/null || missing+=("$p")
done
[ ${#missing[@]} -eq 0 ] && exit 0

echo "install-deps: installing ${missing[*]}"
sudo=
[ "$(id -u)" -eq 0 ] || sudo=sudo
$sudo apt-get update
$sudo env DEBIAN_FRONTEND=noninteractive apt-get install -y "${missing[@]}"
