"""The examples run (on small inputs)."""

import os
import pathlib
import subprocess
import sys

import pytest

import loom
from conftest import shared_matrix

if "float64" not in loom.value_types:
    pytest.skip("the examples use float64", allow_module_level=True)

EXAMPLES = pathlib.Path(__file__).parents[1] / "examples"


def run(*args):
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(sys.path))
    result = subprocess.run([sys.executable, *map(str, args)], capture_output=True, text=True,
                            env=env, timeout=300)
    assert result.returncode == 0, result.stderr
    return result.stdout


def test_solve_scipy():
    out = run(EXAMPLES / "solve_scipy.py", shared_matrix("nos4.mtx"))
    assert "loom.solve      info 0" in out


def test_batched_solve():
    out = run(EXAMPLES / "batched_solve.py", 200, 5)
    assert "getrf + getrs agree with gesv: True" in out


def test_gnn_gcn():
    out = run(EXAMPLES / "gnn_gcn.py", 1000, 8)
    assert "graph: 1000 nodes" in out and "agree: True" in out
