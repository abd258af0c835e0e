#!/usr/bin/env python3
"""Runs HLO modules on XLA itself (XLA:CPU from jaxlib): the oracle for our interpreter.

One module:
    xla_oracle.py MODULE.hlo INPUTS.npz OUTPUTS.npz
Timing (make bench-xla): compile three times (C the fastest: a busy machine
only adds time), run a warm-up and then REPEATS runs on inputs already on
the device; prints `ok compile_s=C run_s=R` (R the median run) or the
outcome as below:
    xla_oracle.py --bench MODULE.hlo INPUTS.npz [--repeats=N]
Many modules, one Python process importing jax once:
    xla_oracle.py --batch JOBS.tsv RESULTS.tsv [--timeout=SECONDS] [--jobs=N] [--log=FILE]

The module text goes through jaxlib's own HLO parser (hlo_module_from_text),
becomes an XlaComputation, then a StableHLO module, which XLA:CPU compiles and
runs on the arrays of INPUTS.npz (one member per ENTRY parameter, in parameter
order; member names do not matter). OUTPUTS.npz gets the result arrays named
as `hlo-run --output` names them: 'result' for an array, 'result.0',
'result.1.0', ... for the elements of a tuple (tokens have no array).

Outcome of one module, printed (one module) or written to RESULTS.tsv (batch):
    ok                the outputs were written
    refused           XLA did not accept the module; the detail is XLA's message
                      and the stage: parse, convert (to StableHLO) or compile
    error             XLA accepted it but running it failed
    unsupported       the oracle cannot run it: a tuple, token or dynamic-size
                      parameter, a dynamic-size result, inputs that do not
                      match the parameters, or infeed, outfeed, send or recv
                      (which wait for the host)
    timeout, crash    (batch) the module used more than --timeout seconds of
                      CPU time (the worker's threads together, so that a loaded
                      machine does not turn a slow module into a timeout; where
                      /proc does not tell, wall time; and any worker still busy
                      after 10 times as long in wall time), or killed the worker
                      process
One module exits 0 for ok, 1 otherwise.

JOBS.tsv: one line per module, MODULE <TAB> INPUTS.npz <TAB> OUTPUTS.npz.
RESULTS.tsv: one line per job, written as each finishes, MODULE <TAB> OUTCOME
<TAB> DETAIL (the detail on one line); SIGTERM or SIGINT stops the batch
with the results so far (exit status 0). Each module runs in a worker process (--jobs of
them) that is replaced after a timeout or a crash, so one bad module costs
only itself. XLA aborts on some modules it does not accept (a failed internal
check): a crash or timeout before the run stage counts as refused, with the
last message the worker wrote to its log (--log=FILE: worker N writes FILE.N).
"""

import os
import re
import select
import signal
import subprocess
import sys
import time


def one_line(text, limit=600):
    text = " ".join(str(text).split())
    return text if len(text) <= limit else text[: limit - 3] + "..."


class Oracle:
    """Compiles and runs modules; imports jax once."""

    def __init__(self):
        import jax
        import numpy
        from jax._src.lib import _jax, xla_client
        from jaxlib import _hlo

        self.np = numpy
        self.jax = jax
        self._jax = _jax
        self.xc = xla_client
        self.hlo = _hlo
        self.device = jax.devices("cpu")[0]
        op = _hlo.HloOpcode
        self.host_transfers = {op.kInfeed, op.kOutfeed, op.kRecv, op.kRecvDone, op.kSend, op.kSendDone}

    def leaf_names(self, shape, name, out):
        """hlo-run's names for the arrays of a value of `shape`, in order; a
        token, which XLA returns too but hlo-run does not write, gets None."""
        if shape.is_tuple():
            for i, element in enumerate(shape.tuple_shapes()):
                self.leaf_names(element, "%s.%d" % (name, i), out)
        else:
            out.append((name if shape.is_array() else None, shape))

    def run(self, module_path, inputs_path, outputs_path, stage=lambda name: None, repeats=0):
        """Returns (outcome, detail); calls stage(name) as it enters each stage.
        With repeats > 0 nothing is written: the detail holds the compile time
        and the median of `repeats` timed runs (after one warm-up run)."""
        np, xc = self.np, self.xc
        try:
            with open(module_path, encoding="utf-8", errors="replace") as f:
                text = f.read()
        except OSError as e:
            return "error", "cannot read %s: %s" % (module_path, e.strerror)
        stage("parse")
        try:
            module = self.hlo.hlo_module_from_text(text)
        except Exception as e:  # XLA reports errors as exceptions of its own types
            return "refused", "parse: " + one_line(e)
        # These wait for the host to feed or drain them, which never happens here.
        for comp in module.computations():
            for instr in comp.instructions():
                if instr.opcode in self.host_transfers:
                    return "unsupported", "%s needs a host transfer that the oracle does not make" % (
                        str(instr.opcode)[len("HloOpcode.k"):].lower())
        try:
            computation = xc.XlaComputation(module.as_serialized_hlo_module_proto())
            program = computation.program_shape()
        except Exception as e:
            return "refused", "convert: " + one_line(e)
        params = program.parameter_shapes()
        for i, shape in enumerate(params):
            if not shape.is_array():
                kind = "tuple" if shape.is_tuple() else "token"
                return "unsupported", "parameter %d is a %s (%s)" % (i, kind, shape)
            if "<=" in str(shape):
                return "unsupported", "parameter %d has dynamic dimensions (%s)" % (i, shape)
        if "<=" in str(program.result_shape()):
            return "unsupported", "the result has dynamic dimensions (%s), whose padding XLA leaves undefined" % (
                program.result_shape())
        try:
            with np.load(inputs_path) as archive:
                arrays = [archive[name] for name in archive.files]
        except Exception as e:
            return "error", "cannot read %s: %s" % (inputs_path, one_line(e))
        if len(arrays) != len(params):
            return "unsupported", "%s holds %d arrays for %d parameters" % (
                inputs_path, len(arrays), len(params))
        args = []
        for i, (array, shape) in enumerate(zip(arrays, params)):
            dtype = shape.numpy_dtype()
            if array.dtype != dtype:
                # numpy.save writes the ml_dtypes types (bfloat16, float8...) as raw bytes.
                if array.dtype.kind == "V" and array.dtype.itemsize == dtype.itemsize:
                    array = array.view(dtype)
                else:
                    return "unsupported", "input %d is %s but parameter %d is %s" % (
                        i, array.dtype, i, shape)
            if tuple(array.shape) != tuple(shape.dimensions()):
                return "unsupported", "input %d has shape %s but parameter %d is %s" % (
                    i, array.shape, i, shape)
            args.append(array)
        stage("convert")
        try:
            mlir = self._jax.mlir.xla_computation_to_mlir_module(computation)
        except Exception as e:
            return "refused", "convert: " + one_line(e)
        stage("compile")
        compile_seconds = None
        for _ in range(3 if repeats > 0 else 1):
            compile_start = time.perf_counter()
            try:
                executable = self.device.client.compile_and_load(
                    mlir, executable_devices=self._jax.DeviceList((self.device,)),
                    compile_options=xc.CompileOptions())
            except Exception as e:
                return "refused", "compile: " + one_line(e)
            took = time.perf_counter() - compile_start
            compile_seconds = took if compile_seconds is None else min(compile_seconds, took)
        stage("run")
        try:
            with self.jax.enable_x64(True):  # else device_put makes 64-bit arrays 32-bit
                buffers = [self.jax.device_put(a, self.device) for a in args]
            if repeats > 0:
                return "ok", "compile_s=%.6g run_s=%.6g" % (compile_seconds, self.median_run(executable, buffers, repeats))
            results = executable.execute(buffers)
            names = []
            self.leaf_names(program.result_shape(), "result", names)
            if len(results) != len(names):
                return "error", "XLA returned %d values for a result with %d" % (len(results), len(names))
            results = [None if name is None else np.asarray(r) for (name, _), r in zip(names, results)]
        except Exception as e:
            return "error", "run: " + one_line(e)
        out = {}
        for (name, shape), value in zip(names, results):
            if name is None:
                continue
            if tuple(value.shape) != tuple(shape.dimensions()):
                return "error", "XLA returned %s for %s %s" % (value.shape, name, shape)
            out[name] = value
        try:
            np.savez(outputs_path, **out)
        except Exception as e:
            return "error", "cannot write %s: %s" % (outputs_path, one_line(e))
        return "ok", ""


    def median_run(self, executable, buffers, repeats):
        """Median seconds of `repeats` runs, each waited for, after a warm-up."""
        def once():
            start = time.perf_counter()
            for r in executable.execute(buffers):
                r.block_until_ready()
            return time.perf_counter() - start
        once()
        times = sorted(once() for _ in range(repeats))
        return times[(len(times) - 1) // 2]


def worker():
    """Answers jobs read from stdin, one result line each on stdout."""
    protocol = os.fdopen(os.dup(sys.stdout.fileno()), "w")
    os.dup2(sys.stderr.fileno(), sys.stdout.fileno())  # stray prints go to the log
    oracle = Oracle()
    protocol.write("ready\n")
    protocol.flush()

    def stage(name):  # "@compile": what a crash or timeout happened in
        protocol.write("@%s\n" % name)
        protocol.flush()
    for line in sys.stdin:
        module, inputs, outputs = line.rstrip("\n").split("\t")
        print("xla_oracle: " + module, file=sys.stderr, flush=True)
        try:
            outcome, detail = oracle.run(module, inputs, outputs, stage)
        except Exception as e:
            outcome, detail = "error", "oracle: " + one_line(e)
        protocol.write("%s\t%s\n" % (outcome, one_line(detail)))
        protocol.flush()


class Worker:
    """A worker process, started on demand and replaced when it fails.

    Its standard error goes to its own log file, whose last lines explain a
    crash (XLA aborts on a failed internal check with a message there).
    """

    def __init__(self, log_path):
        self.log_path = log_path
        self.log = open(log_path, "w") if log_path else None
        self.proc = None

    def start(self):
        self.proc = subprocess.Popen(
            [sys.executable, os.path.abspath(__file__), "--worker"],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE,
            stderr=self.log if self.log else subprocess.DEVNULL, text=True, bufsize=1)
        self.pending = b""
        deadline = time.monotonic() + 600
        line = None
        while line is None and time.monotonic() < deadline:
            select.select([self.proc.stdout], [], [], 1)
            line = self.read_line()
        if line != "ready":
            self.stop()
            raise RuntimeError("the oracle worker did not start (is jax installed? see %s)"
                               % (self.log_path or "its standard error"))

    def stop(self):
        if self.proc:
            self.proc.kill()
            self.proc.wait()
            self.proc = None

    def send(self, job):
        if not self.proc:
            self.start()
        self.log_offset = os.path.getsize(self.log_path) if self.log else 0
        self.proc.stdin.write("\t".join(job) + "\n")
        self.proc.stdin.flush()
        self.started = time.monotonic()
        self.cpu_started = self.cpu_seconds()
        self.stage = "start"

    def cpu_seconds(self):
        """The worker's user and system time so far, all threads together;
        None where /proc does not say."""
        try:
            with open("/proc/%d/stat" % self.proc.pid) as stat:
                fields = stat.read().rsplit(")", 1)[1].split()  # after the command name
            return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
        except (OSError, ValueError, IndexError):
            return None

    def out_of_time(self, timeout):
        """Why the job is out of time, or None. Its budget is CPU time, as the
        interpreter's side has it: the wall time a job takes grows with the
        machine's load, its CPU time does not. It must also have run
        `timeout` in wall time (XLA's threads on a many-core machine can use
        CPU time faster), and a worker that uses no CPU time (stuck waiting)
        stops at 10 times that."""
        wall = time.monotonic() - self.started
        if wall <= timeout:
            return None
        cpu = self.cpu_seconds()
        if cpu is None or self.cpu_started is None:
            return "no result after %g s" % timeout
        if cpu - self.cpu_started > timeout:
            return "no result after %g s of CPU time" % timeout
        if wall > 10 * timeout:
            return "no result after %g s, using %.3g s of CPU time" % (wall, cpu - self.cpu_started)
        return None

    def last_message(self):
        """The last line the worker wrote to its log during this job."""
        if not self.log:
            return ""
        with open(self.log_path, errors="replace") as log:
            log.seek(self.log_offset)
            lines = [line.strip() for line in log.read().splitlines()
                     if line.strip() and not line.startswith("xla_oracle: ")]
        checks = [line for line in lines if "Check failed" in line]
        message = (checks or lines or [""])[-1]
        # Without the log prefix "F1122 07:06:39.634705 6777 " (severity, date, time, thread).
        return one_line(re.sub(r"^[FEWI]\d{4} [\d:.]+ +\d+ ", "", message), 300)

    def failed(self, outcome, why):
        """The outcome of a job that killed the worker or ran out of time: a
        failure before running is XLA refusing the module."""
        if self.stage in ("parse", "convert", "compile"):
            return "refused", "%s: %s" % (self.stage, why)
        return outcome, "%s (during %s)" % (why, self.stage)

    def read_line(self):
        """The next whole line from the worker without blocking: None when there
        is none yet, "" at end of file. Reads the pipe's descriptor directly, so
        that no line hides in a buffer that select() cannot see."""
        while b"\n" not in self.pending:
            if not select.select([self.proc.stdout], [], [], 0)[0]:
                return None
            chunk = os.read(self.proc.stdout.fileno(), 65536)
            if not chunk:
                return ""
            self.pending += chunk
        line, self.pending = self.pending.split(b"\n", 1)
        return line.decode("utf-8", "replace")

    def poll(self, timeout):
        """(outcome, detail) once the job is done; None while it runs."""
        while True:
            line = self.read_line()
            if line is None:
                break
            if line.startswith("@"):
                self.stage = line[1:].strip()
                continue
            if line:
                outcome, _, detail = line.partition("\t")
                return outcome, detail
            code = self.proc.wait()
            self.proc = None
            message = self.last_message()
            why = ("XLA crashed (signal %d)" % -code) if code < 0 else ("the worker exited with status %d" % code)
            return self.failed("crash", why + (": " + message if message else ""))
        why = self.out_of_time(timeout)
        if why:
            self.stop()
            return self.failed("timeout", why)
        return None


class Stop(Exception):
    """SIGTERM or SIGINT: stop after the results so far."""


def batch(jobs_path, results_path, timeout, jobs, log_path):
    with open(jobs_path, encoding="utf-8") as f:
        todo = [line.rstrip("\n").split("\t") for line in f if line.strip()]
    for job in todo:
        if len(job) != 3:
            sys.exit("xla_oracle: %s: expected MODULE<TAB>INPUTS<TAB>OUTPUTS, got %r" % (jobs_path, job))

    def stop(signum, frame):
        raise Stop()
    signal.signal(signal.SIGTERM, stop)
    signal.signal(signal.SIGINT, stop)
    workers = [Worker("%s.%d" % (log_path, w) if log_path else "")
               for w in range(max(1, min(jobs, len(todo))))]
    busy = {}  # worker index -> job index
    next_job = 0
    counts = {}
    done = 0
    with open(results_path, "w", encoding="utf-8") as out:
        try:
            while done < len(todo):
                for w, worker_ in enumerate(workers):
                    if w not in busy and next_job < len(todo):
                        worker_.send(todo[next_job])
                        busy[w] = next_job
                        next_job += 1
                pipes = [workers[w].proc.stdout for w in busy if workers[w].proc]
                select.select(pipes, [], [], 0.5)
                for w in list(busy):
                    result = workers[w].poll(timeout)
                    if result is not None:
                        outcome, detail = result
                        out.write("%s\t%s\t%s\n" % (todo[busy.pop(w)][0], outcome, one_line(detail)))
                        out.flush()
                        counts[outcome] = counts.get(outcome, 0) + 1
                        done += 1
        except Stop:
            print("xla_oracle: stopped after %d of %d modules" % (done, len(todo)))
        finally:
            for worker_ in workers:
                worker_.stop()
    print("xla_oracle: %d modules: %s" % (done, ", ".join(
        "%d %s" % (n, o) for o, n in sorted(counts.items(), key=lambda kv: -kv[1]))))


USAGE = """usage: xla_oracle.py MODULE.hlo INPUTS.npz OUTPUTS.npz
       xla_oracle.py --batch JOBS.tsv RESULTS.tsv [--timeout=SECONDS] [--jobs=N] [--log=FILE]
       xla_oracle.py --bench MODULE.hlo INPUTS.npz [--repeats=N]
(run it with the Python of `make xla-env`, which has jax and jaxlib, or of
`make xla-env-latest`, the newest jax)"""


def main(argv):
    if argv[:1] == ["--worker"]:
        worker()
        return 0
    options = {"timeout": "120", "jobs": "1", "log": "", "repeats": "10"}
    positional = []
    for arg in argv:
        if arg in ("-h", "--help"):
            print(USAGE)
            return 0
        if arg.startswith("--") and "=" in arg and arg[2:arg.index("=")] in options:
            options[arg[2:arg.index("=")]] = arg[arg.index("=") + 1:]
        elif arg in ("--batch", "--bench") or not arg.startswith("-"):
            positional.append(arg)
        else:
            print("xla_oracle: unknown option %s\n%s" % (arg, USAGE), file=sys.stderr)
            return 2
    try:
        timeout, jobs = float(options["timeout"]), int(options["jobs"])
    except ValueError:
        print("xla_oracle: --timeout and --jobs take numbers\n" + USAGE, file=sys.stderr)
        return 2
    if positional[:1] == ["--batch"] and len(positional) == 3:
        try:
            batch(positional[1], positional[2], timeout, jobs, options["log"])
        except (OSError, RuntimeError) as e:
            print("xla_oracle: %s" % e, file=sys.stderr)
            return 1
        return 0
    if positional[:1] == ["--bench"] and len(positional) == 3:
        try:
            oracle = Oracle()
            repeats = int(options["repeats"])
        except (ImportError, ValueError) as e:
            print("xla_oracle: %s" % e, file=sys.stderr)
            return 1
        outcome, detail = oracle.run(positional[1], positional[2], None, repeats=max(repeats, 1))
        print(outcome + (" " + detail if detail else ""))
        return 0 if outcome == "ok" else 1
    if len(positional) != 3 or "--batch" in positional or "--bench" in positional:
        print(USAGE, file=sys.stderr)
        return 2
    try:
        oracle = Oracle()
    except ImportError as e:
        print("xla_oracle: cannot import jax (%s); run `make xla-env` and use its Python" % e,
              file=sys.stderr)
        return 1
    outcome, detail = oracle.run(*positional)
    print(outcome + (": " + detail if detail else ""))
    return 0 if outcome == "ok" else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
