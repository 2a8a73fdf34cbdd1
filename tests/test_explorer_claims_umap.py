"""The UMAP chapter's "try X: you will see Y" sentences, tested on the explorer's own data.

* "Try min_dist 0.99: the curve stays near 1 over a wide range, and each digit's group spreads
  out": at 0.99 the fitted q(d) is above 0.9 at d = 0.5 (at 0.1 it is not), and every class's
  spread, relative to the size of the map, is larger than at min_dist 0.
* "Try n_neighbors 5: the graph breaks into pieces, and a few points of a class form an island
  of their own": the fuzzy graph of the explorer's data has more than one component at k = 5
  (one at the default 15), and a small component holds points of a single class.
"""

import numpy as np
import pytest
import scipy.sparse as sp

from mlnotes.umap import fit_ab, fuzzy_graph, low_dimensional_similarity
from mlnotes.widgets.umap import digits_data, draw_umap, umap_run

N_SAMPLES, N_EPOCHS = 400, 200  # the explorer's fixed settings


def _relative_spread(Z, y):
    size = np.ptp(Z, axis=0).max()
    return np.array([np.linalg.norm(Z[y == c] - Z[y == c].mean(0), axis=1).mean()
                     for c in np.unique(y)]) / size


def test_explorer_defaults_are_the_settings_the_claims_use():
    import inspect

    defaults = {k: p.default for k, p in inspect.signature(draw_umap).parameters.items()}
    assert defaults["n_samples"] == N_SAMPLES and defaults["n_epochs"] == N_EPOCHS


def test_min_dist_099_keeps_the_curve_high_and_spreads_the_groups():
    for md, high in ((0.99, True), (0.1, False)):
        a, b = fit_ab(md, 1.0)
        assert bool(low_dimensional_similarity(0.5, a, b) > 0.9) is high
    _, y = digits_data(N_SAMPLES)
    tight = _relative_spread(umap_run(15, 0.0, N_SAMPLES, N_EPOCHS, 0)[0], y)
    loose = _relative_spread(umap_run(15, 0.99, N_SAMPLES, N_EPOCHS, 0)[0], y)
    assert np.all(loose > tight)


@pytest.mark.parametrize("k, pieces", [(5, True), (15, False)])
def test_five_neighbours_break_the_graph_into_pieces(k, pieces):
    X, y = digits_data(N_SAMPLES)
    P, _, _ = fuzzy_graph(X, k)
    n, labels = sp.csgraph.connected_components(P, directed=False)
    assert bool(n > 1) is pieces
    if pieces:
        sizes = np.bincount(labels)
        island = np.flatnonzero(labels == np.argmin(sizes))
        assert len(island) < 0.1 * len(X) and len(np.unique(y[island])) == 1
