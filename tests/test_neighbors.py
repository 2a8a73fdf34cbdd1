"""Approximate nearest neighbours (mlnotes/neighbors.py) against the exact search.

The exact neighbours come from :func:`mlnotes.tsne_fft.nearest_neighbors` (every pair); the
approximate ones must find most of them (recall), on clustered data and on a manifold, return
exact distances for what they found, repeat themselves under a seed, and refuse bad input with
a message that says what to do. UMAP's ``neighbors_algorithm`` switches between the two.
"""

import numpy as np
import pytest
import scipy.sparse as sp

import mlnotes as ml
from mlnotes import neighbors as nd
from mlnotes.datasets import make_clusters, make_swiss_roll
from mlnotes.metrics import trustworthiness
from mlnotes.neighbors import neighbor_recall, nn_descent, rp_forest_neighbors
from mlnotes.tsne_fft import nearest_neighbors

K = 14  # UMAP's default: 15 counting the point itself


def _clustered():
    """3 000 points in 20 dimensions: ten Gaussian clusters of unequal spread."""
    rng = np.random.default_rng(0)
    X, _ = make_clusters(3000, sizes=[1] * 10, spreads=np.linspace(0.5, 2.0, 10),
                         n_features=20, separation=4.0, random_state=0)
    return X + 0.01 * rng.normal(size=X.shape)


def _manifold():
    """A Swiss roll (3 000 points) placed in 30 dimensions by a random rotation, with noise."""
    rng = np.random.default_rng(1)
    X, _ = make_swiss_roll(3000, noise=0.3, random_state=1)
    Q, _ = np.linalg.qr(rng.normal(size=(30, 30)))
    return X @ Q[:3] + 0.05 * rng.normal(size=(3000, 30))


@pytest.fixture(scope="module", params=["clustered", "manifold"])
def data(request):
    """The data, its exact neighbours and NN-descent's (default settings)."""
    X = _clustered() if request.param == "clustered" else _manifold()
    return X, nearest_neighbors(X, K)[0], nn_descent(X, K, random_state=0)


def test_nn_descent_finds_almost_all_exact_neighbours(data):
    # measured: 0.960 on the clusters (20-D Gaussians: the hard case), 0.99 on the roll
    X, exact, (ind, _) = data
    assert neighbor_recall(ind, exact) >= 0.95


def test_descent_improves_on_the_forest_alone(data):
    # the rounds are the method: two trees alone find 0.28 (clusters) and 0.84 (roll) of the
    # exact neighbours, the rounds from there 0.94 and 0.99. (One tree would not do: its leaves
    # are closed groups, and neighbours of neighbours never leave a leaf.)
    X, exact, _ = data
    forest = neighbor_recall(rp_forest_neighbors(X, K, n_trees=2, random_state=0)[0], exact)
    descent = neighbor_recall(nn_descent(X, K, n_trees=2, random_state=0)[0], exact)
    assert descent > forest + 0.1 and descent > 0.9


def _leaf_lists_and_rounds(X, n_trees, rounds=3):
    """The forest's lists from ``n_trees`` trees, the lists after ``rounds`` NN-descent
    rounds, and each point's leaf in the first tree (the steps of nn_descent, seed 0)."""
    rng = np.random.default_rng(0)
    Xs = nd._centred_single(X)
    m = max(K, nd.MIN_LIST)
    sq = np.einsum("ij,ij->i", Xs, Xs)
    trees = [nd._rp_tree_leaves(Xs, max(nd.LEAF_SIZE, m + 1), rng) for _ in range(n_trees)]
    guesses = [nd._leaf_neighbors(Xs, sq, leaves, m) for leaves in trees]
    ind, D2 = nd._keep_nearest(np.concatenate([g[0] for g in guesses], axis=1),
                               np.concatenate([g[1] for g in guesses], axis=1), m)
    order, starts = trees[0]
    leaf = np.empty(len(X), dtype=np.intp)
    leaf[order] = np.repeat(np.arange(len(starts) - 1), np.diff(starts))
    after = ind
    for _ in range(rounds):
        after, D2, _ = nd._descent_round(Xs, after, D2, order, rng)
    return ind, after, leaf


def test_with_one_tree_the_rounds_stay_in_the_leaf_and_improve_nothing(data):
    # the scaling chapter's claim (section "Neighbours without all pairs: NN-descent"): with
    # one tree a list names only points of its own leaf, and so do its neighbours' lists, so
    # the rounds find nothing new; a second tree joins the leaves and the rounds improve
    X, exact, _ = data
    forest, after, leaf = _leaf_lists_and_rounds(X, n_trees=1)
    rows = np.broadcast_to(np.arange(len(X))[:, None], after.shape)
    found = after >= 0
    assert np.all(leaf[after[found]] == leaf[rows[found]])
    recall = lambda ind: neighbor_recall(ind[:, :K], exact)
    assert recall(after) <= recall(forest) + 1e-3  # no better (equal up to float32 ties)
    forest2, after2, leaf2 = _leaf_lists_and_rounds(X, n_trees=2)
    found2 = after2 >= 0
    assert np.mean(leaf2[after2[found2]] != leaf2[rows[found2]]) > 0.05
    assert recall(after2) > recall(forest2) + 0.1


def test_distances_are_exact_sorted_and_rows_distinct(data):
    X, _, (ind, dist) = data
    assert ind.shape == dist.shape == (len(X), K)
    np.testing.assert_allclose(dist, np.linalg.norm(X[ind] - X[:, None, :], axis=2),
                               rtol=1e-12, atol=1e-12)
    assert (np.diff(dist, axis=1) >= 0).all()
    assert not (ind == np.arange(len(X))[:, None]).any()  # a point is not its own neighbour
    assert all(len(set(row)) == K for row in ind[::50])


def test_same_seed_same_neighbours():
    X = _clustered()[:1000]
    a = nn_descent(X, 10, n_trees=2, max_rounds=1, random_state=7)
    b = nn_descent(X, 10, n_trees=2, max_rounds=1, random_state=7)
    c = rp_forest_neighbors(X, 10, n_trees=2, random_state=8)
    np.testing.assert_array_equal(a[0], b[0])
    np.testing.assert_array_equal(a[1], b[1])
    assert not np.array_equal(rp_forest_neighbors(X, 10, n_trees=2, random_state=7)[0], c[0])


def test_small_and_degenerate_data_get_full_lists():
    # fewer points than a leaf, k = N - 1, and every point equal (the cuts cannot separate them)
    X = np.random.default_rng(0).normal(size=(12, 3))
    ind, _ = nn_descent(X, 11, random_state=0)
    assert (np.sort(ind, axis=1) == [np.delete(np.arange(12), i) for i in range(12)]).all()
    same = np.ones((100, 4))
    ind, dist = nn_descent(same, 5, random_state=0)
    assert (dist == 0).all() and not (ind == np.arange(100)[:, None]).any()
    assert all(len(set(row)) == 5 for row in ind)


def test_one_neighbour_is_found_as_well_as_many():
    # short lists are searched with MIN_LIST entries: k = 1 keeps the recall of k = 10
    X = np.random.default_rng(0).normal(size=(2000, 10))
    assert neighbor_recall(nn_descent(X, 1, random_state=0)[0], nearest_neighbors(X, 1)[0]) > 0.97


def test_neighbor_recall_counts_the_exact_ones_found():
    exact = np.array([[1, 2, 3], [0, 2, 3]])
    assert neighbor_recall(np.array([[3, 1, 2], [2, 5, 6]]), exact) == pytest.approx(4 / 6)


@pytest.mark.parametrize("call, error, message", [
    (lambda X: nn_descent(X, 30), ValueError,
     r"n_neighbors=30 needs at least n_neighbors \+ 1 = 31 samples .* got 30; choose "
     r"n_neighbors < 30"),
    (lambda X: nn_descent(X, 0), ValueError, "n_neighbors must be finite and > 0, got 0"),
    (lambda X: nn_descent(X, 2.5), TypeError, "n_neighbors must be an integer, got 2.5"),
    (lambda X: nn_descent(X, 5, n_trees=0), ValueError, "n_trees must be finite and > 0"),
    (lambda X: nn_descent(X, 5, max_rounds=-1), ValueError, "max_rounds must be finite and >= 0"),
    (lambda X: nn_descent(X, 5, random_state="seed"), TypeError, "random_state must be None"),
    (lambda X: nn_descent(np.where(X > 1, np.nan, X), 5), ValueError, "NaN"),
    (lambda X: neighbor_recall(np.zeros((30, 5)), np.zeros((30, 4))), ValueError,
     r"indices has shape \(30, 5\) and exact_indices \(30, 4\); both must be \(N, k\)"),
])
def test_bad_input_messages(call, error, message):
    X = np.random.default_rng(0).normal(size=(30, 3))
    with pytest.raises(error, match=message):
        call(X)


# --- UMAP's switch --------------------------------------------------------------------------
def test_umap_nn_descent_gives_a_map_as_trustworthy_as_the_exact_search():
    X = _manifold()[:1500]
    kw = dict(n_epochs=100, random_state=0)
    exact = ml.UMAP(neighbors_algorithm="exact", **kw).fit_transform(X)
    approx = ml.UMAP(neighbors_algorithm="nn-descent", **kw).fit_transform(X)
    assert trustworthiness(X, approx, 10) >= trustworthiness(X, exact, 10) - 0.01


def test_umap_auto_switches_by_size(monkeypatch):
    from mlnotes import umap

    calls = []
    monkeypatch.setattr(umap, "_nn_descent", lambda X, k, rng: calls.append(len(X)) or
                        nn_descent(X, k, random_state=rng))
    X = _clustered()[:400]
    ml.UMAP(n_epochs=5, random_state=0).fit(X)
    assert calls == []  # 400 points: exact
    monkeypatch.setattr(umap, "NN_DESCENT_MIN_N", 300)
    ml.UMAP(n_epochs=5, random_state=0).fit(X)
    assert calls == [400]
    ml.UMAP(n_epochs=5, metric="manhattan", random_state=0).fit(X)  # other metrics: exact
    assert calls == [400]


@pytest.mark.parametrize("kw, X, error, message", [
    (dict(neighbors_algorithm="kd_tree"), None, ValueError,
     r"neighbors_algorithm must be one of \('auto', 'exact', 'nn-descent'\), got 'kd_tree'"),
    (dict(neighbors_algorithm="nn-descent", metric="cosine"), None, ValueError,
     "searches in Euclidean distance only, and metric='cosine'; use metric='euclidean' or "
     "neighbors_algorithm='exact'"),
    (dict(neighbors_algorithm="nn-descent"), "sparse", TypeError,
     "neighbors_algorithm='nn-descent' needs dense rows, and X is sparse"),
])
def test_umap_neighbors_algorithm_messages(kw, X, error, message):
    data = np.random.default_rng(0).normal(size=(40, 3))
    if X == "sparse":
        data = sp.csr_matrix(data)
    with pytest.raises(error, match=message):
        ml.UMAP(n_epochs=5, **kw).fit(data)


def test_umap_with_nn_descent_repeats_itself_under_a_seed():
    X = _clustered()[:400]
    kw = dict(neighbors_algorithm="nn-descent", n_epochs=10)
    np.testing.assert_array_equal(ml.UMAP(random_state=5, **kw).fit_transform(X),
                                  ml.UMAP(random_state=5, **kw).fit_transform(X))
