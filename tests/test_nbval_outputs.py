"""The outputs nbval compares hold on any machine, and the exceptions are listed in one place.

* every cell listed in ``tests/nbval_uncompared.yml`` exists, is not compared, and says why;
* the book keeps at least ``MIN_COMPARED`` compared cells (the exceptions stay exceptions);
* no compared output prints the digits of a machine-precision residual (``3.9e-14``): those
  digits belong to one BLAS kernel; a residual is printed as a bound (``< 1e-12``).

The second half of the guarantee is dynamic: ``make test`` (``make test-notebooks-kernel``)
runs every notebook under another OpenBLAS kernel with two BLAS threads, and nbval compares the
same outputs.
"""

import json
import re

import pytest
import yaml

from browser_support import ROOT

NBVAL_TAG = "nbval-check-output"
MIN_COMPARED = 180
UNCOMPARED = ROOT / "tests" / "nbval_uncompared.yml"
# A number in scientific notation at or below 1e-9, other than a power of ten (a tolerance) and
# not after "<" or "≤" (a bound): the rounding noise of one machine.
TINY_RE = re.compile(r"(?<![\w.<≤])(?<![<≤] )(?<!<= )[-+]?(?!1[eE])\d+(?:\.\d+)?[eE]-0*(?:9|[1-9]\d+)\b")


def _notebooks():
    return sorted(path for path in (ROOT / "book").rglob("*.ipynb")
                  if ".ipynb_checkpoints" not in path.parts and "_build" not in path.parts)


def _cells(path):
    return json.loads(path.read_text(encoding="utf-8"))["cells"]


def _compared(cell):
    return NBVAL_TAG in cell.get("metadata", {}).get("tags", [])


def _output_text(cell):
    parts = []
    for output in cell.get("outputs", []):
        if output.get("output_type") == "stream":
            parts.append("".join(output.get("text", "")))
        elif "data" in output and "text/plain" in output["data"]:
            parts.append("".join(output["data"]["text/plain"]))
    return "".join(parts)


def _entries():
    entries = yaml.safe_load(UNCOMPARED.read_text(encoding="utf-8")) or []
    assert isinstance(entries, list), f"{UNCOMPARED.name} must be a list of entries"
    return entries


def test_uncompared_cells_exist_are_not_compared_and_say_why():
    seen = set()
    for entry in _entries():
        assert set(entry) == {"notebook", "cell", "reason"}, entry
        key = (entry["notebook"], entry["cell"])
        assert key not in seen, f"listed twice: {key}"
        seen.add(key)
        path = ROOT / entry["notebook"]
        assert path.is_file(), f"{entry['notebook']}: no such notebook"
        cells = {cell.get("id"): cell for cell in _cells(path)}
        assert entry["cell"] in cells, f"{entry['notebook']}: no cell with id {entry['cell']}"
        cell = cells[entry["cell"]]
        assert cell["cell_type"] == "code", key
        assert not _compared(cell), f"{key} is listed as not compared but carries {NBVAL_TAG}"
        assert len(entry["reason"].split()) >= 5, f"{key}: give the reason in a sentence"


def test_the_book_keeps_its_compared_cells():
    compared = sum(_compared(cell) for path in _notebooks() for cell in _cells(path))
    assert compared >= MIN_COMPARED, (
        f"only {compared} cells are compared by nbval (at least {MIN_COMPARED}): print what the "
        "computation determines and compare it, rather than dropping the comparison")


@pytest.mark.parametrize("path", _notebooks(), ids=lambda p: p.relative_to(ROOT).as_posix())
def test_compared_outputs_print_no_rounding_noise(path):
    bad = []
    for index, cell in enumerate(_cells(path)):
        if cell["cell_type"] == "code" and _compared(cell):
            bad += [f"cell {index}: {m.group(0)}" for m in TINY_RE.finditer(_output_text(cell))]
    assert not bad, ("compared outputs print a machine-precision residual's digits; print a "
                     "bound instead (e.g. '< 1e-12'): " + "; ".join(bad))


def test_the_noise_pattern_can_fail():
    assert TINY_RE.search("residual 3.9e-14")
    assert TINY_RE.search("max error 2e-10 here")
    assert not TINY_RE.search("residual < 1e-12")
    assert TINY_RE.search("error 1.0e-13")
    assert not TINY_RE.search("error < 2e-13, <= 3e-12, ≤ 4.5e-11")
    assert not TINY_RE.search("step 1e-3, tolerance 5e-08, bound 1e-12")
