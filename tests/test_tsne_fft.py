"""FFT-interpolated t-SNE: neighbours, sparse affinities, interpolation, gradient, estimator.

References are independent of the code under test: brute-force distances and sorts, the dense
perplexity search, direct double sums over all pairs, and the exact t-SNE gradient of
:mod:`mlnotes.sne` (itself checked against finite differences and scikit-learn in test_sne.py).
"""

import warnings

import numpy as np
import pytest
import scipy.sparse as sp
from sklearn.datasets import load_digits

from mlnotes import affinities, sne, tsne_fft
from mlnotes.graphs import squared_distances


@pytest.fixture(scope="module")
def digits():
    return load_digits().data[:400]


@pytest.fixture(scope="module")
def P_digits(digits):
    return tsne_fft.sparse_affinities(digits, 30.0)[0]


def _rel(a, b):
    """Relative error in the Frobenius norm."""
    return np.linalg.norm(a - b) / np.linalg.norm(b)


def _random_map(N, scale, seed):
    return scale * np.random.default_rng(seed).standard_normal((N, 2))


# --- neighbours and affinities -----------------------------------------------------------------
@pytest.mark.parametrize("dim, sample", [(3, 20), (20, 20), (20, 2)])
def test_nearest_neighbors_match_brute_force(dim, sample, monkeypatch):
    """The k-d tree (dim 3), the blocked BLAS search sorting whole rows (dim 20: a sample of
    20 x 22 candidates is all 500 points) and bounding them by a sampled 10% of the columns."""
    X = np.random.default_rng(1).normal(size=(500, dim))
    X[7] = X[3]  # a duplicate pair: each is the other's nearest neighbour, at distance 0
    monkeypatch.setattr(tsne_fft, "KNN_BLOCK_BYTES", 8 * 500 * 37)  # 37 rows a block
    monkeypatch.setattr(tsne_fft, "KNN_SAMPLE_MIN", sample)
    idx, D2 = tsne_fft.nearest_neighbors(X, 12)
    full = squared_distances(X)
    np.fill_diagonal(full, np.inf)
    ref = np.sort(full, axis=1)[:, :12]
    np.testing.assert_allclose(D2, ref, atol=1e-10)
    np.testing.assert_allclose(np.take_along_axis(full, idx, axis=1), D2, atol=1e-10)
    assert not (idx == np.arange(500)[:, None]).any()
    assert idx[3, 0] == 7 and idx[7, 0] == 3 and D2[3, 0] == 0


def test_knn_search_hits_the_perplexity(digits):
    _, D2 = tsne_fft.nearest_neighbors(digits, 90)
    P, sigma = sne.knn_conditional_affinities(D2, 30.0)
    np.testing.assert_allclose(P.sum(axis=1), 1.0, rtol=1e-12)
    assert np.abs(2.0 ** sne.entropy_bits(P) - 30.0).max() <= 1e-5
    E = np.exp(-D2 / (2 * sigma[:, None] ** 2))  # the Gaussian rows with the returned sigma
    np.testing.assert_allclose(P, E / E.sum(axis=1, keepdims=True), rtol=1e-9)


def test_all_neighbours_give_the_dense_joint_P(digits):
    """With k = N - 1 neighbours the sparse P is the exact method's P (both searches stop
    within 1e-5 of the perplexity, from different starts: values agree to ~1e-6)."""
    X = digits[:150]
    P, sigma = tsne_fft.sparse_affinities(X, 20.0, n_neighbors=149)
    P_cond, sigma_ref = sne.conditional_affinities(squared_distances(X), 20.0)
    np.testing.assert_allclose(P.toarray(), sne.joint_affinities(P_cond), rtol=1e-4, atol=1e-15)
    np.testing.assert_allclose(sigma, sigma_ref, rtol=1e-4)


def test_sparse_P_is_a_symmetric_distribution_on_the_kNN_graph(P_digits):
    assert sp.issparse(P_digits) and P_digits.shape == (400, 400)
    assert abs(P_digits.sum() - 1.0) < 1e-12
    assert abs(P_digits - P_digits.T).max() == 0
    assert not P_digits.diagonal().any()
    assert P_digits.nnz <= 2 * 90 * 400


def test_perplexity_search_does_not_stall_where_newton_circles(monkeypatch):
    """A kNN row met in the 20 000-point benchmark data (noisy upsampled digits), on which
    Newton's steps circle inside the bracket for hundreds of steps; the search bisects after
    NEWTON_STEPS and converges."""
    rng = np.random.default_rng(0)
    D = load_digits().data
    X = D[rng.integers(0, len(D), 20000)] + rng.normal(scale=2.0, size=(20000, 64))
    d2 = ((X - X[4897]) ** 2).sum(axis=1)
    d2[4897] = np.inf
    D2 = np.sort(d2)[None, :90]
    P, _ = sne.knn_conditional_affinities(D2, 30.0)
    assert abs(2.0 ** sne.entropy_bits(P)[0] - 30.0) <= 1e-5
    monkeypatch.setattr(affinities, "NEWTON_STEPS", 10**9)
    with pytest.warns(RuntimeWarning, match="did not reach perplexity=30"):
        sne.knn_conditional_affinities(D2, 30.0)


# --- interpolation ------------------------------------------------------------------------------
@pytest.mark.parametrize("p", [1, 2, 3, 5])
def test_lagrange_weights_reproduce_polynomials_of_degree_below_p(p):
    u = np.linspace(0, 1, 17)
    nodes = (np.arange(p) + 0.5) / p
    W = tsne_fft.lagrange_weights(u, p)
    for degree in range(p):
        np.testing.assert_allclose(W @ nodes**degree, u**degree, atol=1e-12)
    np.testing.assert_allclose(W[:, :], tsne_fft.lagrange_weights(u, p))
    np.testing.assert_allclose(tsne_fft.lagrange_weights(nodes, p), np.eye(p), atol=1e-12)


def _direct_repulsion(Z, dof):
    """Z_sum = sum_{i != j} k_ij and r_i = sum_j k_ij w_ij (z_i - z_j) by the double sum."""
    W = 1.0 / (1.0 + squared_distances(Z) / dof)
    np.fill_diagonal(W, 0.0)
    K = W ** ((dof + 1) / 2)
    B = K * W
    return K.sum(), B.sum(axis=1)[:, None] * Z - B @ Z


@pytest.mark.parametrize("dof", [1.0, 0.6])
def test_repulsion_matches_the_double_sum_and_improves_with_the_grid(dof):
    Z = _random_map(600, 4.0, 0)
    Z_sum_ref, r_ref = _direct_repulsion(Z, dof)
    errors = []
    for grid in [dict(n_interp=3), dict(n_interp=4), dict(), dict(box_width=0.5)]:
        Z_sum, r = tsne_fft.repulsion(Z, dof=dof, **grid)
        errors.append((abs(Z_sum - Z_sum_ref) / Z_sum_ref, _rel(r, r_ref)))
    assert errors[2][0] < 1e-4 and errors[2][1] < 1e-2  # the default grid
    assert errors[3][0] < 1e-5 and errors[3][1] < 3e-4
    assert errors[0][1] > errors[1][1] > errors[2][1] > errors[3][1], errors


def test_repulsion_in_one_dimension():
    Z = _random_map(500, 8.0, 2)[:, :1]
    Z_sum_ref, r_ref = _direct_repulsion(Z, 1.0)
    Z_sum, r = tsne_fft.repulsion(Z)
    assert abs(Z_sum - Z_sum_ref) / Z_sum_ref < 1e-3
    assert _rel(r, r_ref) < 2e-2  # the default boxes of side 1.25: 1-2% (the module doc)
    Z_sum, r = tsne_fft.repulsion(Z, box_width=0.5)
    assert _rel(r, r_ref) < 1e-3


# --- gradient and objective -----------------------------------------------------------------------
@pytest.mark.parametrize("scale", [1e-3, 1.0, 3.0, 10.0, 40.0])
def test_fft_gradient_matches_the_exact_gradient(P_digits, scale):
    Z = _random_map(400, scale, 3)
    kl_ref, g_ref = sne.tsne_objective_gradient(Z, P_digits.toarray())
    kl, g = tsne_fft.fft_objective_gradient(Z, P_digits)
    assert _rel(g, g_ref) < 2e-2  # the default boxes of side 1.25: 1-2% (the module doc)
    assert abs(kl - kl_ref) < 1e-3 * kl_ref


def test_fft_gradient_error_falls_as_the_grid_is_refined(P_digits):
    Z = _random_map(400, 10.0, 4)  # a map spread over ~70 units: the default grid is coarse
    _, g_ref = sne.tsne_objective_gradient(Z, P_digits.toarray())
    grids = [dict(n_interp=3), dict(n_interp=4), dict(), dict(box_width=0.5)]
    errors = [_rel(tsne_fft.fft_objective_gradient(Z, P_digits, **g)[1], g_ref) for g in grids]
    assert np.all(np.diff(errors) < 0), errors
    assert errors[-1] < 3e-4


def test_fft_gradient_for_other_dof_and_one_dimension(P_digits):
    Z = _random_map(400, 2.0, 5)
    _, g_ref = sne.tsne_objective_gradient(Z, P_digits.toarray(), dof=0.5)
    assert _rel(tsne_fft.fft_objective_gradient(Z, P_digits, dof=0.5)[1], g_ref) < 1e-2
    z = Z[:, :1] * 3
    kl_ref, g_ref = sne.tsne_objective_gradient(z, P_digits.toarray())
    kl, g = tsne_fft.fft_objective_gradient(z, P_digits)
    assert _rel(g, g_ref) < 2e-2 and abs(kl - kl_ref) < 1e-3 * kl_ref  # boxes of side 1.25


def test_exaggerated_P_gives_the_exaggerated_attraction(P_digits):
    """The optimiser passes alpha P: the attraction scales by alpha, the repulsion does not."""
    Z = _random_map(400, 2.0, 6)
    _, g1 = tsne_fft.fft_objective_gradient(Z, P_digits)
    _, g12 = tsne_fft.fft_objective_gradient(Z, 12.0 * P_digits)
    _, g_ref = sne.tsne_objective_gradient(Z, 12.0 * P_digits.toarray())
    assert _rel(g12, g_ref) < 1e-2
    _, g1_again = tsne_fft.fft_objective_gradient(Z, P_digits)  # the cache follows the values
    np.testing.assert_array_equal(g1, g1_again)


def test_many_pairs_attract_in_single_precision(P_digits, monkeypatch):
    """From SINGLE_PRECISION_PAIRS pairs on the attraction's arithmetic is float32: the
    gradient and KL move by ~1e-6 relative, far below the interpolation's 1%."""
    Z = _random_map(400, 5.0, 7)
    monkeypatch.setattr(tsne_fft._UpperPairs, "last", None)
    kl64, g64 = tsne_fft.fft_objective_gradient(Z, P_digits)
    assert tsne_fft._UpperPairs.last.dtype == np.float64
    monkeypatch.setattr(tsne_fft, "SINGLE_PRECISION_PAIRS", 1)
    monkeypatch.setattr(tsne_fft._UpperPairs, "last", None)
    kl32, g32 = tsne_fft.fft_objective_gradient(Z, P_digits)
    assert tsne_fft._UpperPairs.last.dtype == np.float32
    assert _rel(g32, g64) < 1e-5 and abs(kl32 - kl64) < 1e-6 * abs(kl64)
    assert _rel(g32, g64) > 0  # the single-precision path did run


# --- the estimator ------------------------------------------------------------------------------
def test_auto_keeps_the_exact_method_for_small_N(digits):
    X = digits[:120]
    auto = sne.TSNE(perplexity=10, max_iter=300, random_state=0)
    exact = sne.TSNE(perplexity=10, max_iter=300, random_state=0, method="exact")
    np.testing.assert_array_equal(auto.fit_transform(X), exact.fit_transform(X))
    assert auto.method_ == "exact" and isinstance(auto.P_, np.ndarray)


def test_auto_switches_to_fft_for_large_N(digits, monkeypatch):
    monkeypatch.setattr(sne, "AUTO_EXACT_MAX_N", 100)
    model = sne.TSNE(perplexity=10, max_iter=300, random_state=0).fit(digits[:120])
    assert model.method_ == "fft" and sp.issparse(model.P_)
    model3 = sne.TSNE(3, perplexity=10, max_iter=300, random_state=0).fit(digits[:120])
    assert model3.method_ == "exact"  # no 3-D grid: auto stays exact


def test_fft_and_exact_gradients_reach_the_same_kl(digits, P_digits):
    """The same objective (the sparse P), start and schedule, optimised with the exact and
    with the interpolated gradient: the final maps' KL (exact evaluation) agree within 3%."""
    Z0 = sne.initial_embedding(digits, 2)
    P_dense = P_digits.toarray()
    schedule = dict(max_iter=500, learning_rate=400 / 48, late_learning_rate=100.0)
    exact = sne.optimize(sne.tsne_objective_gradient, Z0, P_dense, **schedule)[0]
    fft = sne.optimize(tsne_fft.fft_objective_gradient, Z0, P_digits, **schedule)[0]
    kl_exact = sne.tsne_objective_gradient(exact, P_dense)[0]
    kl_fft = sne.tsne_objective_gradient(fft, P_dense)[0]
    assert abs(kl_fft - kl_exact) < 0.03 * kl_exact, (kl_fft, kl_exact)
    # the KL the FFT method reports (interpolated Z) is the exact KL of its map
    assert abs(tsne_fft.fft_objective_gradient(fft, P_digits)[0] - kl_fft) < 1e-3 * kl_fft


@pytest.mark.slow
def test_fft_tsne_at_3000_points_matches_exact_kl():
    """At 3 000 points, the exact method (dense P, exact gradient) and the FFT method (sparse
    P, interpolated gradient) run the same 150 iterations of t-SNE's second phase (momentum
    0.8, rate N/4) from the same map (the early-exaggeration phase, run once, with the FFT
    method): the FFT map's KL for the dense P is within 3% of the exact map's (measured: 0.7765
    vs 0.7683, 1.1%; 2.1% after 250 iterations). The exact gradient at 3 000 points is what
    costs here: about 15 s of CPU."""
    X = load_digits().data
    X = np.vstack([X, X[:1203] + np.random.default_rng(0).normal(scale=1.0, size=(1203, 64))])
    N = X.shape[0]
    P_dense = sne.joint_affinities(sne.conditional_affinities(squared_distances(X), 30.0)[0])
    P_sparse = tsne_fft.sparse_affinities(X, 30.0)[0]
    Z0 = sne.initial_embedding(X, 2)
    early = dict(start=0, stop=250, learning_rate=N / 48, momentum=0.5, exaggeration=12.0)
    Z_early = sne.gradient_descent(tsne_fft.fft_objective_gradient, Z0, 12.0 * P_sparse,
                                   **early)[0]
    late = dict(start=250, stop=400, learning_rate=N / 4, momentum=0.8)
    Z_exact = sne.gradient_descent(sne.tsne_objective_gradient, Z_early, P_dense, **late)[0]
    Z_fft = sne.gradient_descent(tsne_fft.fft_objective_gradient, Z_early, P_sparse, **late)[0]
    kl_exact = sne.tsne_objective_gradient(Z_exact, P_dense)[0]
    kl_fft = sne.tsne_objective_gradient(Z_fft, P_dense)[0]
    assert abs(kl_fft - kl_exact) < 0.03 * kl_exact, (kl_fft, kl_exact)


def test_fft_history_callback_and_kl_attribute(digits):
    seen = []
    model = sne.TSNE(perplexity=20, max_iter=300, random_state=0, method="fft", record_every=100,
                     callback=lambda it, Z, kl: seen.append(it) and False).fit(digits[:200])
    assert model.history_.iterations == [0, 100, 200, 300]
    assert model.kl_divergence_ == model.history_.kl[-1]
    assert seen == list(range(1, 301))


# --- bad input ----------------------------------------------------------------------------------
def test_n_jobs_threads_do_not_change_the_map(digits):
    X = digits[:200]
    one = sne.TSNE(perplexity=20, max_iter=300, random_state=0, method="fft").fit_transform(X)
    two = sne.TSNE(perplexity=20, max_iter=300, random_state=0, method="fft",
                   n_jobs=2).fit_transform(X)
    np.testing.assert_allclose(two, one, rtol=1e-10, atol=1e-10)


@pytest.mark.parametrize("n_jobs", [0, -2, 1.5, True, "2"])
def test_bad_n_jobs_is_refused(digits, n_jobs):
    with pytest.raises(ValueError, match="n_jobs must be None .* or -1"):
        sne.TSNE(perplexity=20, max_iter=100, method="fft", n_jobs=n_jobs).fit(digits[:100])
    with pytest.raises(ValueError, match="workers must be None"):
        tsne_fft.fft_objective_gradient(digits[:50, :2], np.zeros((50, 50)), workers=n_jobs)


def test_bad_method_is_refused(digits):
    with pytest.raises(ValueError, match=r"method must be one of \('auto', 'exact', 'fft'\), "
                                         r"got 'barnes_hut'"):
        sne.TSNE(method="barnes_hut").fit(digits[:50])


def test_fft_refuses_3d_maps(digits):
    with pytest.raises(ValueError, match="method='fft' embeds in 1 or 2 dimensions, got "
                                         "n_components=3"):
        sne.TSNE(3, perplexity=10, method="fft").fit(digits[:50])
    with pytest.raises(ValueError, match="maps of dimension 1 or 2, got 3"):
        tsne_fft.fft_objective_gradient(np.zeros((5, 3)), sp.eye_array(5))


def test_fft_objective_refuses_bad_P():
    Z = _random_map(6, 1.0, 0)
    A = sp.csr_array(np.triu(np.ones((6, 6)), 1) / 15)
    with pytest.raises(ValueError, match="P must be symmetric with a zero diagonal"):
        tsne_fft.fft_objective_gradient(Z, A)
    with pytest.raises(ValueError, match=r"P has shape \(6, 6\) but Z has 5 rows"):
        tsne_fft.fft_objective_gradient(Z[:5], A + A.T)
    with pytest.raises(ValueError, match="finite, non-negative"):
        tsne_fft.fft_objective_gradient(Z, -(A + A.T))


def test_neighbour_search_refuses_bad_k():
    X = np.zeros((5, 2))
    with pytest.raises(ValueError, match=r"k=5 neighbours needs at least k \+ 1 = 6 points"):
        tsne_fft.nearest_neighbors(X, 5)
    with pytest.raises(ValueError, match=r"needs 1 < perplexity < k = 4"):
        sne.knn_conditional_affinities(np.ones((3, 4)), 4.0)


def test_duplicates_are_reported_by_the_knn_search():
    X = np.vstack([np.zeros((40, 3)), np.random.default_rng(0).normal(size=(60, 3))])
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        tsne_fft.sparse_affinities(X, 10.0)
    assert any("exact duplicate" in str(x.message) for x in w)


def test_many_exact_duplicates_are_mapped_not_diverged():
    # issue 35, bug 5: 6 points x 60 copies; each point's 30 neighbours are all twins, so its
    # affinities are the perplexity search's limit (uniform over them) and the copies of a
    # point land on one place, the six places apart (as openTSNE maps it)
    X = np.repeat(np.random.default_rng(0).normal(size=(6, 5)), 60, axis=0)
    with pytest.warns(RuntimeWarning, match=r"point 0 has 30 exact duplicate\(s\).*remove "
                                            r"duplicate points"):
        Z = sne.TSNE(method="fft", perplexity=10, max_iter=300, random_state=0).fit_transform(X)
    group = np.repeat(np.arange(6), 60)
    centres = np.array([Z[group == g].mean(axis=0) for g in range(6)])
    spread = max(np.abs(Z[group == g] - centres[g]).max() for g in range(6))
    gaps = np.sqrt(squared_distances(centres)[np.triu_indices(6, 1)])
    assert np.isfinite(Z).all() and spread < 1e-3 * gaps.min()


def test_few_points_spread_far_sum_the_repulsion_exactly(monkeypatch):
    # issue 35, bug 6: scikit-learn's test_64bit maps 10 points over ~200 units, where side-1
    # boxes would need a grid of ~1 000^2 nodes for 45 pairs; the objective sums them instead
    X = np.random.RandomState(0).randn(10, 2)
    P = sne.joint_affinities(affinities.conditional_affinities(squared_distances(X), 2.0)[0])
    Z = _random_map(10, 100.0, 1)
    kl_ref, g_ref = sne.tsne_objective_gradient(Z, P)
    kl, g = tsne_fft.fft_objective_gradient(Z, sp.csr_array(P))
    assert _rel(g, g_ref) < 1e-12 and abs(kl - kl_ref) < 1e-12 * abs(kl_ref)

    def no_grid(*args, **kwargs):
        raise AssertionError("the grid was used for a 10-point map")

    monkeypatch.setattr(tsne_fft, "_interpolated_repulsion", no_grid)
    Z = sne.TSNE(method="fft", perplexity=2, learning_rate=100.0, init="random", max_iter=300,
                 random_state=0).fit_transform(X)
    assert np.isfinite(Z).all()


# --- the grid scales with the map (issue 25) --------------------------------------------------
def test_grid_floor_grows_with_n_up_to_fit_snes_fifty_boxes():
    assert [tsne_fft.default_min_boxes(n) for n in [10, 150, 600, 999, 1000, 2000, 20000]] == [
        5, 8, 30, 50, 50, 50, 50]
    # a small map of 150 points gets the floor (8 boxes of 5 nodes per axis, not 50), a large
    # one boxes of side 1 (its extent in boxes)
    for scale, boxes in [(0.5, 8), (10.0, None)]:
        Z = _random_map(150, scale, 0)
        extent = float(np.ptp(Z, axis=0).max())
        size = tsne_fft._grid_size(Z, tsne_fft.N_INTERPOLATION, tsne_fft.default_min_boxes(150),
                                   tsne_fft.BOX_WIDTH)
        _, _, m, h = tsne_fft._grid(Z, tsne_fft.N_INTERPOLATION, size)
        expected = boxes or int(np.ceil(extent / tsne_fft.BOX_WIDTH))
        assert m == expected * tsne_fft.N_INTERPOLATION
        assert h * tsne_fft.N_INTERPOLATION <= tsne_fft.BOX_WIDTH


def test_large_n_gets_four_nodes_per_box(monkeypatch):
    assert [tsne_fft.default_n_interp(n) for n in [150, 49_999, 50_000, 70_000]] == [5, 5, 4, 4]
    Z = _random_map(400, 10.0, 8)
    five, four = (tsne_fft.repulsion(Z, n_interp=p)[1] for p in (5, 4))
    assert _rel(four, five) > 1e-3  # the two grids differ
    np.testing.assert_array_equal(tsne_fft.repulsion(Z)[1], five)
    monkeypatch.setattr(tsne_fft, "LARGE_N", 400)  # 400 points count as many
    np.testing.assert_array_equal(tsne_fft.repulsion(Z)[1], four)


def test_small_n_with_the_floor_keeps_the_gradient_accurate():
    X = load_digits().data[:150]
    P, _ = tsne_fft.sparse_affinities(X, 30.0)
    for scale in [0.5, 3.0, 10.0]:  # maps of extent ~3, ~20 and ~60 units
        Z = _random_map(150, scale, 1)
        _, g_exact = sne.tsne_objective_gradient(Z, P.toarray())
        _, g_fft = tsne_fft.fft_objective_gradient(Z, P)
        assert _rel(g_fft, g_exact) < 1e-2, scale


def test_fft_on_150_points_runs_a_small_grid():
    # the price of the small grid: boxes of side 1 over a 20-unit map interpolate the small
    # gradient of a nearly converged 150-point map to ~10% (50 boxes of side 0.4: 0.4%), and
    # the KL after 300 iterations is 0.39 (0.32 with 50 boxes, 0.29 exact); on so few points
    # the exact method is the right one, which method="auto" picks below 5 000 points
    X = load_digits().data[:150]
    tsne = sne.TSNE(method="fft", max_iter=300, random_state=0)
    Z = tsne.fit_transform(X)
    assert np.isfinite(Z).all() and tsne.method_ == "fft"
    exact = sne.TSNE(method="exact", max_iter=300, random_state=0).fit(X)
    assert tsne.kl_divergence_ < 1.5 * exact.kl_divergence_
