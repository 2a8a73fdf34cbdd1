"""The API reference (book/api.md) covers the package: every module with public functions or
classes is on the page, each public object has the docstring autodoc renders, and the page's
numbered references cannot collide (book/_ext/apidocs.py). The page itself is built under
``-W --nitpick`` with the book (make book), so a docstring that does not render fails there."""

import importlib
import inspect
import pkgutil
import re
import sys
from pathlib import Path

import mlnotes

ROOT = Path(__file__).resolve().parents[1]
PAGE = (ROOT / "book" / "api.md").read_text(encoding="utf-8")
ON_PAGE = re.findall(r"^\.\. automodule:: (mlnotes\.\w+)$", PAGE, flags=re.MULTILINE)
# Not step functions or estimators: the book's own tooling, documented where it is used.
ELSEWHERE = {"mlnotes.base", "mlnotes.widgets", "mlnotes.homework"}

sys.path.insert(0, str(ROOT / "book" / "_ext"))
import apidocs  # noqa: E402


def _public_objects(module):
    return {name: obj for name, obj in vars(module).items()
            if not name.startswith("_") and (inspect.isfunction(obj) or inspect.isclass(obj))
            and obj.__module__ == module.__name__}


def test_every_module_with_public_objects_is_on_the_page():
    modules = [f"mlnotes.{m.name}" for m in pkgutil.iter_modules(mlnotes.__path__)
               if not m.name.startswith("_")]
    wanted = {name for name in modules if name not in ELSEWHERE
              and _public_objects(importlib.import_module(name))}
    assert wanted - set(ON_PAGE) == set(), "modules missing from book/api.md"
    assert set(ON_PAGE) <= set(modules), "book/api.md documents a module that does not exist"
    assert len(ON_PAGE) == len(set(ON_PAGE)), "a module is on the page twice"


def test_every_public_estimator_and_function_has_a_docstring():
    undocumented = [f"{name}.{obj}" for name in ON_PAGE
                    for obj, value in _public_objects(importlib.import_module(name)).items()
                    if not inspect.getdoc(value)]
    assert not undocumented, f"autodoc would leave these out of the page: {undocumented}"
    # every public estimator is documented where it is defined, hence on the page
    for estimator, module in mlnotes._ESTIMATORS.items():
        assert f"mlnotes.{module}" in ON_PAGE, estimator


def test_numbered_references_become_footnotes_of_their_own_object():
    text = "See [1]_ and [2]_.\n\n.. [1] A. Author.\n   .. [2] B. Author."
    a = apidocs.unique_footnotes("mlnotes.sne", text)
    b = apidocs.unique_footnotes("mlnotes.tsne_fft.repulsion", text)
    assert "[#mlnotes-sne-1]_" in a and ".. [#mlnotes-sne-1] A. Author." in a
    assert "   .. [#mlnotes-sne-2] B. Author." in a
    assert "[#mlnotes-tsne-fft-repulsion-2]_" in b
    targets = lambda t: set(re.findall(r"\.\. \[(#[\w-]+)\]", t))  # noqa: E731
    assert targets(a).isdisjoint(targets(b)), "two docstrings on one page share a target"
    assert "[1]" not in a and "[2]" not in a
