# lit configuration for the "hlo" suite; tests live under testdata/lit/, the rest of testdata/ is data.
import os
import re

import lit.formats

config.name = "hlo"
config.test_format = lit.formats.ShTest(execute_external=False)
# Only testdata/lit/ holds tests: its lit.local.cfg sets the suffixes ['.hlo', '.test'].
config.suffixes = []
config.test_source_root = os.path.dirname(os.path.abspath(__file__))

# make check sets HLO_BIN_DIR (build/bin or build-san/bin); %t files go beside it in build*/lit.
repo_root = os.path.dirname(config.test_source_root)
bin_dir = os.environ.get("HLO_BIN_DIR", os.path.join(repo_root, "build", "bin"))
config.test_exec_root = os.path.join(os.path.dirname(bin_dir), "lit")
llvm_bin = "/usr/lib/llvm-19/bin"
# The build's Python virtual environment (numpy, ml_dtypes), where make made one.
venv_bin = os.path.join(os.path.dirname(bin_dir), "venv", "bin")
path = [bin_dir, llvm_bin] + ([venv_bin] if os.path.isdir(venv_bin) else [])
config.environment["PATH"] = os.pathsep.join(path + [os.environ.get("PATH", "")])
# hlo-run's compile cache lives beside the test outputs, never in the user's home.
config.environment["HLO_CACHE_DIR"] = os.path.join(config.test_exec_root, "cache")
for name in ("HLO_BIN_DIR", "ASAN_OPTIONS", "UBSAN_OPTIONS"):
    if name in os.environ:
        config.environment[name] = os.environ[name]


def tool(name, path):
    # Whole words only: "not" must not match inside "CHECK-NOT", "hlo-opt" not inside a path.
    config.substitutions.append((r"(?<![\w./=-])" + re.escape(name) + r"(?![\w./-])", path))


tool("FileCheck", os.path.join(llvm_bin, "FileCheck"))
tool("not", os.path.join(llvm_bin, "not"))
for program in ("hlo-opt", "hlo-run", "hlo-compare", "hlo-reduce", "hlo-aot", "hlo-fuzz"):
    path = os.path.join(bin_dir, program)
    tool(program, path)
    if os.access(path, os.X_OK):
        config.available_features.add(program)

# XLA itself (make xla-env), for the tests that compare with it.
if os.access(os.path.join(os.path.dirname(bin_dir), "xla-venv", "bin", "python"), os.X_OK):
    config.available_features.add("xla-env")

# Python for the tests' small steps (zipfile): the build's environment, else the one running lit.
import sys

python = os.path.join(venv_bin, "python3")
config.substitutions.append(("%python", python if os.access(python, os.X_OK) else sys.executable))

# hlo-aot's programs: a C and a C++ compiler, and what hlo-aot says to link.
import subprocess

aot = os.path.join(bin_dir, "hlo-aot")
if os.access(aot, os.X_OK):
    link = subprocess.run([aot, "--print-link-flags"], capture_output=True, text=True).stdout.strip()
    config.substitutions.append(("%hlo_rt_link", link))
    config.substitutions.append(("%hlo_rt_lib", link.split()[0] if link else "libhlo_rt.a"))
import shutil

if shutil.which("c++") and shutil.which("cc"):
    config.available_features.add("cxx")

# hlo-opt --html's browser test, where Debian's chromium is installed.
if shutil.which("chromium"):
    config.available_features.add("chromium")

# The CUDA toolkit's PTX assembler, for the GPU backend's checks (no GPU needed).
import shutil

if shutil.which("ptxas", path=config.environment["PATH"]):
    config.available_features.add("ptxas")

# cuobjdump, which --dump-to uses for SASS where the toolkit has it.
if shutil.which("cuobjdump", path=config.environment["PATH"] + os.pathsep + "/usr/local/cuda/bin"):
    config.available_features.add("cuobjdump")

# The stand-in CUDA driver make builds (host memory, no kernels), for the
# GPU runtime's tests without a GPU: hlo-run finds it through HLO_CUDA_DRIVER.
standin_cuda = os.path.join(os.path.dirname(bin_dir), "standin-cuda", "libcuda.so.1")
if os.path.exists(standin_cuda):
    config.available_features.add("standin-cuda")
    config.substitutions.append(("%standin_cuda", standin_cuda))

# OpenMPI's launcher, for the runs with one device per rank. Root may run it
# (tests run as root in containers), more ranks than cores are allowed, and
# shared memory is copied rather than mapped across processes (which
# containers often forbid).
if shutil.which("mpirun", path=config.environment["PATH"]):
    config.available_features.add("mpirun")
    config.substitutions.append(("%mpirun", "mpirun --oversubscribe"))
    for key, value in (("OMPI_ALLOW_RUN_AS_ROOT", "1"), ("OMPI_ALLOW_RUN_AS_ROOT_CONFIRM", "1"),
                       ("OMPI_MCA_btl_vader_single_copy_mechanism", "none")):
        config.environment[key] = value
