"""The Isomap chapter's "things to try" with its explorer, checked on the explorer's own data.

The chapter (book/isomap.ipynb, section Explore) calls ``isomap_explorer()``: a noisy 500-point
Swiss roll, a kNN or an epsilon graph. Each test is one of its sentences, computed with the
functions the explorer draws from (:func:`mlnotes.widgets.neighbourhood.isomap_graph`,
:func:`~mlnotes.widgets.neighbourhood.isomap_embedding`).
"""

import json

import pytest

from mlnotes.widgets._core import draw_defaults
from mlnotes.widgets.neighbourhood import (
    HELD_NEIGHBOURS,
    NEIGHBOURS,
    RADII,
    draw_isomap,
    isomap_embedding,
    isomap_explorer,
    isomap_graph,
)

from browser_support import ROOT


def _data_args():
    d = draw_defaults(draw_isomap)
    return d["n_samples"], d["noise"], d["random_state"]


def _short_circuits(graph, size):
    n, noise, seed = _data_args()
    return int(isomap_graph(graph, size, n, noise, seed)[1].sum())


def _state(graph, size):
    """(short circuits, points cut off, residual variance at d = 2) of one explorer setting."""
    n, noise, seed = _data_args()
    _, short = isomap_graph(graph, size, n, noise, seed)
    keep, _, residual = isomap_embedding(graph, size, n, noise, seed)
    return int(short.sum()), n - len(keep), float(residual[1])


def test_the_chapter_calls_the_explorer_these_claims_are_about():
    cells = json.loads((ROOT / "book" / "isomap.ipynb").read_text(encoding="utf-8"))["cells"]
    calls = ["".join(c["source"]) for c in cells
             if c["cell_type"] == "code" and "isomap_explorer(" in "".join(c["source"])]
    assert calls == ["ml.widgets.isomap_explorer()"]
    assert _data_args() == (500, 0.3, 0)


@pytest.mark.parametrize("k", [7, 8])
def test_k_7_or_8_unrolls_the_sheet(k):
    """"with the kNN graph, k = 7 or 8 unrolls the sheet (residual variance at d = 2 about
    0.002)"."""
    assert k in HELD_NEIGHBOURS
    short, lost, rv2 = _state("knn", k)
    assert short == 0 and lost == 0 and rv2 == pytest.approx(0.002, abs=0.001)


def test_k_9_brings_the_first_short_circuit_and_k_10_folds_the_embedding():
    """"at k = 9 the first short circuit appears (1 red edge; residual variance about 0.02), and
    at k = 10 there are 4 and the residual variance jumps to about 0.1"; on the chapter's
    1000-point roll the first ones appear only at k = 15. Every k the live slider offers."""
    assert all(_short_circuits("knn", k) == 0 for k in NEIGHBOURS if k < 9)
    short, lost, rv2 = _state("knn", 9)
    assert short == 1 and lost == 0 and rv2 == pytest.approx(0.02, abs=0.005)
    short, lost, rv2 = _state("knn", 10)
    assert short == 4 and lost == 0 and rv2 == pytest.approx(0.1, abs=0.01)
    assert all(_short_circuits("knn", k) > short for k in NEIGHBOURS if k > 10)


def test_the_sliders_offer_what_the_text_says_and_other_values_are_one_call_away():
    """"the notebook's sliders offer every k from 4 to 20 (and 25, 30) and the same epsilon
    values, and any other is one call away, e.g. isomap_explorer(n_neighbors=22)"."""
    assert NEIGHBOURS == (*range(4, 21), 25, 30)
    explorer = isomap_explorer(n_neighbors=22)
    widget = explorer.widget
    assert widget is not None
    options = {c.name: c.build(explorer.params[c.name]) for c in explorer.controls}
    assert 22 in [v for _, v in options["n_neighbors"].options]
    assert [v for _, v in options["radius"].options] == list(RADII)


def test_epsilon_3_cuts_points_off_4_to_5_unrolls_5_5_short_circuits():
    """"with the epsilon-graph, epsilon = 3 cuts 8 points off, epsilon from 4 to 5 unrolls the
    sheet, and from 5.5 on short circuits appear"."""
    assert _state("epsilon", 3.0)[:2] == (0, 8)
    for r in (4.0, 4.5, 5.0):
        short, lost, rv2 = _state("epsilon", r)
        assert short == 0 and lost == 0 and rv2 < 0.002
    assert all(_short_circuits("epsilon", r) > 0 for r in RADII if r >= 5.5)
