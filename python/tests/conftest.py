"""Shared fixtures: the repository's paths and the engines every run test covers."""
import os
import pathlib

import pytest

REPO = pathlib.Path(__file__).resolve().parents[2]
EXAMPLES = REPO / "testdata" / "examples"

# Every engine that runs on this machine: the reference interpreter, the CPU
# JIT, and the GPU's kernels on the host grid runner.
HOST_ENGINES = ["interp", "cpu", "gpu-host"]


@pytest.fixture(autouse=True, scope="session")
def _private_compile_cache(tmp_path_factory):
    """Compiled code goes to a cache of the test run's own, not the user's."""
    os.environ["HLO_CACHE_DIR"] = str(tmp_path_factory.mktemp("hlo-cache"))


@pytest.fixture(params=HOST_ENGINES)
def engine(request):
    return request.param
