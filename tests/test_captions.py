"""A figure's caption names its panels where the figure has them.

A caption that says "(left)" under panels stacked one above the other (or "(top)" under a single
row) sends the reader to a panel that is not there. The figure's grid is read from the cell's
``plt.subplots(rows, cols, ...)`` or ``add_subplot(rows, cols, ...)``; the caption's panel words
are a direction opening a parenthesis, "(left", "(top, middle)" and so on.
"""

import json
import pathlib
import re

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[1]
NOTEBOOKS = sorted(p for p in (ROOT / "book").rglob("*.ipynb") if "_build" not in p.parts)
PANEL_WORD = re.compile(r"\((left|right|top|bottom)\b")
GRID = re.compile(r"\b(?:subplots|add_subplot)\(\s*(\d+)\s*,\s*(\d+)")
WRONG = {"column": {"left", "right"}, "row": {"top", "bottom"}}


def caption_faults(cells):
    """(cell index, caption, words) for each caption naming panels its figure's grid lacks."""
    faults = []
    for index, cell in enumerate(cells):
        caption = cell.get("metadata", {}).get("mystnb", {}).get("figure", {}).get("caption", "")
        if cell.get("cell_type") != "code" or not caption:
            continue
        grid = GRID.search("".join(cell["source"]))
        if grid is None:
            continue
        rows, cols = int(grid.group(1)), int(grid.group(2))
        shape = "column" if cols == 1 and rows > 1 else "row" if rows == 1 and cols > 1 else None
        words = set(PANEL_WORD.findall(caption)) & WRONG.get(shape, set())
        if words:
            faults.append((index, caption, sorted(words)))
    return faults


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.relative_to(ROOT).as_posix())
def test_captions_name_panels_the_figure_has(path):
    cells = json.loads(path.read_text(encoding="utf-8"))["cells"]
    assert not caption_faults(cells), (
        f"{path.name}: a caption names panels in a direction its figure's grid does not have "
        f"(cell, caption, words): {caption_faults(cells)}")


def _cell(source, caption):
    return {"cell_type": "code", "source": source,
            "metadata": {"mystnb": {"figure": {"caption": caption}}}}


def test_the_check_rejects_its_mutants():
    stacked = "fig, axes = plt.subplots(3, 1, figsize=(5, 9.6))"
    row = "fig, axes = plt.subplots(1, 2, figsize=(9, 3.6))"
    # the mistakes: left/right under stacked panels, top/bottom under a row
    assert caption_faults([_cell(stacked, "one bandwidth (left, middle) against many (right)")])
    assert caption_faults([_cell(row, "the data (top) and its map (bottom)")])
    # what is right passes, and a direction that is not a panel word is not read as one
    assert not caption_faults([_cell(stacked, "one bandwidth (top, middle), many (bottom)")])
    assert not caption_faults([_cell(row, "the data (left) and the right one's map (right)")])
    assert not caption_faults([_cell(stacked, "two clusters, the right one wider")])
