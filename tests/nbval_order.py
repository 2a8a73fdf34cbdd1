"""A pytest plugin for the nbval passes: the longest notebook first.

``make test`` runs every notebook through nbval on two xdist workers, one notebook to a worker
at a time (``--dist loadfile``). xdist hands the notebooks out in order, by default the one
with the most cells first, which is not the one that takes longest: the UMAP chapter (27
cells, the longest to run) went out eleventh of 24 and could run alone at the end while the
other worker waited. This plugin orders the notebooks by their expected run time, longest first
(with ``--no-loadscope-reorder``, so xdist keeps that order), so the short ones fill in at the
end. The cells of a notebook keep their order.

The expected run time is read from the notebook itself: each executed cell stores when it
started and ended (``metadata.execution``); a cell with mutants (``tests/nbval_mutants.py``)
counts once more per mutant when that plugin is loaded (a bound: each mutant runs the cell again
from the first statement it changes).
A notebook without stored timings counts as :data:`UNTIMED_S` per code cell. Only the order
changes: every cell is still run and checked.
"""

import datetime
import functools
import json

import pytest

from tests.mutant_support import mutants

# A kernel's start and nbval's set-up, counted once per notebook (seconds).
START_S = 3.0
# A code cell whose run time the notebook does not store.
UNTIMED_S = 0.5


def _seconds(execution):
    try:
        start = datetime.datetime.fromisoformat(execution["iopub.execute_input"])
        end = datetime.datetime.fromisoformat(execution["shell.execute_reply"])
    except (KeyError, TypeError, ValueError):
        return None
    return max(0.0, (end - start).total_seconds())


@functools.cache
def expected_seconds(path, with_mutants):
    """A notebook's expected time under nbval: its cells' stored run times (once more per
    mutant, ``with_mutants``) plus a kernel's start."""
    try:
        with open(path, encoding="utf-8") as f:
            cells = json.load(f).get("cells", [])
    except (OSError, ValueError):
        return 0.0
    total = START_S
    for cell in cells:
        if cell.get("cell_type") != "code":
            continue
        took = _seconds(cell.get("metadata", {}).get("execution", {}))
        took = UNTIMED_S if took is None else took
        total += took * (1 + (len(mutants(cell)) if with_mutants else 0))
    return total


@pytest.hookimpl(trylast=True)
def pytest_collection_modifyitems(session, config, items):
    """Sort the notebooks' cells by their notebook's expected time, longest first (stable:
    the cells of a notebook stay together and in order)."""
    with_mutants = config.pluginmanager.has_plugin("tests.nbval_mutants")

    def key(item):
        path = getattr(item, "path", None)
        if path is None or path.suffix != ".ipynb":
            return 0.0
        return -expected_seconds(str(path), with_mutants)

    items.sort(key=key)
