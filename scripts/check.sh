#!/usr/bin/env bash
# Runs every test suite (unit tests, lit, corpus, corpus through the interpreter, passes over the corpus, the JIT over the corpus, the JIT on random modules), then prints one line "N passed, N failed[, N skipped]".
# Usage: scripts/check.sh BUILD_DIR CORPUS_DIR   (from the repository root; make check calls it)
set -uo pipefail

build=${1:-build}
corpus=${2:-../shared/corpus}
bin=$build/bin
export HLO_BIN_DIR=${HLO_BIN_DIR:-$PWD/$bin}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-halt_on_error=1:print_stacktrace=1}
lit=${LIT:-/usr/lib/llvm-19/build/utils/lit/lit.py}
logs=$build/check
mkdir -p "$logs" "$build/lit"
passed=0 failed=0 skipped=0

# run NAME CMD...: runs a suite, shows its output and keeps it in $logs/NAME.log; returns its status.
run() {
  local name=$1; shift
  echo "==> $name: $*"
  "$@" 2>&1 | tee "$logs/$name.log"
  return "${PIPESTATUS[0]}"
}

# num REGEX NAME: the number captured by the last line of NAME.log matching REGEX (extended), else 0.
num() {
  local n
  n=$(sed -nE "s/$1/\1/p" "$logs/$2.log" | tail -n1)
  echo "${n:-0}"
}

# crashed NAME STATUS FAILED: a suite that exits non-zero without reporting a failure counts as one.
crashed() {
  if [ "$2" -ne 0 ] && [ "$3" -eq 0 ]; then
    echo "check: $1 exited with status $2 without reporting a failure; counted as 1 failed"
    failed=$((failed + 1))
  fi
}

# add_summary SUITE PROGRAM STATUS: adds in the last "SUITE: N passed, N failed, N skipped" line of
# SUITE.log; a program that printed none counts as 1 failed.
add_summary() {
  local suite=$1 program=$2 rc=$3 line p f s
  line=$(grep -E "^$suite: [0-9]+ passed, [0-9]+ failed, [0-9]+ skipped\$" "$logs/$suite.log" | tail -n1)
  if [ -z "$line" ]; then
    echo "check: $program printed no '$suite: ...' summary (status $rc); counted as 1 failed"
    failed=$((failed + 1))
    return
  fi
  read -r p f s <<<"$(sed -E "s/^$suite: ([0-9]+) passed, ([0-9]+) failed, ([0-9]+) skipped\$/\1 \2 \3/" <<<"$line")"
  passed=$((passed + p)) failed=$((failed + f)) skipped=$((skipped + s))
  crashed "$program" "$rc" "$f"
}

# a) GoogleTest unit tests.
if [ -x "$bin/unit-tests" ]; then
  run unit-tests "$bin/unit-tests" --gtest_color=no; rc=$?
  p=$(num '^\[  PASSED  \] ([0-9]+) tests?\..*' unit-tests)
  f=$(num '^\[  FAILED  \] ([0-9]+) tests?, listed below.*' unit-tests)
  s=$(num '^\[  SKIPPED \] ([0-9]+) tests?, listed below.*' unit-tests)
  d=$(num '^ *YOU HAVE ([0-9]+) DISABLED TESTS?.*' unit-tests)
  passed=$((passed + p)) failed=$((failed + f)) skipped=$((skipped + s + d))
  crashed unit-tests "$rc" "$f"
else
  echo "check: $bin/unit-tests not built; counted as 1 failed"
  failed=$((failed + 1))
fi

# b) lit + FileCheck tests under testdata/lit/.
if [ -f "$lit" ] || command -v "$lit" >/dev/null; then
  [ -f "$lit" ] && lit_cmd=(python3 "$lit") || lit_cmd=("$lit")
  run lit "${lit_cmd[@]}" -sv --no-progress-bar testdata; rc=$?
  label() { num "^  $1 *: *([0-9]+) .*" lit; }
  p=$(( $(label Passed) + $(label 'Passed With Retry') + $(label 'Expectedly Failed') ))
  f=$(( $(label Failed) + $(label 'Unexpectedly Passed') + $(label Unresolved) + $(label 'Timed Out') ))
  s=$(( $(label Unsupported) + $(label Skipped) ))
  passed=$((passed + p)) failed=$((failed + f)) skipped=$((skipped + s))
  grep -q 'did not discover any tests' "$logs/lit.log" || crashed lit "$rc" "$f"
else
  echo "check: lit not found at $lit: lit tests skipped"
  skipped=$((skipped + 1))
fi

# c) The XLA corpus: its program prints "corpus: N passed, N failed, N skipped" last.
if [ ! -d "$corpus" ]; then
  echo "corpus not found at $corpus: corpus checks skipped"
  skipped=$((skipped + 1))
elif [ -x "$bin/hlo-corpus-check" ]; then
  args=(--corpus="$corpus/xla")
  [ -f conformance/corpus_expectations.txt ] && args+=(--expectations=conformance/corpus_expectations.txt)
  run corpus "$bin/hlo-corpus-check" "${args[@]}"; rc=$?
  add_summary corpus hlo-corpus-check "$rc"
else
  echo "check: $bin/hlo-corpus-check not built yet; corpus suite not run"
fi

# A corpus program run in child processes: SUITE PROGRAM EXPECTATIONS WHAT [ARGS...].
# It prints "SUITE: N passed, N failed, N skipped" last; that line is added in.
corpus_suite() {
  local suite=$1 program=$2 expectations=$3 what=$4
  shift 4
  if [ ! -d "$corpus" ]; then
    echo "corpus not found at $corpus: $what run skipped"
    skipped=$((skipped + 1))
    return
  fi
  if [ ! -x "$bin/$program" ]; then
    echo "check: $bin/$program not built yet; $what suite not run"
    return
  fi
  local args=(--corpus="$corpus/xla" "$@") rc
  [ -f "$expectations" ] && args+=(--expectations="$expectations")
  run "$suite" "$bin/$program" "${args[@]}"; rc=$?
  add_summary "$suite" "$program" "$rc"
}

# d) The corpus through the interpreter.
corpus_suite interp-corpus hlo-interp-corpus conformance/interp_expectations.txt "interpreter corpus"
# e) Every pass, and the cpu pipeline, over the corpus: the interpreter's
#    result must not change.
corpus_suite pass-corpus hlo-pass-corpus conformance/pass_expectations.txt "pass corpus"
# f) The corpus through the CPU JIT, compared with the interpreter; through
#    the GPU backend's kernels on the host grid runner, compared with the
#    interpreter; and compiled for the GPU, its PTX assembled by the CUDA
#    toolkit's ptxas (no GPU needed; skipped where the toolkit is absent).
corpus_suite jit-corpus hlo-jit-corpus conformance/jit_expectations.txt "JIT corpus"
corpus_suite gpu-host-corpus hlo-jit-corpus conformance/gpu_host_expectations.txt "GPU host grid corpus" --engine=gpu-host
if command -v ptxas >/dev/null || [ -x /usr/local/cuda/bin/ptxas ]; then
  corpus_suite gpu-compile-corpus hlo-jit-corpus conformance/gpu_compile_expectations.txt "GPU compile corpus" --engine=gpu
else
  echo "check: no ptxas (the CUDA toolkit) on PATH or in /usr/local/cuda/bin: GPU compile corpus skipped"
  skipped=$((skipped + 1))
fi

# g) Differential fuzzing (hlo-fuzz, a fixed range of seeds: the same
#    modules every run): modules over every opcode and element type
#    against the CPU JIT, the GPU's kernels on the host grid runner, the cpu
#    pipeline and each pass alone; the chains generator against the CPU JIT
#    and the GPU's kernels; then the shapes bad and big input takes: a
#    declared `?` dimension in each seed's module, and chains of thousands
#    of dependent ops.
if [ -x "$bin/hlo-fuzz" ]; then
  fuzz() {  # SUITE ARGS...
    local suite=$1; shift
    run "$suite" "$bin/hlo-fuzz" --jobs=2 "$@"; rc=$?
    add_summary "$suite" hlo-fuzz "$rc"
  }
  fuzz fuzz-ops-cpu --seeds=0:1500 --oracle=cpu
  fuzz fuzz-ops-gpu-host --seeds=0:500 --oracle=gpu-host
  fuzz fuzz-ops-pipeline --seeds=0:1500 --oracle=pipeline
  fuzz fuzz-ops-passes --seeds=0:500 --oracle=passes
  fuzz fuzz-chains-cpu --generator=chains --seeds=0:400
  fuzz fuzz-chains-gpu-host --generator=chains --seeds=0:400 --oracle=gpu-host
  fuzz fuzz-unbounded-cpu --generator=chains --mutate=unbounded --seeds=0:200
  fuzz fuzz-deep-cpu --generator=chains --mutate=deep --seeds=0:6
else
  echo "check: $bin/hlo-fuzz not built yet; fuzzing not run"
fi

# h) The Python package (python/tests, pytest on build/venv's Python), where
#    make built it: not under sanitizers, nor without build/venv.
py_ext=${PYTHON_EXT-$build/python/hlo/_native.so}
venv_python=$build/venv/bin/python
if [ -z "$py_ext" ]; then
  echo "check: the Python package is not built under sanitizers: its tests skipped"
  skipped=$((skipped + 1))
elif [ ! -x "$venv_python" ] || ! "$venv_python" -c 'import pytest, numpy, ml_dtypes' 2>/dev/null; then
  echo "check: no $build/venv with pytest, numpy and ml_dtypes (PyPI unreachable?): Python package tests skipped"
  skipped=$((skipped + 1))
elif [ ! -f "$py_ext" ]; then
  echo "check: $py_ext not built; counted as 1 failed"
  failed=$((failed + 1))
else
  run python env PYTHONPATH="$(dirname "$(dirname "$py_ext")")" "$venv_python" -m pytest -q -rs -p no:cacheprovider python/tests; rc=$?
  # pytest's last line: "N passed, N skipped in 1.23s" (each count only when not 0).
  last=$(grep -E ' in [0-9.]+s' "$logs/python.log" | tail -n1)
  count() { local n; n=$(grep -oE "[0-9]+ $1" <<<"$last" | grep -oE '^[0-9]+'); echo "${n:-0}"; }
  p=$(count passed) f=$(( $(count failed) + $(count 'errors?') )) s=$(( $(count skipped) + $(count xfailed) ))
  passed=$((passed + p)) failed=$((failed + f)) skipped=$((skipped + s))
  crashed "pytest" "$rc" "$f"
fi

# i) The tutorial's commands (docs/tutorial), run as the pages show them and
#    their output compared with the pages. The pages name build/bin, so
#    other builds (sanitizers: build-san) skip them.
if [ "$build" != build ]; then
  echo "check: the tutorial's commands name build/bin: skipped for $build"
  skipped=$((skipped + 1))
else
  run docs python3 scripts/doc_commands.py docs/tutorial; rc=$?
  add_summary docs doc_commands.py "$rc"
fi

summary="$passed passed, $failed failed"
[ "$skipped" -gt 0 ] && summary+=", $skipped skipped"
echo "$summary"
[ "$failed" -eq 0 ]
