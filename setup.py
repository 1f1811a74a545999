"""Builds the concord extension with the project's CMake build (see pyproject.toml).

pip calls build_ext, which configures CMake in build-python/ (next to this file; set
CONCORD_CMAKE_BUILD_DIR to reuse another build folder) with this interpreter, builds only the
concord_python target (a private build folder is configured without the tests, benchmarks and
their packages) and copies concord/_core*.so into the wheel. Set CONCORD_BUILD_JOBS to change the
parallelism (default 2). CMake uses ccache when it is installed; CCACHE_BASEDIR defaults to this
folder, so objects compiled by an earlier build of the same sources (scripts/setup.sh sets the
same) or of another copy of them are reused.
"""

import os
import pathlib
import shutil
import subprocess
import sys

from setuptools import Extension, setup
from setuptools.command.build_ext import build_ext

ROOT = pathlib.Path(__file__).resolve().parent


class CMakeExtension(Extension):
    def __init__(self, name):
        super().__init__(name, sources=[])


class CMakeBuild(build_ext):
    def build_extension(self, ext):
        build_dir = pathlib.Path(os.environ.get("CONCORD_CMAKE_BUILD_DIR",
                                                ROOT / "build-python"))
        build_dir.mkdir(parents=True, exist_ok=True)
        configure = [
            "cmake", "-S", str(ROOT), "-B", str(build_dir), "-G", "Ninja",
            "-DCMAKE_BUILD_TYPE=Release",
            f"-DPython_EXECUTABLE={sys.executable}",
            "-DCONCORD_BUILD_PYTHON=ON",
        ]
        if "CONCORD_CMAKE_BUILD_DIR" not in os.environ:
            # A private build only needs the libraries the module links.
            configure += ["-DCONCORD_BUILD_TESTS=OFF", "-DCONCORD_BUILD_BENCHMARKS=OFF"]
        env = dict(os.environ)
        env.setdefault("CCACHE_BASEDIR", str(ROOT))
        subprocess.check_call(configure, env=env)
        subprocess.check_call(["cmake", "--build", str(build_dir), "--target", "concord_python",
                               "-j", os.environ.get("CONCORD_BUILD_JOBS", "2")], env=env)
        built = sorted((build_dir / "python" / "concord").glob("_core*.so"))
        if not built:
            raise RuntimeError(f"CMake built no concord/_core*.so under {build_dir}")
        target = pathlib.Path(self.get_ext_fullpath(ext.name))
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(built[0], target)


setup(
    ext_modules=[CMakeExtension("concord._core")],
    cmdclass={"build_ext": CMakeBuild},
    # setuptools' default build/ is another engineer's CMake folder: keep out of it.
    options={"build": {"build_base": "build-python/setuptools"}},
    zip_safe=False,
)
