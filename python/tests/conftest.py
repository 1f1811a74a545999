"""Shared fixtures: the repository root and small scenes."""

import os
import pathlib

import pytest

ROOT = pathlib.Path(os.environ.get("CONCORD_SOURCE_DIR",
                                   pathlib.Path(__file__).resolve().parents[2]))


@pytest.fixture
def root():
    return ROOT


def box_on_plane(height=0.5 + 5e-4, **scene_args):
    """A 1 m, 1000 kg cube released just above the plane y = 0."""
    import concord
    s = concord.Scene(name="box", **scene_args)
    s.add_plane(point=(0, 0, 0), normal=(0, 1, 0))
    s.add_body(concord.Shape.box((1, 1, 1)), name="box", position=(0, height, 0),
               material=concord.Material(1000.0, 1e8))
    return s
