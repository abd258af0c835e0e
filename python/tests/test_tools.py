"""The package against the command-line tool and against jax itself."""
import os
import pathlib
import subprocess

import numpy as np
import pytest

import hlo
from conftest import REPO

# tanh and exp round differently on every implementation: equal bits mean
# the same compiled code ran.
TRANSCENDENTAL = """HloModule transcendental
ENTRY main {
  x = f32[64] parameter(0)
  y = f32[64] parameter(1)
  t = f32[64] tanh(x)
  e = f32[64] exponential(y)
  ROOT r = f32[64] multiply(t, e)
}
"""


def hlo_run():
    bin_dir = pathlib.Path(os.environ.get("HLO_BIN_DIR", REPO / "build" / "bin"))
    path = bin_dir / "hlo-run"
    if not path.exists():
        pytest.skip(f"no {path} (make builds it)")
    return path


@pytest.mark.parametrize("engine", ["interp", "cpu"])
def test_agrees_with_hlo_run_bit_for_bit(tmp_path, engine):
    module = tmp_path / "t.hlo"
    module.write_text(TRANSCENDENTAL)
    x = np.linspace(-3, 3, 64, dtype=np.float32)
    y = np.linspace(-2, 2, 64, dtype=np.float32)
    np.save(tmp_path / "x.npy", x)
    np.save(tmp_path / "y.npy", y)
    out = tmp_path / "out.npy"
    subprocess.run([hlo_run(), module, f"--engine={engine}", f"--input=@{tmp_path / 'x.npy'}",
                    f"--input=@{tmp_path / 'y.npy'}", f"--output={out}"], check=True)
    ours = hlo.compile(hlo.load(module), engine)(x, y)
    assert ours.tobytes() == np.load(out).tobytes()


def test_from_jax_runs_what_jax_runs():
    jax = pytest.importorskip("jax", reason="from_jax needs jax (make xla-env installs it)")
    import jax.numpy as jnp

    def f(x, w):
        return jnp.tanh(x @ w).sum(axis=1)

    x = np.linspace(-1, 1, 12, dtype=np.float32).reshape(3, 4)
    w = np.linspace(0.5, -0.5, 8, dtype=np.float32).reshape(4, 2)
    m = hlo.from_jax(f, x, w)
    assert [p.shape for p in m.entry_parameters] == ["f32[3,4]", "f32[4,2]"]
    expected = np.asarray(jax.jit(f)(x, w))  # XLA itself
    for engine in ["interp", "cpu"]:
        np.testing.assert_allclose(hlo.compile(m, engine)(x, w), expected, rtol=1e-5, atol=1e-6)
