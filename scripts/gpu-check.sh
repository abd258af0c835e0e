#!/usr/bin/env bash
# The GPU check: the GPU engine against the interpreter on the op cases and
# a corpus slice, then large modules timed beside XLA (scripts/gpu_check.py).
#
# Where there is a GPU (a CUDA driver, nvidia-smi) and the bundle of
# `make gpu-bundle` (a self-contained hlo-run, libdevice, the slice: carry
# build/gpu-bundle): runs there with --engine=gpu and writes the tables to
# $OUT (else build/gpu-check). Elsewhere: builds the bundle, reports its size,
# and runs the same steps with the bundle's hlo-run on the host grid runner
# (--engine=gpu-host), which checks everything but the device itself.
#
# Usage: scripts/gpu-check.sh   (from the repository root)
set -euo pipefail

out=${OUT:-build/gpu-check}
bundle=build/gpu-bundle
mkdir -p "$out"

if command -v nvidia-smi >/dev/null && nvidia-smi -L >/dev/null 2>&1; then
  [ -f "$bundle/hlo-run.xz" ] || { echo "gpu-check: no $bundle/hlo-run.xz: run make gpu-bundle where LLVM is, and carry $bundle" >&2; exit 1; }
  work=$(mktemp -d)
  xz -dc "$bundle/hlo-run.xz" > "$work/hlo-run"
  chmod +x "$work/hlo-run"
  export HLO_LIBDEVICE=$PWD/$bundle/libdevice.10.bc
  # cuBLAS for large dots: jax's CUDA wheels hold one where no toolkit is installed.
  if [ -z "${HLO_CUBLAS:-}" ]; then
    cublas=$(python3 -c 'import glob, os, site
for d in site.getsitepackages():
    found = sorted(glob.glob(os.path.join(d, "nvidia", "**", "libcublas.so.1[23]"), recursive=True))
    if found:
        print(found[-1])
        break' 2>/dev/null || true)
    if [ -n "$cublas" ]; then export HLO_CUBLAS=$cublas; fi
  fi
  nvidia-smi -L | tee "$out/device.txt"
  "$work/hlo-run" --engine=gpu --compare=interp --verbose --stats testdata/examples/reduce_sum.hlo 2>&1 | tee "$out/first-run.txt" || true
  python3 scripts/gpu_check.py --hlo-run="$work/hlo-run" --engine=gpu --ops=testdata/ops --corpus="$bundle/corpus" \
    --out="$out" --timeout=60 --bench
else
  echo "gpu-check: no GPU here; building the bundle and running the steps on the host grid runner (--engine=gpu-host)"
  make gpu-bundle
  python3 scripts/gpu_check.py --hlo-run=build/gpu-bundle-work/hlo-run --engine=gpu-host --ops=testdata/ops \
    --corpus="$bundle/corpus" --out="$out" --timeout=60
fi
cat "$out/summary.txt"
