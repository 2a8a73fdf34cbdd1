"""UMAP (mlnotes/umap.py): each step against its equation, against umap-learn, and as an estimator.

umap-learn is a test reference only (the package does not need it): its fuzzy graph on the same
neighbours, its fitted a and b, and the quality of its map on the same data.
"""

import warnings

import numpy as np
import pytest
import scipy.sparse as sp

import mlnotes as ml
from mlnotes import umap as umap_module
from mlnotes.graphs import DisconnectedGraphWarning, _kneighbors
from mlnotes.metrics import knn_preservation, trustworthiness
from mlnotes.umap import (
    component_start,
    cross_entropy,
    cross_entropy_gradient,
    fit_ab,
    fuzzy_graph,
    fuzzy_union,
    low_dimensional_similarity,
    matching_rounds,
    membership_strengths,
    optimize_layout,
    smooth_knn_distances,
    spectral_start,
    target_curve,
)

from finite_differences import central_differences


@pytest.fixture(scope="module")
def digits():
    from sklearn.datasets import load_digits

    data = load_digits()
    return data.data.astype(float), data.target


def _knn_distances(X, k):
    """umap-learn's kNN layout: the point itself first (distance 0), then its k - 1 neighbours.
    Distances rounded to float32, which umap-learn stores rho and sigma in."""
    ind = np.hstack([np.arange(len(X))[:, None], _kneighbors(X, k - 1)])
    dist = np.sqrt(((X[ind] - X[:, None, :]) ** 2).sum(-1))
    return ind, dist.astype(np.float32).astype(float)


# --- step 1: the graph -------------------------------------------------------------------------
def test_sigma_solves_the_log2_k_equation(digits):
    X, _ = digits
    k = 15
    _, dist = _knn_distances(X[:400], k)
    rho, sigma = smooth_knn_distances(dist[:, 1:], k)
    assert np.array_equal(rho, np.where(dist[:, 1:] > 0, dist[:, 1:], np.inf).min(axis=1))
    total = np.exp(-np.maximum(dist[:, 1:] - rho[:, None], 0) / sigma[:, None]).sum(axis=1)
    assert np.abs(total - np.log2(k)).max() < 1e-5


def test_memberships_are_one_at_the_nearest_neighbour_and_decay():
    d = np.array([[1.0, 2.0, 4.0], [0.5, 0.5, 3.0]])
    rho, sigma = np.array([1.0, 0.5]), np.array([2.0, 1.0])
    P = membership_strengths(d, rho, sigma)
    assert np.allclose(P, [[1, np.exp(-0.5), np.exp(-1.5)], [1, 1, np.exp(-2.5)]])
    # sigma 0 (every neighbour at the same distance): memberships 1, not NaN
    assert np.array_equal(membership_strengths(d[:1], np.array([4.0]), np.array([0.0])),
                          [[1.0, 1.0, 1.0]])


def test_fuzzy_union_is_the_probabilistic_or():
    rng = np.random.default_rng(0)
    n, m = 30, 5
    ind = np.array([rng.choice(np.delete(np.arange(n), i), m, replace=False) for i in range(n)])
    P_cond = rng.uniform(0.05, 1.0, size=(n, m))
    P = fuzzy_union(ind, P_cond, n).toarray()
    A = np.zeros((n, n))
    A[np.repeat(np.arange(n), m), ind.ravel()] = P_cond.ravel()
    assert np.allclose(P, 1 - (1 - A) * (1 - A.T), atol=1e-15)
    assert np.allclose(P, P.T) and P.max() <= 1 and np.all(np.diag(P) == 0)


def test_fuzzy_graph_equals_umap_learn_on_the_same_neighbours(digits):
    umap_ = pytest.importorskip("umap.umap_")
    X, _ = digits
    for k in (5, 15, 40):
        ind, dist = _knn_distances(X, k)
        G, sigma_ref, rho_ref = umap_.fuzzy_simplicial_set(
            X, k, 0, "euclidean", knn_indices=ind, knn_dists=dist)[:3]
        rho, sigma = smooth_knn_distances(dist[:, 1:], k)
        P = fuzzy_union(ind[:, 1:], membership_strengths(dist[:, 1:], rho, sigma), len(X))
        assert abs(G - P).max() < 1e-6, k
        # sigma: float32 sums in umap-learn move the last bisection step (1e-6 relative at most)
        assert np.allclose(sigma, sigma_ref, rtol=1e-5) and np.array_equal(rho, rho_ref)


# --- step 2: the similarity in the map ------------------------------------------------------------
@pytest.mark.parametrize("min_dist, spread", [(0.1, 1.0), (0.0, 1.0), (0.5, 1.0), (0.25, 2.0),
                                              (0.99, 1.0)])
def test_a_and_b_equal_umap_learns(min_dist, spread):
    umap_ = pytest.importorskip("umap.umap_")
    a_ref, b_ref = umap_.find_ab_params(spread, min_dist)
    a, b = fit_ab(min_dist, spread)
    assert abs(a - a_ref) < 1e-6 * max(1, a_ref) and abs(b - b_ref) < 1e-6 * max(1, b_ref)


def test_the_fit_follows_the_target_curve_and_a_b_one_is_student_t():
    a, b = fit_ab(0.1, 1.0)
    x = np.linspace(0, 3, 300)
    assert np.sqrt(np.mean((low_dimensional_similarity(x, a, b) - target_curve(x, 0.1, 1.0))
                           ** 2)) < 0.03
    d = np.linspace(0, 5, 11)
    assert np.allclose(low_dimensional_similarity(d, 1.0, 1.0), 1 / (1 + d**2))
    # larger min_dist: flatter near 0 (b grows), so close pairs count as "together" longer
    assert fit_ab(0.5, 1.0)[1] > fit_ab(0.1, 1.0)[1]


# --- step 3: objective, gradient, optimisation ----------------------------------------------------
def _small_problem(seed=0, n=12):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, 4))
    P, _, _ = fuzzy_graph(X, 5)
    return P, rng.normal(size=(n, 2))


@pytest.mark.parametrize("a, b", [(1.0, 1.0), (1.577, 0.895), (0.6, 1.3)])
def test_gradient_matches_finite_differences(a, b):
    P, Z = _small_problem()
    grad, attraction, repulsion = cross_entropy_gradient(P, Z, a, b)
    fd = central_differences(lambda W: cross_entropy(P, W, a, b), Z, h=1e-6)
    assert np.abs(grad - fd).max() < 1e-6 * max(1, np.abs(fd).max())
    assert np.allclose(grad, attraction - repulsion)


def test_attraction_acts_along_edges_only_and_at_a_b_one_is_4_p_q():
    P, Z = _small_problem(seed=1)
    Pd = P.toarray()
    _, attraction, _ = cross_entropy_gradient(P, Z, 1.0, 1.0)
    diff = Z[:, None] - Z[None]
    q = 1 / (1 + (diff**2).sum(-1))
    assert np.allclose(attraction, 4 * np.einsum("ij,ijk->ik", Pd * q, diff))
    lonely = np.zeros_like(Pd)  # no edges: no attraction at all
    assert np.abs(cross_entropy_gradient(lonely, Z, 1.0, 1.0)[1]).max() == 0


def test_optimisation_lowers_the_cross_entropy_from_a_random_start():
    rng = np.random.default_rng(0)
    centres = rng.normal(scale=8, size=(3, 5))
    X = np.repeat(centres, 20, axis=0) + rng.normal(size=(60, 5))
    P, _, _ = fuzzy_graph(X, 10)
    a, b = fit_ab()
    Z0 = rng.uniform(0, 10, size=(60, 2))
    Z = optimize_layout(P, Z0, a, b, n_epochs=200, random_state=0)
    assert cross_entropy(P, Z, a, b) < 0.6 * cross_entropy(P, Z0, a, b)


def _edge_by_edge(Z, edges, a, b, n_epochs, rate, rng):
    """umap-learn's epochs written out for a graph of weight-1 edges: each edge in turn pulls
    both ends from where the earlier edges left them, then pushes its head from the points its
    negative samples drew (uniform over all points, the head itself skipped; the pushes of one
    edge from one place). ``rng`` makes the draws in the order the optimiser makes them."""
    Z = Z.copy()
    rng.permutation(len(edges) // 2)  # the optimiser's priorities for its rounds
    next_sample, next_negative = np.ones(len(edges)), np.full(len(edges), 1.0 / rate)
    for epoch in range(n_epochs):
        alpha = 1.0 - epoch / n_epochs
        for e, (i, j) in enumerate(edges):
            if next_sample[e] > epoch:
                continue
            d = Z[i] - Z[j]
            s = d @ d
            pull = alpha * np.clip(-2 * a * b * s ** (b - 1) / (1 + a * s**b) * d, -4, 4)
            Z[i] += pull
            Z[j] -= pull
            next_sample[e] += 1.0
            k = max(int(np.floor((epoch - next_negative[e]) * rate)), 0)
            next_negative[e] += k / rate
            pushes = np.sum(rng.integers(0, len(Z), size=k) != i)
            d = Z[i] - Z[j]
            s = d @ d
            Z[i] += pushes * alpha * np.clip(2 * b / ((1e-3 + s) * (1 + a * s**b)) * d, -4, 4)
    return Z


def test_an_epoch_moves_a_pair_edge_by_edge_as_umap_learn():
    # the graph stores the pair twice, (0, 1) and (1, 0); umap-learn pulls along the second
    # from where the first left the points. Summing both pulls from one place (the two
    # directions in one round) doubles the step, and the map's finest scale suffers
    a, b = fit_ab()
    P = sp.csr_matrix(np.array([[0.0, 1.0], [1.0, 0.0]]))
    Z0 = np.array([[0.0, 0.0], [0.3, 0.1]])
    Z = optimize_layout(P, Z0, a, b, n_epochs=12, random_state=np.random.default_rng(0))
    Z_ref = _edge_by_edge(Z0, [(0, 1), (1, 0)], a, b, 12, 5, np.random.default_rng(0))
    assert np.allclose(Z, Z_ref, rtol=0, atol=1e-12)


def test_no_point_is_an_end_of_two_edges_in_a_round(digits):
    X, _ = digits
    P = fuzzy_graph(X[:300], 15)[0].tocoo()
    order, bounds = matching_rounds(P.row, P.col, 300, random_state=0)
    assert np.array_equal(np.sort(order), np.arange(P.nnz))  # every edge once
    heads, tails = P.row[order], P.col[order]
    for lo, hi in zip(bounds[:-1], bounds[1:], strict=True):
        ends = np.concatenate([heads[lo:hi], tails[lo:hi]])
        assert np.unique(ends).size == ends.size
    # as few rounds as a point has edge ends, give or take a few (greedy: below twice that)
    ends_per_point = np.bincount(P.row, minlength=300) + np.bincount(P.col, minlength=300)
    assert ends_per_point.max() <= len(bounds) - 1 < 1.2 * ends_per_point.max()
    with pytest.raises(ValueError, match="joins a point to itself"):
        matching_rounds([0, 1], [0, 0], 2)


def test_a_small_graph_deals_each_epochs_due_edges_into_matchings(digits):
    # below SMALL_GRAPH_EDGES edges the optimiser deals each epoch's due edges into rounds of
    # their own: every due edge once, no point twice in a round, the two directions of a pair
    # in different rounds, and about as few rounds as the busiest point has due edge ends
    X, _ = digits
    P = fuzzy_graph(X[:40], 15)[0].tocoo()
    keep = P.row != P.col
    heads, tails = P.row[keep], P.col[keep]
    assert heads.size <= umap_module.SMALL_GRAPH_EDGES
    per_sample = umap_module.epochs_per_sample(P.data[keep], 30)
    plan = umap_module._epoch_rounds(heads, tails, per_sample, 30, 40, np.random.default_rng(0))
    next_sample = per_sample.copy()
    for epoch, (by_round, cut) in enumerate(plan):
        due = np.flatnonzero(next_sample <= epoch)
        next_sample[due] += per_sample[due]
        assert np.array_equal(np.sort(by_round), np.arange(due.size))
        if not due.size:  # the first epoch: no edge is due yet
            continue
        busiest = np.bincount(np.concatenate([heads[due], tails[due]])).max()
        rounds = [due[by_round[lo:hi]] for lo, hi in zip(cut[:-1], cut[1:], strict=True)]
        for e in rounds:
            ends = np.concatenate([heads[e], tails[e]])
            assert np.unique(ends).size == ends.size
        assert busiest <= sum(e.size > 0 for e in rounds) < 1.5 * busiest


def test_hubs_share_rounds_and_their_moves_add_up(digits):
    # the optimiser caps the colours at HUB_FACTOR times the median point's number of pairs;
    # a hub's pairs beyond go into the rounds again, and there its pulls are added up
    X, _ = digits
    P = fuzzy_graph(X[:300], 15)[0].tocoo()
    heads, tails = P.row, P.col
    order, bounds = umap_module._rounds(heads, tails, 300, True, np.random.default_rng(0),
                                        hub_share=True)
    assert np.array_equal(np.sort(order), np.arange(P.nnz))  # every edge once
    pairs = np.bincount(np.minimum(heads, tails), minlength=300) + np.bincount(
        np.maximum(heads, tails), minlength=300)
    cap = int(np.ceil(umap_module.HUB_FACTOR * np.median(pairs[pairs > 0]) / 2))
    assert pairs.max() / 2 > cap and len(bounds) - 1 == 2 * cap
    shared = umap_module._shared_rounds(heads[order], tails[order], bounds, 300)
    assert shared.any()
    # a hub pulled by four neighbours placed around it stays put; they all move to it
    a, b = fit_ab()
    planes = [np.array([0.0, 1.0, -1.0, 1j, -1j])]
    umap_module._attract(planes, planes, np.zeros(4, dtype=np.intp), np.arange(1, 5), a, b,
                         0.5, True, True)
    assert abs(planes[0][0]) < 1e-12
    assert np.allclose(np.abs(planes[0][1:]), np.abs(planes[0][1])) and abs(planes[0][1]) < 1


def test_spectral_start_is_laplacian_eigenmaps_of_the_graph(digits):
    X, _ = digits
    P, _, _ = fuzzy_graph(X[:500], 15)
    V = spectral_start(P, 2)
    D = sp.diags(np.asarray(P.sum(axis=1)).ravel())
    L = D - P
    lam = np.einsum("ij,ij->j", V, L @ V) / np.einsum("ij,ij->j", V, D @ V)
    assert np.allclose(L @ V, (D @ V) * lam, atol=1e-8)  # L v = lambda D v
    assert np.allclose(V.T @ (D @ V), np.eye(2), atol=1e-8)


# --- the estimator --------------------------------------------------------------------------------
def test_same_seed_same_map_other_seed_other_map(digits):
    X, _ = digits
    kw = dict(n_epochs=60)
    Z1 = ml.UMAP(random_state=3, **kw).fit_transform(X[:300])
    Z2 = ml.UMAP(random_state=3, **kw).fit_transform(X[:300])
    Z3 = ml.UMAP(random_state=4, **kw).fit_transform(X[:300])
    assert np.array_equal(Z1, Z2) and not np.allclose(Z1, Z3)


def test_fitted_attributes(digits):
    X, _ = digits
    model = ml.UMAP(n_epochs=30, min_dist=0.3, random_state=0).fit(X[:200])
    assert model.embedding_.shape == (200, 2) and model.n_epochs_ == 30
    assert (model.a_, model.b_) == fit_ab(0.3, 1.0)
    P, rho, sigma = fuzzy_graph(X[:200], 15)
    assert abs(model.graph_ - P).max() == 0 and np.array_equal(model.sigma_, sigma)


def test_map_quality_matches_umap_learn_on_digits(digits):
    umap = pytest.importorskip("umap")
    X, _ = digits
    Z = ml.UMAP(n_epochs=200, random_state=0).fit_transform(X)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        Zu = umap.UMAP(n_epochs=200, random_state=0, n_jobs=1).fit_transform(X)
    # the epochs' rounds are umap-learn's edge-by-edge updates in another order (no point in
    # two edges of a round), so the maps differ by the seeds' noise only; the bounds leave room
    # for it on 1 800 points
    assert abs(knn_preservation(X, Z) - knn_preservation(X, Zu)) < 0.03
    assert abs(trustworthiness(X, Z, n_neighbors=10) - trustworthiness(X, Zu, n_neighbors=10)) < 0.02


def test_transform_places_new_points_by_their_neighbours(digits):
    X, y = digits
    train, test = np.arange(0, 1500), np.arange(1500, 1797)
    model = ml.UMAP(n_epochs=200, random_state=0).fit(X[train])
    Zt = model.transform(X[test])
    nearest = _kneighbors(model.embedding_, 1, Zt)[:, 0]
    assert np.mean(y[train][nearest] == y[test]) > 0.9  # new digits land among their class
    # training points given again keep their places
    assert np.array_equal(model.transform(X[train[:50]]), model.embedding_[:50])


def test_the_model_owns_its_training_data(digits):
    # issue 35, bug 2: overwriting the caller's array after fit must not move transform's
    # answers (X_fit_ is a copy, not a reference to float64 input)
    X = digits[0][:300].copy()
    model = ml.UMAP(n_epochs=30, random_state=0).fit(X)
    before = model.transform(X[:5])
    X[:] = 0.0
    assert not np.shares_memory(model.X_fit_, X)
    np.testing.assert_array_equal(model.transform(digits[0][:5]), before)


def test_random_and_disconnected_starts(digits):
    X, _ = digits
    Z = ml.UMAP(init="random", n_epochs=20, random_state=0).fit_transform(X[:100])
    assert np.isfinite(Z).all()
    blobs = np.vstack([np.zeros((20, 3)), np.full((20, 3), 100.0)])
    blobs += np.random.default_rng(0).normal(size=blobs.shape)
    with pytest.warns(DisconnectedGraphWarning, match=r"2 connected components.*laid out on "
                                                      r"its own"):
        Z = ml.UMAP(n_neighbors=5, n_epochs=20, random_state=0).fit_transform(blobs)
    assert np.isfinite(Z).all()
    # the two blobs start apart, each in its own disc, along the line between their centres
    model = ml.UMAP(n_neighbors=5, n_epochs=1, random_state=0)
    with pytest.warns(DisconnectedGraphWarning):
        model.fit(blobs)
    _, labels = sp.csgraph.connected_components(model.graph_, directed=False)
    Z0 = component_start(model.graph_, blobs, 2, labels, np.random.default_rng(0))
    first, second = Z0[labels == 0], Z0[labels == 1]
    gap = np.linalg.norm(first.mean(0) - second.mean(0))
    reach = [np.linalg.norm(part - part.mean(0), axis=1).max() for part in (first, second)]
    assert gap >= sum(reach) - 1e-12  # the two discs do not overlap
    assert np.isclose(gap, 2.0) and np.isclose(max(reach), 1.0)  # centres at +-1, radius 1


def test_more_neighbours_than_samples_is_reduced_with_a_warning():
    X = np.random.default_rng(0).normal(size=(10, 3))
    with pytest.warns(UserWarning, match=r"n_neighbors=15 is larger than the 10 samples; using "
                                         r"n_neighbors=10"):
        ml.UMAP(n_epochs=10, random_state=0).fit(X)


@pytest.mark.parametrize("params, error, match", [
    (dict(n_neighbors=1), ValueError, r"n_neighbors must be at least 2 \(it counts the point"),
    (dict(n_neighbors=2.5), TypeError, r"n_neighbors must be an integer"),
    (dict(min_dist=2.0), ValueError, r"min_dist=2 must not exceed spread=1"),
    (dict(min_dist=-0.1), ValueError, r"min_dist"),
    (dict(spread=0), ValueError, r"spread"),
    (dict(n_epochs=0), ValueError, r"n_epochs"),
    (dict(negative_sample_rate=0), ValueError, r"negative_sample_rate"),
    (dict(learning_rate=-1), ValueError, r"learning_rate"),
    (dict(init="umap"), ValueError, r"init must be one of \('spectral', 'pca', 'random'\)"),
    (dict(init=np.zeros((5, 2))), ValueError, r"init has shape \(5, 2\); expected \(30, 2\)"),
    (dict(n_components=30), ValueError, r"n_components"),
])
def test_bad_parameters_say_what_to_do(params, error, match):
    X = np.random.default_rng(0).normal(size=(30, 3))
    with pytest.raises(error, match=match):
        ml.UMAP(n_epochs=5, **params).fit(X) if "n_epochs" not in params else \
            ml.UMAP(**params).fit(X)


def test_bad_data_is_refused():
    X = np.random.default_rng(0).normal(size=(30, 3))
    X[3, 1] = np.nan
    with pytest.raises(ValueError, match=r"NaN"):
        ml.UMAP().fit(X)
    with pytest.raises(ValueError, match=r"P must hold memberships in \[0, 1\]"):
        cross_entropy(np.full((3, 3), 2.0), np.zeros((3, 2)), 1.0, 1.0)
    with pytest.raises(ValueError, match=r"distances must be non-negative"):
        smooth_knn_distances(-np.ones((4, 3)), 4)


def test_flagged_rounds_are_those_where_a_point_is_twice_and_only_those(digits, monkeypatch):
    # _rounds(hub_share=True) folds the colours (colour %= cap): a pair folded into a lower
    # colour can share a point, hub or not, with a pair already there. What holds is that
    # _shared_rounds flags exactly the rounds in which a point is an end of two edges (their
    # moves are added up by np.add.at), so every round it does not flag is a matching.
    X, _ = digits
    P = fuzzy_graph(X[:300], 15)[0].tocoo()
    keep = P.row != P.col
    heads, tails = P.row[keep], P.col[keep]
    rng = np.random.default_rng(0)

    def twice(h, t, bounds):
        out = []
        for lo, hi in zip(bounds[:-1], bounds[1:], strict=True):
            ends = h[lo:hi] if t is None else np.concatenate([h[lo:hi], t[lo:hi]])
            out.append(np.unique(ends).size < ends.size)
        return np.array(out)

    order, bounds = umap_module._rounds(heads, tails, 300, True, rng, hub_share=True)
    h, t = heads[order], tails[order]
    shared = umap_module._shared_rounds(h, t, bounds, 300)
    assert np.array_equal(shared, twice(h, t, bounds)) and shared.any() and not shared.all()
    # the same edges cut into rounds at random: flagged and unflagged rounds side by side
    cuts = np.unique(np.concatenate([[0, h.size], rng.integers(0, h.size, 600)]))
    for ends_tails in (t, None):  # both ends move, or the heads only (a fixed map)
        flagged = umap_module._shared_rounds(h, ends_tails, cuts, 300)
        assert np.array_equal(flagged, twice(h, ends_tails, cuts))
        assert flagged.any() and not flagged.all()
    # an unflagged round moves its points by plain indexing: the map is the one that adding
    # up every round's moves (np.add.at everywhere) gives, to the last bit
    a, b = fit_ab()
    Z0 = np.random.default_rng(1).uniform(0, 10, size=(300, 2))
    Z = optimize_layout(P, Z0, a, b, n_epochs=20, random_state=0)
    monkeypatch.setattr(umap_module, "_add_at",
                        lambda p, index, values, shared: np.add.at(p, index, values))
    assert np.array_equal(Z, optimize_layout(P, Z0, a, b, n_epochs=20, random_state=0))
