"""The public API carries type hints, and the check of them can fail.

``make test`` runs mypy on tests/typing_api.py (``[tool.mypy]`` in pyproject.toml), which states
with ``assert_type`` what each estimator's calls return. Here: every public estimator's
``fit``/``fit_transform``/``transform``/``inverse_transform`` is annotated (a new estimator
without hints fails), and mypy rejects a wrong statement about a return type (a mutant).
"""

import inspect
import subprocess
import sys
import typing
from pathlib import Path

import pytest

import mlnotes

ROOT = Path(__file__).resolve().parents[1]
METHODS = ("fit", "fit_transform", "transform", "inverse_transform", "encode", "decode")


@pytest.mark.parametrize("name", sorted(mlnotes._ESTIMATORS))
def test_every_public_method_of_every_estimator_is_annotated(name):
    cls = getattr(mlnotes, name)
    seen = 0
    for method in METHODS:
        function = inspect.getattr_static(cls, method, None)
        if not inspect.isfunction(function):       # absent, or a property that refuses
            continue
        hints = typing.get_type_hints(function)
        parameters = [p for p in inspect.signature(function).parameters if p != "self"]
        assert "return" in hints, f"{name}.{method} has no return annotation"
        assert set(parameters) <= set(hints), f"{name}.{method}: unannotated {parameters}"
        seen += 1
    assert seen >= 2, name          # at least fit and fit_transform


def _mypy(path):
    return subprocess.run([sys.executable, "-m", "mypy", "--config-file",
                           str(ROOT / "pyproject.toml"), str(path)],
                          cwd=ROOT, capture_output=True, text=True, timeout=300)


def test_mypy_rejects_a_wrong_return_type(tmp_path):
    wrong = tmp_path / "wrong_api.py"
    wrong.write_text("from typing import assert_type\n\nimport numpy as np\n\n"
                     "from mlnotes._typing import FloatArray\nfrom mlnotes.pca import PCA\n\n"
                     "assert_type(PCA().fit(np.zeros((3, 2))), FloatArray)\n")
    result = _mypy(wrong)
    assert result.returncode == 1, result.stdout + result.stderr
    assert "assert-type" in result.stdout
