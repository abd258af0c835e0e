"""Builds the hlo package's extension with make (see pyproject.toml).

The extension links the archives make builds for the tools, so building it
is make's job: `make python PYTHON=<the building Python> PY_DIR=...` builds
what is missing (all of the libraries, on a fresh clone) and links
python/native/ against them, and this file copies the result into the
wheel. A folder per Python version keeps extensions for several apart.
"""
import os
import pathlib
import shutil
import subprocess
import sys
import sysconfig

from setuptools import Extension, setup
from setuptools.command.build_ext import build_ext

ROOT = pathlib.Path(__file__).resolve().parent


class MakeExtension(build_ext):
    def build_extension(self, ext):
        tag = sysconfig.get_config_var("EXT_SUFFIX").strip(".").removesuffix(".so")
        py_dir = ROOT / "build" / f"python-{tag}"
        jobs = os.environ.get("HLO_MAKE_JOBS", str(os.cpu_count() or 2))
        subprocess.run(["make", f"-j{jobs}", "python", f"PYTHON={sys.executable}", f"PY_DIR={py_dir}"],
                       cwd=ROOT, check=True)
        target = pathlib.Path(self.get_ext_fullpath(ext.name))
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(py_dir / "hlo" / "_native.so", target)


setup(ext_modules=[Extension("hlo._native", sources=[])], cmdclass={"build_ext": MakeExtension})
