"""A class of 50 submissions (honest, wrong in known ways, stubs, hostile) graded through the
command line in one run, on 2 jobs, with every row checked."""

import csv
import subprocess
import sys
import time
from pathlib import Path

import pytest
from homework_fixtures import instructor, submission, write

from mlnotes.homework.notebook import student_version

ROOT = Path(__file__).resolve().parents[1]


def _variant(nb_replace, expected):
    return submission("spectral", replace=nb_replace), expected


def _class_folder(folder):
    """50 submissions: honest, stubs, wrong in known ways, hostile; returns expected totals."""
    full = 16.0
    kinds = [
        (submission("spectral"), full),
        (student_version(instructor("spectral")), 0.0),
        _variant({"floyd_warshall": "import numpy as np\ndef floyd_warshall(G):\n"
                  "    D = np.array(G, float)\n    n = len(D)\n    for i in range(n):\n"
                  "        for j in range(n):\n            for k in range(n):\n"
                  "                D[i, j] = min(D[i, j], D[i, k] + D[k, j])\n    return D\n"},
                 full - 2),
        _variant({"laplacian": "def laplacian(W):\n    return W - np.diag(W.sum(1))\n"}, full - 1),
        _variant({"double_center": "import numpy as np\ndef double_center(D2):\n"
                  "    C = np.eye(len(D2)) - 1 / len(D2)\n    return C @ D2 @ C\n"},
                 full - 3),  # classical_mds uses double_center too
        _variant({"lle_weights": "def lle_weights(X, n_neighbors, reg):\n"
                  "    return np.zeros((len(X), len(X)))\n"}, full - 2),
        _variant({"knn_graph": "def knn_graph(X, n_neighbors):\n    import os\n    os._exit(3)\n"},
                 full - 1),
        (submission("spectral", extra=["import mlnotes as ml"]), full),
    ]
    expected = {}
    for k in range(50):
        nb, total = kinds[k % len(kinds)]
        name = f"student{k:02d}"
        if k in (5, 25):  # two endless loops (a short timeout keeps the run fast)
            nb, total = _variant({"alignment_matrix": "def alignment_matrix(W):\n"
                                  "    while True:\n        pass\n"}, full - 1)
        if k == 40:
            (folder / name).mkdir()
            write(folder / name / "submission.ipynb", nb)
        else:
            write(folder / f"{name}.ipynb", nb)
        expected[name] = total
    return expected


@pytest.mark.slow
def test_class_of_50_graded_in_one_command(tmp_path):
    folder = tmp_path / "submissions"
    folder.mkdir()
    expected = _class_folder(folder)
    out = tmp_path / "grades" / "grades.csv"
    start = time.perf_counter()
    subprocess.run(
        [sys.executable, "-m", "mlnotes.homework", "grade", str(folder), "--assignment",
         "spectral", "--out", str(out), "--jobs", "2", "--timeout", "3", "--memory", "1024",
         "--seed", "2026"],
        check=True, capture_output=True, text=True, cwd=ROOT,
    )
    elapsed = time.perf_counter() - start
    with open(out, newline="") as f:
        rows = list(csv.DictReader(f))
    assert [r["student"] for r in rows] == sorted(expected)
    got = {r["student"]: float(r["total"]) for r in rows}
    assert got == expected
    assert len(list((out.parent / "feedback").iterdir())) == 50
    assert len(list((out.parent / "results").iterdir())) == 50
    print(f"graded 50 submissions in {elapsed:.1f} s")
    assert elapsed < 300
