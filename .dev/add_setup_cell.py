"""Give every chapter notebook its install cell (idempotent).

Usage: .venv/bin/python .dev/add_setup_cell.py book/*.ipynb book/homework/*.ipynb

The cell comes first, is tagged ``remove-cell`` (the HTML book does not show it) and does
nothing where mlnotes is importable (a clone with ``make lab``, Binder). On Colab it installs
mlnotes from the repository; the published book fills the address in (book/_ext/publish.py), so
the committed notebooks carry ``MLNOTES = ""`` and never a made-up address. It is never PyPI's
``mlnotes``, which is an unrelated project.
"""

import sys

import nbformat

MARKER = "# Setup: install mlnotes where it is missing"
SOURCE = f'''{MARKER} (Colab). Does nothing elsewhere.
import importlib.util
import subprocess
import sys

MLNOTES = ""  # pip requirement; the published book fills in its repository
if importlib.util.find_spec("mlnotes") is None:
    if not MLNOTES:
        raise ModuleNotFoundError(
            "mlnotes is not installed in this kernel. In a clone of the "
            "book's repository run `make lab`, or `pip install -e .` (see "
            "'Run this book' in the introduction)."
        )
    subprocess.run(
        [sys.executable, "-m", "pip", "install", "-q", MLNOTES], check=True
    )'''


def add_setup_cell(nb):
    """Insert or refresh the install cell; return True if the notebook changed."""
    for i, cell in enumerate(nb.cells):
        if cell.cell_type == "code" and cell.source.startswith(MARKER):
            if cell.source == SOURCE and i == _first_code_index(nb):
                return False
            del nb.cells[i]
            break
    cell = nbformat.v4.new_code_cell(SOURCE, metadata={"tags": ["remove-cell"]})
    index = _first_code_index(nb)
    nb.cells.insert(len(nb.cells) if index is None else index, cell)
    return True


def _first_code_index(nb):
    return next((i for i, c in enumerate(nb.cells) if c.cell_type == "code"), None)


def main(paths):
    for path in paths:
        nb = nbformat.read(path, as_version=4)
        if add_setup_cell(nb):
            nbformat.write(nb, path)
            print(f"{path}: install cell added")


if __name__ == "__main__":
    main(sys.argv[1:])
