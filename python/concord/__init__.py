"""Concord: affine-body contact simulation from Python.

Everything is implemented in the C++ extension ``concord._core`` and re-exported here; see
docs/python.md for the reference and python/examples/ for examples.

    import concord
    world = concord.World("scenes/incline.json")
    world.step(10)
    print(world.q)          # (B, 12) live, read-only numpy view of the state
"""

from ._core import *  # noqa: F401,F403  (the API is the extension's)
from ._core import __version__  # noqa: F401
from . import _core

__all__ = [name for name in dir(_core) if not name.startswith("_")]
