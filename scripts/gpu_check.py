#!/usr/bin/env python3
"""The steps of scripts/gpu-check.sh: the GPU engine against the interpreter.

Make the bundle's corpus slice (modules the GPU backend compiles and the
interpreter runs, small enough to compare quickly):
    gpu_check.py --make-slice --corpus=DIR --expectations=FILE --out=DIR [--count=N] [--hlo-run=PATH]
Run the checks with an hlo-run, writing tables (TSV) and a summary to OUT:
    gpu_check.py --hlo-run=PATH --engine=gpu|gpu-host --ops=testdata/ops
                 --corpus=DIR --out=DIR [--timeout=SECONDS] [--bench]

  ops.tsv     every case of testdata/ops: `hlo-run --compare=interp` on its
              INPUT lines (an ERROR case must fail instead)
  corpus.tsv  every module of the slice: `hlo-run --compare=interp
              --random-seed=0`
  bench.tsv   (--bench) large modules timed by `hlo-run --iterations`, and by
              XLA on the same inputs when jax is installed (conformance/
              xla_oracle.py --bench: XLA:GPU where jax sees a GPU)
Outcomes: ok, disagree, cannot-compile (the engine refuses an op it does not
compile yet: counted apart), error, timeout. Needs only the standard library,
and numpy for --bench.
"""

import argparse
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time


def read_expectation_files(path):
    listed = set()
    if path and os.path.exists(path):
        for line in open(path):
            if line.startswith("#") or not line.strip():
                continue
            listed.add(line.split("\t")[0])
    return listed


def make_slice(args):
    """Every k-th module of visible/ under 6 KB that compiles for the GPU and
    is ok on the host grid runner: listed in none of the expectations of the
    GPU compile corpus, the host grid corpus, the interpreter corpus and the
    parse/verify corpus, and (with --hlo-run) that the interpreter runs on
    `--random-seed=0` inputs within 10 seconds."""
    folder = os.path.dirname(args.expectations)
    refused = read_expectation_files(args.expectations)
    for other in ("gpu_host_expectations.txt", "interp_expectations.txt", "corpus_expectations.txt"):
        refused |= read_expectation_files(os.path.join(folder, other))
    visible = os.path.join(args.corpus, "visible")
    names = sorted(n for n in os.listdir(visible) if n.endswith(".hlo"))
    fit = [n for n in names if "visible/" + n not in refused and os.path.getsize(os.path.join(visible, n)) < 6000]
    if args.hlo_run:
        runs = lambda n: run_hlo([args.hlo_run, "--engine=interp", "--random-seed=0", "--max-while-iterations=10000",
                                  os.path.join(visible, n)], 10)[0] == 0
    else:
        runs = lambda n: True
    step = max(1, len(fit) // args.count)
    chosen = [n for n in fit[::step] if runs(n)][: args.count]
    if os.path.isdir(args.out):
        shutil.rmtree(args.out)
    os.makedirs(args.out)
    for n in chosen:
        shutil.copy(os.path.join(visible, n), os.path.join(args.out, n))
    print(f"gpu_check: {len(chosen)} of {len(fit)} small modules the GPU compiles copied to {args.out}")


def op_cases(path):
    """(index, text, inputs, expects_error) of each case of an op file."""
    text = open(path).read()
    for i, case in enumerate(re.split(r"^// -----.*$", text, flags=re.M)):
        if "HloModule" not in case:
            continue
        inputs = re.findall(r"^// INPUT: (.*)$", case, flags=re.M)
        yield i, case, inputs, bool(re.search(r"^// ERROR:", case, flags=re.M))


def run_hlo(cmd, timeout):
    start = time.monotonic()
    try:
        p = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        return "timeout", "", time.monotonic() - start
    return p.returncode, p.stdout + p.stderr, time.monotonic() - start


def outcome_of(rc, output, expects_error=False):
    if rc == "timeout":
        return "timeout", ""
    last = " ".join(output.strip().splitlines()[-3:])[:400]
    if expects_error:
        return ("ok", "") if rc != 0 else ("error", "ran, but the case expects an error")
    if "cannot compile" in output:
        return "cannot-compile", last
    if rc == 0 and " agree" in output:
        return "ok", ""
    if "disagree" in output or "mismatch" in output:
        return "disagree", last
    return "error", last


def write_table(path, header, rows):
    with open(path, "w") as f:
        f.write("\t".join(header) + "\n")
        for r in rows:
            f.write("\t".join(str(x).replace("\t", " ").replace("\n", " ") for x in r) + "\n")


def summarize(name, rows):
    counts = {}
    for r in rows:
        counts[r[1]] = counts.get(r[1], 0) + 1
    line = f"{name}: " + ", ".join(f"{n} {k}" for k, n in sorted(counts.items()))
    print(line)
    return line


def run_ops(args, tmp):
    rows = []
    for name in sorted(os.listdir(args.ops)):
        if not name.endswith(".hlo"):
            continue
        for i, case, inputs, expects_error in op_cases(os.path.join(args.ops, name)):
            path = os.path.join(tmp, "case.hlo")
            with open(path, "w") as f:
                f.write(case)
            # One device, as the op cases are written (their ERROR cases are
            # collectives one device cannot run).
            cmd = [args.hlo_run, f"--engine={args.engine}", "--replicas=1", "--partitions=1", path]
            cmd += [f"--input={x}" for x in inputs]
            if not expects_error:
                cmd.append("--compare=interp")
            rc, out, seconds = run_hlo(cmd, args.timeout)
            outcome, detail = outcome_of(rc, out, expects_error)
            rows.append((f"{name}#{i}", outcome, f"{seconds:.2f}", detail))
    write_table(os.path.join(args.out, "ops.tsv"), ["case", "outcome", "seconds", "detail"], rows)
    return summarize("ops", rows)


def run_corpus(args):
    rows = []
    for name in sorted(os.listdir(args.corpus)):
        if not name.endswith(".hlo"):
            continue
        cmd = [args.hlo_run, f"--engine={args.engine}", "--compare=interp", "--random-seed=0",
               "--max-while-iterations=10000", os.path.join(args.corpus, name)]
        rc, out, seconds = run_hlo(cmd, args.timeout)
        outcome, detail = outcome_of(rc, out)
        rows.append((name, outcome, f"{seconds:.2f}", detail))
    write_table(os.path.join(args.out, "corpus.tsv"), ["module", "outcome", "seconds", "detail"], rows)
    return summarize("corpus", rows)


# Large modules for timing: (name, HLO text, parameter shapes).
def bench_modules():
    n = 1 << 24
    rows, cols = 4096, 4096
    add = "%add (a: f32[], b: f32[]) -> f32[] {\n  %a = f32[] parameter(0)\n  %b = f32[] parameter(1)\n  ROOT %s = f32[] add(%a, %b)\n}\n"
    mx = "%max (a: f32[], b: f32[]) -> f32[] {\n  %a = f32[] parameter(0)\n  %b = f32[] parameter(1)\n  ROOT %m = f32[] maximum(%a, %b)\n}\n"
    yield ("chain_16M", f"""HloModule chain
ENTRY %e (x: f32[{n}]) -> f32[{n}] {{
  %x = f32[{n}] parameter(0)
  %two = f32[] constant(2)
  %twos = f32[{n}] broadcast(%two), dimensions={{}}
  %m = f32[{n}] multiply(%x, %twos)
  %t = f32[{n}] tanh(%m)
  ROOT %y = f32[{n}] add(%t, %x)
}}
""", [(n,)])
    yield ("reduce_16M", f"""HloModule reduce
{add}
ENTRY %e (x: f32[{n}]) -> f32[] {{
  %x = f32[{n}] parameter(0)
  %z = f32[] constant(0)
  ROOT %s = f32[] reduce(%x, %z), dimensions={{0}}, to_apply=%add
}}
""", [(n,)])
    yield ("softmax_4096x4096", f"""HloModule softmax
{add}
{mx}
ENTRY %e (x: f32[{rows},{cols}]) -> f32[{rows},{cols}] {{
  %x = f32[{rows},{cols}] parameter(0)
  %ninf = f32[] constant(-inf)
  %rowmax = f32[{rows}] reduce(%x, %ninf), dimensions={{1}}, to_apply=%max
  %bmax = f32[{rows},{cols}] broadcast(%rowmax), dimensions={{0}}
  %d = f32[{rows},{cols}] subtract(%x, %bmax)
  %ex = f32[{rows},{cols}] exponential(%d)
  %z = f32[] constant(0)
  %sum = f32[{rows}] reduce(%ex, %z), dimensions={{1}}, to_apply=%add
  %bsum = f32[{rows},{cols}] broadcast(%sum), dimensions={{0}}
  ROOT %y = f32[{rows},{cols}] divide(%ex, %bsum)
}}
""", [(rows, cols)])
    yield ("transpose_4096x4096", f"""HloModule transpose
ENTRY %e (x: f32[{rows},{cols}]) -> f32[{cols},{rows}] {{
  %x = f32[{rows},{cols}] parameter(0)
  ROOT %t = f32[{cols},{rows}] transpose(%x), dimensions={{1,0}}
}}
""", [(rows, cols)])
    tall, narrow = 1 << 16, 256
    yield ("column_sum_65536x256", f"""HloModule column_sum
{add}
ENTRY %e (x: f32[{tall},{narrow}]) -> f32[{narrow}] {{
  %x = f32[{tall},{narrow}] parameter(0)
  %z = f32[] constant(0)
  ROOT %s = f32[{narrow}] reduce(%x, %z), dimensions={{0}}, to_apply=%add
}}
""", [(tall, narrow)])
    k = 2048
    yield ("dot_2048", f"""HloModule dot
ENTRY %e (a: f32[{k},{k}], b: f32[{k},{k}]) -> f32[{k},{k}] {{
  %a = f32[{k},{k}] parameter(0)
  %b = f32[{k},{k}] parameter(1)
  ROOT %d = f32[{k},{k}] dot(%a, %b), lhs_contracting_dims={{1}}, rhs_contracting_dims={{0}}
}}
""", [(k, k), (k, k)])


def run_bench(args, tmp):
    import numpy as np

    rows = []
    oracle = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "conformance", "xla_oracle.py")
    for name, text, shapes in bench_modules():
        path = os.path.join(tmp, name + ".hlo")
        with open(path, "w") as f:
            f.write(text)
        rng = np.random.default_rng(0)
        npz = os.path.join(tmp, name + ".npz")
        np.savez(npz, **{f"arg{i}": rng.uniform(-1, 1, s).astype(np.float32) for i, s in enumerate(shapes)})
        rc, out, _ = run_hlo([args.hlo_run, f"--engine={args.engine}", "--iterations=10", "--stats",
                              f"--input=@{npz}", "--output=" + os.path.join(tmp, "out.npz"), path], args.timeout * 4)
        m = re.search(r"iterations: min ([^,]+), median ([^;\n]+)", out)
        ours = m.group(2).strip() if m and rc == 0 else f"failed: {out.strip()[-200:]}"
        # gpu: the steps alone by CUDA events, and the copies' rates (--stats).
        d = re.search(r"on the device \(CUDA events\): min ([^,]+), median ([^\n]+)", out)
        device = d.group(2).strip() if d else ""
        up = re.search(r"bytes up in [^(]+\(([^)]+)\)", out)
        down = re.search(r"bytes down in [^(]+\(([^)]+)\)", out)
        copies = f"up {up.group(1)}, down {down.group(1)}" if up and down else ""
        rc, xout, _ = run_hlo([sys.executable, oracle, "--bench", path, npz, "--repeats=10"], args.timeout * 4)
        xla = xout.strip().splitlines()[-1] if xout.strip() else f"status {rc}"
        rows.append((name, ours, device, copies, xla))
    write_table(os.path.join(args.out, "bench.tsv"),
                ["module", "hlo-run median (with copies in and out)", "its steps on the device (median)",
                 "copies (last run)", "xla_oracle"], rows)
    for r in rows:
        print("bench:", *r)
    return f"bench: {len(rows)} modules"


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--make-slice", action="store_true")
    p.add_argument("--expectations")
    p.add_argument("--count", type=int, default=200)
    p.add_argument("--hlo-run")
    p.add_argument("--engine", default="gpu")
    p.add_argument("--ops")
    p.add_argument("--corpus")
    p.add_argument("--out", required=True)
    p.add_argument("--timeout", type=float, default=60)
    p.add_argument("--bench", action="store_true")
    args = p.parse_args()
    if args.make_slice:
        return make_slice(args)
    os.makedirs(args.out, exist_ok=True)
    lines = []
    with tempfile.TemporaryDirectory() as tmp:
        if args.ops:
            lines.append(run_ops(args, tmp))
        if args.corpus:
            lines.append(run_corpus(args))
        if args.bench:
            lines.append(run_bench(args, tmp))
    with open(os.path.join(args.out, "summary.txt"), "w") as f:
        f.write(f"engine {args.engine}\n" + "\n".join(lines) + "\n")


if __name__ == "__main__":
    sys.exit(main())
