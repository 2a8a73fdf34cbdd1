"""Mutation testing for the book: every check in a chapter can fail.

A *check cell* is a code cell with an ``assert`` statement. Each declares in its cell metadata
at least one mutant, the claim made wrong as a careless author would make it::

    "mutants": [{"find": "<exact substring of the cell source>",
                 "replace": "<the wrong claim>",
                 "why": "<one line: the mistake>"}]

This file is the static half: ``test_every_check_cell_declares_mutants`` reads the notebooks (no
kernel): every check cell has a mutant, each ``find`` occurs in its cell, and each says why; a
cell tagged ``check`` (the book shows it as a check) must contain an ``assert``.

The dynamic half runs inside ``make test``'s nbval pass, so the notebooks are executed
once: the plugin ``tests/nbval_mutants.py`` (``-p tests.nbval_mutants``), before nbval runs a
check cell, runs each mutant, i.e. the cell's source with ``find`` replaced by ``replace``, in
the state the cells before it left, and requires an ``AssertionError``. A mutant that passes, or
fails with another error (a ``NameError`` kills nothing: it shows the mutant is broken, not that
the check works), fails that cell's item, which names the cell and the error.

State: a mutant runs in a ``fork`` of nbval's kernel (copy-on-write, a few ms;
``tests/mutant_support.py``), so whatever it assigns, mutates in place or draws from a random
generator dies with the child process; the kernel the real cells run in never sees it, and the
real cell then runs once, as in the book. Check cells therefore need no rule about what they may
assign before their asserts. (The harness leaves one name, ``_mlnotes_mutant``, in the
notebook's namespace.) The child sends no message to the front end (its output is discarded, so
nbval's compared outputs never see it) and is stopped after ``MUTANT_TIMEOUT`` seconds.
``test_nbval_mutants.py`` shows the plugin failing on a tiny notebook.

``test_count`` prints the book's total of check cells and mutants; the plugin's terminal summary
prints the check cells, mutants and killed mutants of the pass (the README states the total).
"""

import nbformat
import pytest

from browser_support import ROOT
from mutant_support import is_check_cell
from mutant_support import mutants as _mutants
from mutant_support import source as _source

BOOK = ROOT / "book"
# Notebooks whose check cells may still lack mutants, each with the reason (empty when done).
ALLOW_UNMUTATED = {}


def _notebooks():
    return sorted(p.name for p in BOOK.glob("*.ipynb"))


def _read(name):
    return nbformat.read(BOOK / name, as_version=4)


def _problems(name):
    """Every check cell of a notebook that has no mutant or a malformed one."""
    nb, bad = _read(name), []
    for i, cell in enumerate(nb.cells):
        mutants = _mutants(cell)
        if cell["cell_type"] != "code":
            continue
        if not is_check_cell(cell):
            if mutants:
                bad.append(f"cell {i} has mutants but no assert")
            if "check" in cell.get("metadata", {}).get("tags", []):
                bad.append(f"cell {i} ({cell.get('id')}) is tagged 'check' but asserts nothing: "
                           "a check that only prints is not a check (assert, or drop the tag)")
            continue
        if not mutants:
            bad.append(f"cell {i} ({cell.get('id')}) checks a claim but declares no mutant")
        for m in mutants:
            if set(m) != {"find", "replace", "why"} or not m["why"].strip():
                bad.append(f"cell {i}: a mutant needs exactly find, replace and a why: {m}")
            elif m["find"] not in _source(cell):
                bad.append(f"cell {i}: mutant find {m['find']!r} does not occur in the source")
            elif m["find"] == m["replace"]:
                bad.append(f"cell {i}: mutant replaces {m['find']!r} by itself")
    return bad


@pytest.mark.parametrize("name", _notebooks())
def test_every_check_cell_declares_mutants(name):
    bad = _problems(name)
    if bad and name in ALLOW_UNMUTATED:
        pytest.skip(f"{name}: {ALLOW_UNMUTATED[name]} ({len(bad)} cells left)")
    assert not bad, f"{name}:\n" + "\n".join(bad)


def test_count():
    cells = mutants = 0
    for name in _notebooks():
        for cell in _read(name).cells:
            if is_check_cell(cell):
                cells += 1
                mutants += len(_mutants(cell))
    print(f"\nthe book: {cells} check cells, {mutants} mutants")
    assert cells and mutants >= cells - sum(
        sum(is_check_cell(c) for c in _read(n).cells) for n in ALLOW_UNMUTATED)
