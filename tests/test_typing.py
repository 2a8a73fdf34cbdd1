"""The public API carries type hints, and the check of them can fail.

``make test`` runs mypy on tests/typing_api.py (``[tool.mypy]`` in pyproject.toml), which states
with ``assert_type`` what each estimator's calls return. Here: every public estimator's
``fit``/``fit_transform``/``transform``/``inverse_transform`` is annotated (a new estimator
without hints fails), every public step function of the API reference (each module book/api.md
documents: its functions as autodoc lists them) has every parameter and its return annotated (a
new function without hints fails), and mypy rejects a wrong statement about a return type (a
mutant).
"""

import importlib
import inspect
import re
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


def reference_modules():
    """The modules book/api.md documents (``.. automodule:: mlnotes.x``), and the other modules
    ``mlnotes`` exports (``mlnotes.base``; not the packages ``widgets`` and ``homework``)."""
    text = (ROOT / "book" / "api.md").read_text(encoding="utf-8")
    documented = re.findall(r"^\.\. automodule:: (mlnotes[\w.]*)", text, flags=re.MULTILINE)
    exported = [f"mlnotes.{name}" for name in mlnotes._SUBMODULES
                if (ROOT / "mlnotes" / f"{name}.py").is_file()]
    return list(dict.fromkeys(documented + exported))


def public_functions(module):
    """The functions autodoc's ``:members:`` lists for ``module``: those of ``__all__`` when it
    has one, else every public function it defines."""
    names = getattr(module, "__all__", None)
    if names is None:
        names = [n for n, obj in vars(module).items() if not n.startswith("_")
                 and inspect.isfunction(obj) and obj.__module__ == module.__name__]
    return {n: getattr(module, n) for n in names if inspect.isfunction(getattr(module, n))}


def unannotated(function):
    """The parameters (and ``"return"``) of ``function`` that carry no annotation."""
    signature = inspect.signature(function)
    missing = [name for name, p in signature.parameters.items() if p.annotation is p.empty]
    if signature.return_annotation is signature.empty:
        missing.append("return")
    return missing


def test_the_api_reference_documents_the_step_modules():
    modules = reference_modules()
    assert {"mlnotes.graphs", "mlnotes.spectral", "mlnotes.sne", "mlnotes.datasets"} <= set(modules)
    assert sum(len(public_functions(importlib.import_module(m))) for m in modules) >= 120


@pytest.mark.parametrize("module", reference_modules())
def test_every_public_step_function_is_annotated(module):
    found = {name: missing for name, function in public_functions(importlib.import_module(module)).items()
             if (missing := unannotated(function))}
    assert not found, f"{module}: functions without type hints (mlnotes/_typing.py): {found}"


def test_the_annotation_check_can_fail():
    def step(X, n_components: int = 2):
        return X

    def typed(X: object, *, k: int = 2, **options: object) -> object:
        return X

    assert unannotated(step) == ["X", "return"]
    assert unannotated(typed) == []


def _mypy(path):
    return subprocess.run([sys.executable, "-m", "mypy", "--config-file",
                           str(ROOT / "pyproject.toml"), str(path)],
                          cwd=ROOT, capture_output=True, text=True, timeout=300)


def test_mypy_rejects_a_wrong_return_type(tmp_path):
    wrong = tmp_path / "wrong_api.py"
    wrong.write_text("from typing import assert_type\n\nimport numpy as np\n\n"
                     "from mlnotes._typing import FloatArray\nfrom mlnotes.pca import PCA\n\n"
                     "assert_type(PCA().fit(np.zeros((3, 2))), FloatArray)\n"
                     "from mlnotes.metrics import trustworthiness\n"
                     "assert_type(trustworthiness(np.zeros((3, 2)), np.zeros((3, 1))), FloatArray)\n")
    result = _mypy(wrong)
    assert result.returncode == 1, result.stdout + result.stderr
    assert result.stdout.count("assert-type") == 2, result.stdout     # an estimator, a step function
