# Top-level, non-recursive build for hlo: libraries, tools, unit tests, checks, fuzzing, benchmarks.
#
#   make                  libraries, tools and unit tests (parallel by default)
#   make check            build, then unit tests + lit + corpus; prints "N passed, N failed[, N skipped]"
#   make SANITIZE=address,undefined check   the same under sanitizers, in build-san/
#   make demo | bench | fuzz-parser | deps | clean

ifeq ($(filter -j%,$(MAKEFLAGS)),)
  MAKEFLAGS += -j$(shell nproc)
endif
MAKEFLAGS += --no-builtin-rules
.SUFFIXES:
.DELETE_ON_ERROR:

CXX ?= g++
AR ?= ar
CORPUS ?= ../shared/corpus
SANITIZE ?=
BUILD := build$(if $(SANITIZE),-san)

# Position-independent code, so the same archives link into the Python
# extension (a shared object) as into the programs; no semantic
# interposition, so calls within the archives stay direct and inlinable.
HLO_CXXFLAGS := -std=c++20 -O2 -g0 -fPIC -fno-semantic-interposition -Wall -Wextra -Werror=switch -I. -MMD -MP
HLO_LDFLAGS :=
ifneq ($(SANITIZE),)
  HLO_CXXFLAGS += -fsanitize=$(SANITIZE) -fno-omit-frame-pointer -O1 -g
  HLO_LDFLAGS += -fsanitize=$(SANITIZE)
endif
LDLIBS_COMMON := -lre2 -lz -lpthread

# LLVM 19: only the objects of jit/ and backends/cpu/ compile with its flags
# (less the ones that clash with ours: -std, warnings, and -fno-exceptions,
# since hlo/ headers throw std::bad_alloc; its headers as system headers, so
# our warnings stay about our code), and only the programs that run the JIT
# link the shared library -lLLVM-19; hlo/, parser/ and interp/ never see
# LLVM flags.
# The flags are asked of llvm-config when a recipe first needs them (then
# kept), not when this file is read: on a fresh machine `make deps` installs
# llvm-config during the same run, after the file was read.
LLVM_CONFIG := llvm-config-19
LLVM_CXXFLAGS = $(eval LLVM_CXXFLAGS := $(patsubst -I%,-isystem %,$(filter-out -std=% -fno-exceptions -W% -O% -g%,$(shell $(LLVM_CONFIG) --cxxflags))))$(LLVM_CXXFLAGS)
LLVM_LDLIBS = $(eval LLVM_LDLIBS := $(shell $(LLVM_CONFIG) --ldflags) $(shell $(LLVM_CONFIG) --libs))$(LLVM_LDLIBS)
# OpenMPI's flags, asked of its compiler wrapper the same way; only
# transport/mpi_transport.cc and the programs that link it see them.
MPI_CXXFLAGS = $(eval MPI_CXXFLAGS := $(patsubst -I%,-isystem %,$(shell mpicxx --showme:compile)))$(MPI_CXXFLAGS)
MPI_LDLIBS = $(eval MPI_LDLIBS := $(shell mpicxx --showme:link))$(MPI_LDLIBS)

# ---- sources ---------------------------------------------------------------

CORPUS_CHECK_SRC := $(wildcard conformance/hlo-corpus-check.cc)
INTERP_CORPUS_SRC := $(wildcard conformance/hlo-interp-corpus.cc)
PASS_CORPUS_SRC := $(wildcard conformance/hlo-pass-corpus.cc)
XLA_CORPUS_SRC := $(wildcard conformance/hlo-xla-corpus.cc)
JIT_CORPUS_SRC := $(wildcard conformance/hlo-jit-corpus.cc)
HLO_FUZZ_SRC := $(wildcard conformance/hlo-fuzz.cc)
# Library sources: everything in the folder except tests, benchmarks, fuzz targets and programs.
lib_srcs = $(filter-out %_test.cc %_bench.cc %/fuzz_parser.cc $(CORPUS_CHECK_SRC) $(INTERP_CORPUS_SRC) $(PASS_CORPUS_SRC) $(XLA_CORPUS_SRC) $(JIT_CORPUS_SRC) $(HLO_FUZZ_SRC),$(wildcard $(1)))
obj = $(patsubst %.cc,$(BUILD)/obj/%.o,$(1))

HLO_SRCS := $(call lib_srcs,hlo/*.cc hlo/passes/*.cc)
PARSER_SRCS := $(call lib_srcs,parser/*.cc)
INTERP_SRCS := $(call lib_srcs,interp/*.cc)
CONFORMANCE_SRCS := $(call lib_srcs,conformance/*.cc)
JIT_SRCS := $(call lib_srcs,jit/*.cc)
CPU_SRCS := $(call lib_srcs,backends/cpu/*.cc)
GPU_SRCS := $(call lib_srcs,backends/gpu/*.cc)

# Link order: users before what they use. A folder with no sources has no library.
lib = $(if $(2),$(BUILD)/lib/lib$(1).a)
LIBS := $(call lib,conformance,$(CONFORMANCE_SRCS)) $(call lib,interp,$(INTERP_SRCS)) \
        $(call lib,parser,$(PARSER_SRCS)) $(call lib,hlo,$(HLO_SRCS))

# The devices as MPI ranks (transport/mpi_transport.h), linked into hlo-run
# only, and its stand-in for builds without MPI.
MPI_TRANSPORT := $(BUILD)/lib/libtransport_mpi.a
NO_MPI_TRANSPORT := $(BUILD)/lib/libtransport_none.a

TOOL_SRCS := $(wildcard tools/*.cc)
TOOLS := $(patsubst tools/%.cc,$(BUILD)/bin/%,$(TOOL_SRCS))
TUTORIAL_SRCS := $(wildcard docs/tutorial/examples/*.cc)
TUTORIAL_PROGRAMS := $(patsubst docs/tutorial/examples/%.cc,$(BUILD)/bin/tutorial-%,$(TUTORIAL_SRCS))
CORPUS_CHECK := $(if $(CORPUS_CHECK_SRC),$(BUILD)/bin/hlo-corpus-check)
INTERP_CORPUS := $(if $(INTERP_CORPUS_SRC),$(BUILD)/bin/hlo-interp-corpus)
PASS_CORPUS := $(if $(PASS_CORPUS_SRC),$(BUILD)/bin/hlo-pass-corpus)
XLA_CORPUS := $(if $(XLA_CORPUS_SRC),$(BUILD)/bin/hlo-xla-corpus)
JIT_CORPUS := $(if $(JIT_CORPUS_SRC),$(BUILD)/bin/hlo-jit-corpus)
HLO_FUZZ := $(if $(HLO_FUZZ_SRC),$(BUILD)/bin/hlo-fuzz)
# The JIT's libraries: the backends, which use jit/ (its emitter, its
# registry), then jit/, which names no backend (jit/backend.h).
BACKEND_LIBS := $(call lib,backend_cpu,$(CPU_SRCS)) $(call lib,backend_gpu,$(GPU_SRCS))
JIT_LIBS := $(BACKEND_LIBS) $(call lib,jit,$(JIT_SRCS))

# The ahead-of-time runtime that hlo-aot's objects link (backends/cpu/hlo_rt.h):
# the CPU backend's run code and the IR it reads, without LLVM, the parser or
# the interpreter. make check asserts that none of its objects needs LLVM.
RT_CPU_SRCS := $(filter-out $(addprefix backends/cpu/,cpu_compiler.cc kernel_emitter.cc orc.cc runtime_ops.cc \
                 vector_math.cc cpu_backend.cc aot_compiler.cc),$(CPU_SRCS))
RT_JIT_SRCS := $(addprefix jit/,memory_plan.cc report.cc trace.cc host_steps.cc refusal.cc)
HLO_RT := $(BUILD)/lib/libhlo_rt.a

TEST_SRCS := $(wildcard $(addsuffix /*_test.cc,hlo hlo/passes parser interp conformance jit backends/cpu backends/gpu))
UNIT_TESTS := $(BUILD)/bin/unit-tests

BENCH_SRCS := $(wildcard bench/*_bench.cc)
BENCHES := $(patsubst bench/%.cc,$(BUILD)/bin/%,$(BENCH_SRCS))

ALL_SRCS := $(HLO_SRCS) $(PARSER_SRCS) $(INTERP_SRCS) $(CONFORMANCE_SRCS) \
            $(TOOL_SRCS) $(CORPUS_CHECK_SRC) $(INTERP_CORPUS_SRC) $(PASS_CORPUS_SRC) $(XLA_CORPUS_SRC) $(TEST_SRCS) $(BENCH_SRCS) \
            $(JIT_SRCS) $(CPU_SRCS) $(GPU_SRCS) $(JIT_CORPUS_SRC) $(HLO_FUZZ_SRC) $(TUTORIAL_SRCS)
DEPS_STAMP := $(BUILD)/.deps-stamp
VENV_STAMP := $(BUILD)/venv/.installed

# ---- rules -----------------------------------------------------------------

.PHONY: all check demo bench deps fuzz-parser clean

# A stand-in CUDA driver (host memory, no kernels) for the lit tests of the
# GPU runtime (backends/gpu/standin/libcuda.cc); never linked into anything.
STANDIN_CUDA := $(BUILD)/standin-cuda/libcuda.so.1

all: $(LIBS) $(JIT_LIBS) $(HLO_RT) $(NO_MPI_TRANSPORT) $(TOOLS) $(TUTORIAL_PROGRAMS) $(CORPUS_CHECK) $(INTERP_CORPUS) $(PASS_CORPUS) $(XLA_CORPUS) $(JIT_CORPUS) $(HLO_FUZZ) $(UNIT_TESTS) $(STANDIN_CUDA) | $(DEPS_STAMP)

$(STANDIN_CUDA): backends/gpu/standin/libcuda.cc
	@mkdir -p $(@D)
	$(CXX) -std=c++20 -O1 -Wall -Wextra -shared -fPIC -o $@ $<

$(BUILD)/obj/%.o: %.cc | $(DEPS_STAMP)
	@mkdir -p $(@D)
	$(CXX) $(HLO_CXXFLAGS) $(CPPFLAGS) $(CXXFLAGS) -c $< -o $@

# $(call list,NAME,FILES) records FILES in $(BUILD)/lists/NAME, rewritten only when the list
# changes, so removing or renaming a source rebuilds the archive or binary that held it.
list = $(shell mkdir -p $(BUILD)/lists && echo '$(2)' | cmp -s - $(BUILD)/lists/$(1) \
         || echo '$(2)' >$(BUILD)/lists/$(1))$(BUILD)/lists/$(1)

$(BUILD)/lib/libhlo.a: $(call obj,$(HLO_SRCS)) $(call list,hlo,$(HLO_SRCS))
$(BUILD)/lib/libparser.a: $(call obj,$(PARSER_SRCS)) $(call list,parser,$(PARSER_SRCS))
$(BUILD)/lib/libinterp.a: $(call obj,$(INTERP_SRCS)) $(call list,interp,$(INTERP_SRCS))
$(BUILD)/lib/libconformance.a: $(call obj,$(CONFORMANCE_SRCS)) $(call list,conformance,$(CONFORMANCE_SRCS))
$(BUILD)/lib/libjit.a: $(call obj,$(JIT_SRCS)) $(call list,jit,$(JIT_SRCS))
$(BUILD)/lib/libbackend_cpu.a: $(call obj,$(CPU_SRCS)) $(call list,backend_cpu,$(CPU_SRCS))
$(BUILD)/lib/libbackend_gpu.a: $(call obj,$(GPU_SRCS)) $(call list,backend_gpu,$(GPU_SRCS))
# What hlo-aot --print-link-flags adds for programs linking a sanitized runtime.
$(call obj,tools/hlo-aot.cc): CPPFLAGS += -DHLO_RT_LINK_EXTRA='"$(if $(SANITIZE), -fsanitize=$(SANITIZE))"'
$(HLO_RT): $(call obj,$(RT_CPU_SRCS) $(RT_JIT_SRCS) $(HLO_SRCS)) $(call list,hlo_rt,$(RT_CPU_SRCS) $(RT_JIT_SRCS) $(HLO_SRCS))
$(MPI_TRANSPORT): $(call obj,transport/mpi_transport.cc)
$(NO_MPI_TRANSPORT): $(call obj,transport/no_mpi.cc)
$(call obj,transport/mpi_transport.cc): CPPFLAGS += $(MPI_CXXFLAGS)
$(call obj,$(JIT_SRCS) $(CPU_SRCS) $(GPU_SRCS) $(filter jit/% backends/%,$(TEST_SRCS))): CPPFLAGS += $(LLVM_CXXFLAGS)
$(BUILD)/lib/%.a:
	@mkdir -p $(@D)
	rm -f $@ && $(AR) rcs $@ $(filter %.o,$^)

link = $(CXX) $(HLO_LDFLAGS) $(LDFLAGS) -o $@ $(filter %.o,$^) $(JIT_LINK) $(LIBS) $(1) $(LDLIBS_COMMON) $(LLVM_LINK) $(LDLIBS)

# Programs that run the JIT: its libraries before ours, and the LLVM shared
# library (OpenBLAS and the CUDA driver are opened at run time:
# backends/cpu/blas.h, backends/gpu/cuda_driver.h). The backends' archives
# are linked whole: nothing calls a backend by name, each registers itself
# (jit/backend.h) from a static object the linker would otherwise drop.
JIT_PROGRAMS := $(BUILD)/bin/hlo-run $(BUILD)/bin/hlo-reduce $(BUILD)/bin/hlo-aot $(JIT_CORPUS) $(HLO_FUZZ) $(UNIT_TESTS) $(BUILD)/bin/jit_bench $(BUILD)/bin/model_bench $(BUILD)/bin/aot_bench \
                $(BUILD)/bin/lapack_bench $(BUILD)/bin/collectives_bench $(BUILD)/bin/runtime_bench
$(JIT_PROGRAMS): $(JIT_LIBS)
$(JIT_PROGRAMS): JIT_LINK = -Wl,--whole-archive $(BACKEND_LIBS) -Wl,--no-whole-archive $(filter-out $(BACKEND_LIBS),$(JIT_LIBS))
$(JIT_PROGRAMS): LLVM_LINK = $(LLVM_LDLIBS)
# hlo-run runs devices as MPI ranks too (--transport=mpi).
$(BUILD)/bin/hlo-run: $(MPI_TRANSPORT)
$(BUILD)/bin/hlo-run: JIT_LINK += $(MPI_TRANSPORT)
$(BUILD)/bin/hlo-run: LDLIBS += $(MPI_LDLIBS)

# The tutorial's example programs (docs/tutorial/examples/*.cc), run by its pages.
$(TUTORIAL_PROGRAMS): $(BUILD)/bin/tutorial-%: $(BUILD)/obj/docs/tutorial/examples/%.o $(LIBS)
	@mkdir -p $(@D)
	$(call link)

$(TOOLS): $(BUILD)/bin/%: $(BUILD)/obj/tools/%.o $(LIBS)
	@mkdir -p $(@D)
	$(call link)

ifneq ($(CORPUS_CHECK),)
$(CORPUS_CHECK): $(call obj,$(CORPUS_CHECK_SRC)) $(LIBS)
	@mkdir -p $(@D)
	$(call link)
endif

ifneq ($(INTERP_CORPUS),)
$(INTERP_CORPUS): $(call obj,$(INTERP_CORPUS_SRC)) $(LIBS)
	@mkdir -p $(@D)
	$(call link)
endif

ifneq ($(PASS_CORPUS),)
$(PASS_CORPUS): $(call obj,$(PASS_CORPUS_SRC)) $(LIBS)
	@mkdir -p $(@D)
	$(call link)
endif

ifneq ($(JIT_CORPUS),)
$(JIT_CORPUS): $(call obj,$(JIT_CORPUS_SRC)) $(LIBS)
	@mkdir -p $(@D)
	$(call link)
endif

ifneq ($(HLO_FUZZ),)
$(HLO_FUZZ): $(call obj,$(HLO_FUZZ_SRC)) $(LIBS)
	@mkdir -p $(@D)
	$(call link)
endif

ifneq ($(XLA_CORPUS),)
$(XLA_CORPUS): $(call obj,$(XLA_CORPUS_SRC)) $(LIBS)
	@mkdir -p $(@D)
	$(call link)
endif

# gtest_main before gtest: static archives resolve left to right.
$(UNIT_TESTS): $(call obj,$(TEST_SRCS)) $(call list,tests,$(TEST_SRCS)) $(LIBS)
	@mkdir -p $(@D)
	$(call link,-lgtest_main -lgtest)

# bench/aot_bench.cc links hlo-aot's objects of the real models beside the JIT.
AOT_BENCH_MODELS := $(basename $(notdir $(wildcard testdata/jax/models/*.hlo)))
AOT_BENCH_OBJS := $(patsubst %,$(BUILD)/aot-bench/%.o,$(AOT_BENCH_MODELS))
$(BUILD)/aot-bench/%.o: testdata/jax/models/%.hlo $(BUILD)/bin/hlo-aot
	@mkdir -p $(@D)
	$(BUILD)/bin/hlo-aot $< --name=$* -o $@
$(call obj,bench/aot_bench.cc): CPPFLAGS += -DHLO_AOT_MODELS='$(foreach m,$(AOT_BENCH_MODELS),X($(m)))'
$(BUILD)/bin/aot_bench: $(AOT_BENCH_OBJS)
$(BUILD)/bin/aot_bench: LDLIBS += -lmvec

$(BENCHES): $(BUILD)/bin/%: $(BUILD)/obj/bench/%.o $(LIBS)
	@mkdir -p $(@D)
	$(call link,-lbenchmark)

# ---- the Python package (python/): `import hlo` -------------------------------

# The extension python/native/*.cc over the same archives the tools link,
# built with pybind11 (header-only, so this file builds it as it builds the
# rest) for PYTHON; PY_DIR then holds the package, ready for PYTHONPATH.
# pip install . (setup.py) calls this with its own PYTHON and PY_DIR.
PYTHON ?= $(BUILD)/venv/bin/python
PY_DIR ?= $(BUILD)/python
PY_SRCS := $(wildcard python/native/*.cc)
PY_OBJS := $(patsubst %.cc,$(PY_DIR)/obj/%.o,$(PY_SRCS))
PY_EXT := $(PY_DIR)/hlo/_native.so
PY_FILES := $(patsubst python/%,$(PY_DIR)/%,$(wildcard python/hlo/*.py))
PY_INCLUDES = $(eval PY_INCLUDES := $(patsubst -I%,-isystem %,$(shell $(PYTHON) -m pybind11 --includes)))$(PY_INCLUDES)
.PHONY: python
python: $(PY_EXT) $(PY_FILES)

$(PY_DIR)/obj/%.o: %.cc | $(DEPS_STAMP)
	@mkdir -p $(@D)
	@$(PYTHON) -m pybind11 --includes >/dev/null || { echo "make: $(PYTHON) has no pybind11 (pip install pybind11)" >&2; exit 1; }
	$(CXX) $(HLO_CXXFLAGS) -fvisibility=hidden $(PY_INCLUDES) $(CPPFLAGS) $(CXXFLAGS) -c $< -o $@

# The backends linked whole, as in the programs (they register themselves);
# --exclude-libs keeps the archives' symbols out of the extension's
# dynamic symbol table, so they never meet another extension's.
$(PY_EXT): $(PY_OBJS) $(JIT_LIBS) $(LIBS)
	@mkdir -p $(@D)
	$(CXX) -shared $(HLO_LDFLAGS) $(LDFLAGS) -o $@ $(PY_OBJS) -Wl,--whole-archive $(BACKEND_LIBS) -Wl,--no-whole-archive \
	  $(filter-out $(BACKEND_LIBS),$(JIT_LIBS)) $(LIBS) $(LDLIBS_COMMON) $(LLVM_LDLIBS) -Wl,--exclude-libs,ALL

$(PY_DIR)/hlo/%.py: python/hlo/%.py
	@mkdir -p $(@D)
	cp $< $@

# The Python package's tests need build/venv (numpy, pybind11, pytest): where
# PyPI could not be reached check.sh reports them skipped.
check: all $(VENV_STAMP)
	@if [ -n "$(SANITIZE)" ]; then echo "make: the Python package is not built under sanitizers; its tests will be skipped"; \
	elif [ -f $(VENV_STAMP) ]; then $(MAKE) --no-print-directory python; \
	else echo "make: no $(BUILD)/venv: the Python package is not built and its tests will be skipped"; fi
	HLO_BIN_DIR=$(abspath $(BUILD)/bin) PYTHON_EXT=$(if $(SANITIZE),,$(PY_EXT)) scripts/check.sh $(BUILD) $(CORPUS)

# x + y * z = {1, 2, 3, 4} + {1, 3, -0.5, -3} = {2, 5, 2.5, 1}, whose sum prints as f32[] 10.5:
# compiled by the CPU JIT, checked against the reference interpreter.
DEMO_INPUTS := --input='f32[4] {1, 2, 3, 4}' --input='f32[4] {0.5, 1.5, -2, 3}' --input='f32[4] {2, 2, 0.25, -1}'
demo: all
	@if [ -x $(BUILD)/bin/hlo-run ]; then set -x; \
	  $(BUILD)/bin/hlo-run testdata/examples/reduce_sum.hlo --engine=cpu --compare=interp --verbose $(DEMO_INPUTS); \
	elif [ -x $(BUILD)/bin/hlo-opt ]; then set -x; $(BUILD)/bin/hlo-opt testdata/examples/reduce_sum.hlo; \
	else echo "demo: neither hlo-run nor hlo-opt is built yet"; exit 1; fi

bench: $(BENCHES)
	@for b in $(BENCHES); do echo "==> $$b"; $$b || exit 1; done

# The script is cheap when everything is installed; the stamp spares even that.
deps:
	scripts/install-deps.sh
	@mkdir -p $(BUILD) && touch $(DEPS_STAMP)

$(DEPS_STAMP): scripts/install-deps.sh
	scripts/install-deps.sh
	@mkdir -p $(@D) && touch $@

# Python packages for the tests, in a virtual environment of the build (lit
# puts its bin/ first on PATH). Without PyPI the tests that need them are
# reported as skipped, and the next make tries again.
$(VENV_STAMP): scripts/python-requirements.txt | $(DEPS_STAMP)
	@rm -f $@
	@if python3 -m venv $(BUILD)/venv && $(BUILD)/venv/bin/pip install -q -r $<; then touch $@; \
	else echo "make: could not install $< into $(BUILD)/venv; the tests that need them will be skipped"; fi

# XLA itself (jax and jaxlib from PyPI: XLA:CPU), the oracle of conformance-xla
# and of scripts/make_jax_testdata.py, in a virtual environment of its own.
# make check does not need it.
XLA_VENV := $(BUILD)/xla-venv
XLA_VENV_STAMP := $(XLA_VENV)/.installed
.PHONY: xla-env xla-env-latest conformance-xla bench-xla
xla-env: $(XLA_VENV_STAMP)
$(XLA_VENV_STAMP): scripts/xla-requirements.txt
	@rm -f $@
	python3 -m venv $(XLA_VENV) && $(XLA_VENV)/bin/pip install -q -r $< && touch $@

# The newest jax release as a second oracle, beside the pinned one above. It
# needs Python 3.12 or later: XLA_LATEST_PYTHON if given, else a python3.12
# that runs (a pyenv shim can be on PATH with the version not selected), else
# pyenv's own.
XLA_VENV_LATEST := $(BUILD)/xla-venv-latest
XLA_VENV_LATEST_STAMP := $(XLA_VENV_LATEST)/.installed
xla-env-latest: $(XLA_VENV_LATEST_STAMP)
$(XLA_VENV_LATEST_STAMP): scripts/xla-latest-requirements.txt
	@rm -f $@
	@py="$(XLA_LATEST_PYTHON)"; \
	if [ -z "$$py" ]; then \
	  for c in python3.12 "$$(pyenv root 2>/dev/null)"/versions/3.12*/bin/python3.12 "$$HOME"/.pyenv/versions/3.12*/bin/python3.12; do \
	    if "$$c" -c 'import sys; sys.exit(sys.version_info[:2] != (3, 12))' 2>/dev/null; then py="$$c"; break; fi; \
	  done; \
	fi; \
	if [ -z "$$py" ]; then \
	  echo "make: xla-env-latest needs Python 3.12 (the newest jax requires it): none runs as python3.12 on PATH or under pyenv's versions/; install one or give XLA_LATEST_PYTHON=/path/to/python3.12" >&2; \
	  exit 1; \
	fi; \
	echo "$$py -m venv $(XLA_VENV_LATEST) && $(XLA_VENV_LATEST)/bin/pip install -q -r $<"; \
	"$$py" -m venv $(XLA_VENV_LATEST) && $(XLA_VENV_LATEST)/bin/pip install -q -r $< && touch $@

# JAX=latest runs conformance-xla and bench-xla on the newest jax
# (xla-env-latest) instead of the pinned one, with expectations and a work
# folder of its own.
ifeq ($(JAX),latest)
XLA_ORACLE_VENV := $(XLA_VENV_LATEST)
XLA_ORACLE_STAMP := $(XLA_VENV_LATEST_STAMP)
XLA_EXPECTATIONS := conformance/xla_expectations_latest.txt
XLA_WORK := $(BUILD)/xla-corpus-latest
else
XLA_ORACLE_VENV := $(XLA_VENV)
XLA_ORACLE_STAMP := $(XLA_VENV_STAMP)
XLA_EXPECTATIONS := conformance/xla_expectations.txt
XLA_WORK := $(BUILD)/xla-corpus
# Checked only for these goals: JAX may be in the environment for other reasons.
ifneq ($(JAX),)
ifneq ($(filter conformance-xla bench-xla,$(MAKECMDGOALS)),)
$(error JAX=$(JAX): leave it out for the pinned jax, or say JAX=latest)
endif
endif
endif

# Every module of testdata/ and of the corpus on XLA and on the interpreter,
# compared; UPDATE=1 rewrites the expectations (conformance/xla_expectations.txt,
# with JAX=latest conformance/xla_expectations_latest.txt).
conformance-xla: $(XLA_CORPUS) $(XLA_ORACLE_STAMP)
	$(XLA_CORPUS) --python=$(XLA_ORACLE_VENV)/bin/python --work-dir=$(XLA_WORK) --corpus=$(CORPUS) \
	  --testdata=testdata --expectations=$(XLA_EXPECTATIONS) $(if $(UPDATE),--update)

# The bench/ modules and the real models of testdata/jax/models/ on XLA:CPU
# and on our CPU JIT in the same run, then tables of compile and run times
# with the ratio.
bench-xla: $(BUILD)/bin/jit_bench $(BUILD)/bin/model_bench $(XLA_ORACLE_STAMP)
	$(BUILD)/bin/jit_bench --xla-python=$(XLA_ORACLE_VENV)/bin/python --xla-oracle=conformance/xla_oracle.py
	$(BUILD)/bin/model_bench --xla-python=$(XLA_ORACLE_VENV)/bin/python --xla-oracle=conformance/xla_oracle.py

# ---- the GPU check's bundle ------------------------------------------------

# What scripts/gpu-check.sh carries to a machine with a GPU and no LLVM: a
# self-contained hlo-run (LLVM linked statically, -static-libstdc++,
# stripped, xz-compressed), the toolkit's libdevice (the GPU backend links
# it into kernels that call math functions), and a slice of the corpus
# (scripts/gpu_check.py --make-slice). The uncompressed program stays in
# gpu-bundle-work/, outside what is carried.
GPU_BUNDLE := $(BUILD)/gpu-bundle
GPU_BUNDLE_WORK := $(BUILD)/gpu-bundle-work
LLVM_STATIC_LIBS = $(shell $(LLVM_CONFIG) --link-static --libs orcjit x86 nvptx passes ipo)
LIBDEVICE ?= $(firstword $(wildcard $(CUDA_HOME)/nvvm/libdevice/libdevice.10.bc /usr/local/cuda/nvvm/libdevice/libdevice.10.bc))
.PHONY: gpu-bundle
gpu-bundle: $(GPU_BUNDLE)/hlo-run.xz $(GPU_BUNDLE)/libdevice.10.bc $(BUILD)/bin/hlo-run
	python3 scripts/gpu_check.py --make-slice --corpus=$(CORPUS)/xla --hlo-run=$(BUILD)/bin/hlo-run \
	  --expectations=conformance/gpu_compile_expectations.txt --out=$(GPU_BUNDLE)/corpus
	@du -sh $(GPU_BUNDLE) $(GPU_BUNDLE)/* | sed 's/^/gpu-bundle: /'

# zstd, which LLVM's compression support calls, stays a shared library:
# Debian ships no static one, and every Linux system has libzstd.so.1.
$(GPU_BUNDLE_WORK)/hlo-run: $(BUILD)/obj/tools/hlo-run.o $(JIT_LIBS) $(LIBS) $(NO_MPI_TRANSPORT)
	@mkdir -p $(@D)
	$(CXX) -o $@ $< -Wl,--whole-archive $(BACKEND_LIBS) -Wl,--no-whole-archive $(filter-out $(BACKEND_LIBS),$(JIT_LIBS)) \
	  $(NO_MPI_TRANSPORT) $(LIBS) -static-libstdc++ -static-libgcc -L$(shell $(LLVM_CONFIG) --libdir) $(LLVM_STATIC_LIBS) \
	  -Wl,-Bstatic -lre2 -lz -Wl,-Bdynamic $(firstword $(wildcard /usr/lib/x86_64-linux-gnu/libzstd.so.1 /lib/x86_64-linux-gnu/libzstd.so.1) -lzstd) \
	  -lpthread -ldl -lrt -lm
	strip $@

$(GPU_BUNDLE)/hlo-run.xz: $(GPU_BUNDLE_WORK)/hlo-run
	@mkdir -p $(@D)
	xz -9 -T2 -c $< > $@

$(GPU_BUNDLE)/libdevice.10.bc:
	@mkdir -p $(@D)
	@if [ -z "$(LIBDEVICE)" ]; then echo "gpu-bundle: no libdevice.10.bc (the CUDA toolkit's nvvm/libdevice); give LIBDEVICE=PATH" >&2; exit 1; fi
	cp $(LIBDEVICE) $@

# ---- fuzzing: clang + libFuzzer, its own build dir -------------------------

FUZZ_CXX ?= clang++-19
FUZZ_TIME ?= 600
FUZZ_DIR := build-fuzz
FUZZ_BIN := $(FUZZ_DIR)/hlo-parser-fuzzer
FUZZ_CXXFLAGS := -std=c++20 -O1 -g -I. -MMD -MP -fsanitize=fuzzer,address,undefined -fno-omit-frame-pointer
FUZZ_OBJS := $(patsubst %.cc,$(FUZZ_DIR)/obj/%.o,$(HLO_SRCS) $(PARSER_SRCS) parser/fuzz_parser.cc)

$(FUZZ_DIR)/obj/%.o: %.cc | $(DEPS_STAMP)
	@mkdir -p $(@D)
	$(FUZZ_CXX) $(FUZZ_CXXFLAGS) -c $< -o $@

$(FUZZ_BIN): $(FUZZ_OBJS)
	$(FUZZ_CXX) $(FUZZ_CXXFLAGS) -o $@ $^ $(LDLIBS_COMMON)

# Seeds are copied (flattened names) so the fuzzer may add to the corpus dir freely.
fuzz-parser: $(FUZZ_BIN)
	@mkdir -p $(FUZZ_DIR)/corpus
	@find testdata -name '*.hlo' | while read -r f; do cp "$$f" "$(FUZZ_DIR)/corpus/$$(echo "$$f" | tr / _)"; done
	@if [ -d $(CORPUS)/xla/visible ]; then cp -r $(CORPUS)/xla/visible/. $(FUZZ_DIR)/corpus/; fi
	$(FUZZ_BIN) $(FUZZ_DIR)/corpus -max_total_time=$(FUZZ_TIME) -timeout=10 -rss_limit_mb=4096 -max_len=65536

clean:
	rm -rf build build-san build-fuzz

-include $(patsubst %.cc,$(BUILD)/obj/%.d,$(ALL_SRCS))
-include $(FUZZ_OBJS:.o=.d)
-include $(PY_OBJS:.o=.d)
