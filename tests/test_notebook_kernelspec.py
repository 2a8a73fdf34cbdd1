"""Every notebook is stored with the kernelspec JupyterLab writes, so opening it changes nothing.

JupyterLab sets ``metadata.kernelspec`` to the connected kernel's spec (display name
"Python 3 (ipykernel)"); a notebook stored with another one is "modified" on opening. The fix
is ``.dev/set_kernelspec.py``; this file checks the notebooks and pins the script's behaviour
(metadata only, idempotent, nbformat's layout kept).
"""

import importlib.util
import json

import pytest

from browser_support import ROOT

_spec = importlib.util.spec_from_file_location("set_kernelspec", ROOT / ".dev" / "set_kernelspec.py")
set_kernelspec = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(set_kernelspec)

NOTEBOOKS = set_kernelspec.book_notebooks(ROOT)


def test_the_book_has_notebooks():
    assert any(p.name == "pca.ipynb" for p in NOTEBOOKS)


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.relative_to(ROOT).as_posix())
def test_notebook_is_stored_with_jupyterlabs_kernelspec(path):
    spec = json.loads(path.read_text(encoding="utf-8"))["metadata"].get("kernelspec")
    assert spec == set_kernelspec.KERNELSPEC, (
        f"{path.name} stores kernelspec {spec}; JupyterLab rewrites it on opening, so the "
        "notebook shows as modified: run `python .dev/set_kernelspec.py`")


def _notebook(kernelspec):
    nb = {"cells": [{"cell_type": "markdown", "id": "a", "metadata": {}, "source": "Ünïcode"}],
          "metadata": {"language_info": {"name": "python"}}, "nbformat": 4, "nbformat_minor": 5}
    if kernelspec is not None:
        nb["metadata"]["kernelspec"] = kernelspec
    return set_kernelspec.dumps(nb)


@pytest.mark.parametrize("old", [None, {"display_name": "Python 3", "language": "python",
                                        "name": "python3"}])
def test_script_changes_the_kernelspec_only_and_is_idempotent(tmp_path, old):
    path = tmp_path / "x.ipynb"
    path.write_text(_notebook(old), encoding="utf-8")
    assert set_kernelspec.main(["--check", str(path)]) == 1
    assert set_kernelspec.main([str(path)]) == 0
    once = path.read_text(encoding="utf-8")
    assert once == _notebook(set_kernelspec.KERNELSPEC)
    assert set_kernelspec.main([str(path)]) == 0
    assert path.read_text(encoding="utf-8") == once
    assert set_kernelspec.main(["--check", str(path)]) == 0


def test_script_leaves_a_correct_notebook_byte_for_byte(tmp_path):
    path = tmp_path / "x.ipynb"
    text = _notebook(set_kernelspec.KERNELSPEC).replace('\n "nbformat"', '\n  "nbformat"')
    path.write_text(text, encoding="utf-8")
    set_kernelspec.main([str(path)])
    assert path.read_text(encoding="utf-8") == text
