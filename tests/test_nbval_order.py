"""The nbval passes' order (``tests/nbval_order.py``): longest notebook first, cells in order."""

import json
import types

from tests import nbval_order


def _cell(seconds, n_mutants=0):
    execution = {"iopub.execute_input": "2026-01-01T00:00:00.000000Z",
                 "shell.execute_reply": f"2026-01-01T00:00:{seconds:09.6f}Z"}
    return {"cell_type": "code", "source": "", "outputs": [],
            "metadata": {"execution": execution,
                         "mutants": [{"find": "a", "replace": "b", "why": "c"}] * n_mutants}}


def _notebook(path, *cells):
    path.write_text(json.dumps({"cells": [*cells, {"cell_type": "markdown", "source": "x",
                                                   "metadata": {}}]}))
    return path


def test_expected_time_is_the_stored_cell_times_once_more_per_mutant(tmp_path):
    nb = _notebook(tmp_path / "a.ipynb", _cell(2.5), _cell(1.0, n_mutants=2),
                   {"cell_type": "code", "source": "", "metadata": {}, "outputs": []})
    start, untimed = nbval_order.START_S, nbval_order.UNTIMED_S
    assert nbval_order.expected_seconds(str(nb), False) == start + 2.5 + 1.0 + untimed
    assert nbval_order.expected_seconds(str(nb), True) == start + 2.5 + 3 * 1.0 + untimed


def test_the_longest_notebook_goes_first_and_each_keeps_its_cells_in_order(tmp_path):
    short = _notebook(tmp_path / "short.ipynb", _cell(1.0), _cell(1.0))
    long = _notebook(tmp_path / "long.ipynb", _cell(9.0))
    also_short = _notebook(tmp_path / "also_short.ipynb", _cell(2.0))
    items = [types.SimpleNamespace(path=p, name=f"{p.stem}{k}")
             for p, n in ((short, 2), (long, 3), (also_short, 2)) for k in range(n)]
    items.append(types.SimpleNamespace(path=tmp_path / "test_x.py", name="test_x"))
    config = types.SimpleNamespace(pluginmanager=types.SimpleNamespace(has_plugin=lambda n: False))
    nbval_order.pytest_collection_modifyitems(None, config, items)
    assert [i.name for i in items] == ["long0", "long1", "long2", "short0", "short1",
                                       "also_short0", "also_short1", "test_x"]
