"""hlo: XLA's textual HLO from Python: parse, transform, compile and run.

    >>> import hlo, numpy as np
    >>> m = hlo.parse('''
    ... ENTRY main {
    ...   x = f32[3] parameter(0)
    ...   ROOT y = f32[3] multiply(x, x)
    ... }''')
    >>> exe = hlo.compile(m, engine="cpu")
    >>> exe(np.array([1, 2, 3], np.float32))
    array([1., 4., 9.], dtype=float32)

The same library as the command-line tools: the parser and verifier, the
passes, the reference interpreter ("interp") and the JIT ("cpu", "gpu",
"gpu-host"). Arrays go in and come out as numpy arrays (bfloat16, float8
and int4 as ml_dtypes' types), tuples as tuples; errors are HloError.
"""
from typing import NamedTuple, Optional, Sequence, Tuple

from ._errors import HloError

try:
    from . import _native
except ImportError as e:  # built for another Python, or not built
    raise ImportError(f"hlo: cannot load the native extension ({e}); build it for this Python "
                      "with `make python PYTHON=<this python>` or `pip install .` from the repository") from e
from ._dtypes import dtype_of

__all__ = ["HloError", "Module", "Parameter", "Executable", "parse", "load", "compile", "run_passes",
           "opt", "passes", "engines", "from_jax", "dtype_of"]


class Parameter(NamedTuple):
    """A parameter of the ENTRY computation."""
    name: str
    shape: str  # as HLO prints it, "f32[2,3]"; "(f32[], s32[])" for a tuple
    dtype: Optional[object]  # numpy dtype of an array; None for tuples and tokens
    dims: Optional[Tuple[int, ...]]  # None for tuples and tokens; a "<=" dimension gives its bound


class Module:
    """A parsed and verified HLO module. Passes return new modules; this one
    never changes."""

    def __init__(self, native):
        self._native = native

    @property
    def text(self) -> str:
        """The module as HLO text; parsing it gives the same module."""
        return self._native.text

    @property
    def name(self) -> str:
        return self._native.name

    @property
    def entry_parameters(self):
        """The ENTRY computation's parameters, in order, as Parameter tuples."""
        out = []
        for name, shape, type_name, dims in self._native.entry_parameters:
            dtype = None
            if type_name:
                try:
                    dtype = dtype_of(type_name)
                except HloError:
                    dtype = None
            out.append(Parameter(name, shape, dtype, tuple(dims) if dims is not None else None))
        return out

    @property
    def result_shape(self) -> str:
        """The ENTRY computation's result shape, as HLO prints it."""
        return self._native.result_shape

    def stats(self) -> dict:
        """Counts that show what passes did, as `hlo-opt --stats` prints them:
        computations, instructions (in all and per opcode), fusion sizes,
        the bytes the kernels read and write, and buffer assignment's arena,
        peak and no-reuse bytes (None where buffer assignment fails)."""
        return self._native.stats()

    def __str__(self):
        return self.text

    def __repr__(self):
        params = ", ".join(f"{p.name}: {p.shape}" for p in self.entry_parameters)
        return f"<hlo.Module {self.name} ({params}) -> {self.result_shape}>"


class Executable:
    """A module compiled for one engine. Call it with one argument per ENTRY
    parameter: numpy arrays of the parameter's dtype and shape (Python
    numbers and lists are converted; a tuple parameter takes a tuple; a
    token None). Returns a numpy array, or a tuple for a tuple result."""

    def __init__(self, native, module):
        self._native = native
        self.module = module

    @property
    def engine(self) -> str:
        return self._native.engine

    @property
    def fallback_count(self) -> int:
        """How many instructions run on the interpreter (allow_interpreter_fallback)."""
        return self._native.fallback_count

    def __call__(self, *args):
        return self._native(*args)

    def __repr__(self):
        return f"<hlo.Executable {self.module.name} on {self.engine}>"


def parse(text: str, name: str = "<string>") -> Module:
    """Parses and verifies HLO text as XLA prints it. `name` is the file name
    errors give."""
    return Module(_native.parse(text, name))


def load(path) -> Module:
    """Parses and verifies the HLO text file at `path`."""
    path = str(path)
    try:
        with open(path, encoding="utf-8") as f:
            text = f.read()
    except OSError as e:
        raise HloError(f"{path}: cannot read: {e.strerror}", file=path) from None
    return parse(text, path)


def _module(module) -> Module:
    if isinstance(module, Module):
        return module
    if isinstance(module, str):
        return parse(module)
    raise TypeError(f"expected an hlo.Module or HLO text, got {type(module).__name__}")


def compile(module, engine: str = "cpu", *, allow_interpreter_fallback: bool = False,
            max_memory: int = 8 << 30, max_while_iterations: int = 0, fuse: bool = True,
            use_cache: bool = True) -> Executable:
    """Compiles `module` (a Module, or HLO text) for `engine`: "cpu" (the
    LLVM JIT for this machine), "interp" (the reference interpreter), "gpu"
    (an NVIDIA GPU, through the CUDA driver) or "gpu-host" (the GPU's
    kernels run on this CPU). An instruction the JIT cannot compile is an
    HloError unless allow_interpreter_fallback. Runs needing more than
    max_memory bytes are refused; max_while_iterations stops loops (0: no
    limit); fuse=False gives one kernel per op; use_cache keeps machine code
    in $HLO_CACHE_DIR (else ~/.cache/hlo) as hlo-run does."""
    m = _module(module)
    native = _native.compile(m._native, engine, allow_interpreter_fallback, max_memory,
                             max_while_iterations, fuse, use_cache)
    return Executable(native, m)


def run_passes(module, target: str = "cpu") -> Module:
    """The module after `target`'s pass pipeline ("cpu", "gpu"), as the JIT
    compiles it (`hlo-opt --pipeline=TARGET`)."""
    return Module(_native.run_pipeline(_module(module)._native, target))


def opt(module, passes: Sequence[str], verify_each: bool = False) -> Module:
    """The module after the named passes, in order (`hlo-opt --passes=...`;
    the names are those of hlo.passes()). verify_each verifies after every
    pass, naming the pass that broke the module."""
    if isinstance(passes, str):
        passes = [p for p in passes.split(",") if p]
    return Module(_native.run_passes(_module(module)._native, list(passes), verify_each))


def passes():
    """The registered passes as (name, one-line help) pairs."""
    return _native.passes()


def engines():
    """The engine names compile() takes."""
    return _native.engines()


def from_jax(fn, *example_args, **jit_kwargs) -> Module:
    """The HLO module jax lowers `fn` to for `example_args` (before XLA's
    passes: `jax.jit(fn).lower(*args).as_text(dialect="hlo")`), so a jax
    function can be run here and compared with jax itself. Needs jax."""
    try:
        import jax
    except ImportError:
        raise HloError("from_jax needs jax (pip install jax)") from None
    lowered = jax.jit(fn, **jit_kwargs).lower(*example_args)
    return parse(lowered.as_text(dialect="hlo"), name=f"<jax {getattr(fn, '__name__', 'function')}>")
