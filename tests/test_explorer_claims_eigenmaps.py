"""The eigenmaps chapter's sentences about its explorer, checked on the explorer's own data.

The chapter (book/eigenmaps.ipynb) calls ``eigenmaps_explorer()``: the 500-point S-curve,
``n_neighbors`` and the heat parameter ``t``. It says that on this data the graph stays connected
and no edge crosses between the arms of the S for every k the explorer offers (so the explorer
shows neither failure; the chapter's broken Swiss roll shows the first), and that the second
coordinate is a harmonic of the first there, as on the Swiss roll.
"""

import numpy as np
import pytest
from scipy.stats import spearmanr

from mlnotes.graphs import connected_components, knn_graph
from mlnotes.widgets._core import draw_defaults
from mlnotes.widgets.neighbourhood import (
    NEIGHBOURS,
    draw_eigenmaps,
    eigenmaps_spectrum,
    manifold_data,
)


def _args():
    d = draw_defaults(draw_eigenmaps)
    return d, (d["n_samples"], d["noise"], d["random_state"])


@pytest.mark.parametrize("k", NEIGHBOURS)
def test_graph_connected_and_the_s_unrolled_for_every_k(k):
    d, data = _args()
    X, u = manifold_data("s_curve", *data)
    assert connected_components(knn_graph(X, k))[0] == 1
    lam, Z = eigenmaps_spectrum(k, d["t"], *data)
    assert lam[1] > 1e-4  # no second zero eigenvalue: connected in its weights too
    # no short circuit: the first coordinate runs along the S in order
    assert abs(spearmanr(Z[:, 0], u[:, 0])[0]) > 0.95


def test_default_second_coordinate_is_a_harmonic():
    d, data = _args()
    _, u = manifold_data("s_curve", *data)
    _, Z = eigenmaps_spectrum(d["n_neighbors"], d["t"], *data)
    A = np.vander(u[:, 0], 6)
    residual = Z[:, 1] - A @ np.linalg.lstsq(A, Z[:, 1], rcond=None)[0]
    assert 1 - residual.var() / Z[:, 1].var() > 0.95
