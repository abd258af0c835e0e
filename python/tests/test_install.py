"""`pip install .` as a user runs it: setup.py has make build the extension
for the installing Python, and the installed package runs."""
import os
import subprocess
import sys

import pytest

from conftest import REPO


def test_pip_install_builds_a_package_that_runs(tmp_path):
    # The build backend and its wheel builder, which pip would otherwise fetch
    # (scripts/python-requirements.txt installs both into build/venv).
    for needed in ("setuptools", "wheel"):
        pytest.importorskip(needed, reason=f"pip install --no-build-isolation needs {needed} in this Python")
    target = tmp_path / "site"
    env = dict(os.environ, HLO_MAKE_JOBS="2")
    env.pop("PYTHONPATH", None)
    subprocess.run([sys.executable, "-m", "pip", "install", "--quiet", "--no-build-isolation", "--no-deps",
                    f"--target={target}", str(REPO)], check=True, env=env, cwd=tmp_path)
    script = ("import hlo, numpy as np\n"
              "print(hlo.__file__)\n"
              "m = hlo.parse('ENTRY e {\\n  x = s32[3] parameter(0)\\n  ROOT y = s32[3] multiply(x, x)\\n}')\n"
              "print(hlo.compile(m, 'cpu')(np.array([2, -3, 4], np.int32)).tolist())\n")
    out = subprocess.run([sys.executable, "-c", script], check=True, capture_output=True, text=True,
                         env=dict(env, PYTHONPATH=str(target)), cwd=tmp_path).stdout.splitlines()
    assert out[0].startswith(str(target))
    assert out[1] == "[4, 9, 16]"
