"""Non-metric MDS: the monotone regression (PAVA), ties, stress-1, monotone descent, invariance
to monotone transformations of the dissimilarities, bad input, and parity with scikit-learn."""

import itertools

import numpy as np
import pytest
from scipy.optimize import isotonic_regression
from scipy.spatial import procrustes

import mlnotes as ml
from mlnotes import nonmetric as nm
from mlnotes.graphs import pairwise_distances


def _points(N, seed, L=2):
    return np.random.default_rng(seed).normal(size=(N, L))


# --- the monotone regression -------------------------------------------------------------------------
def kkt_certificate(y, w, x, tol=1e-9):
    """Whether ``x`` is the weighted least-squares non-decreasing fit of ``y``, by its KKT conditions.

    For min 1/2 sum w_k (y_k - x_k)^2 s.t. x_k <= x_{k+1}, stationarity gives the multiplier of
    the k-th constraint as lambda_k = sum_{l <= k} w_l (y_l - x_l). The conditions: x is
    non-decreasing; every lambda_k >= 0; lambda_k = 0 where x_k < x_{k+1} (complementary
    slackness); the last sum is 0 (no constraint after the last value). The problem is convex,
    so they are sufficient: no other non-decreasing vector is closer.
    """
    scale = tol * max(1.0, float(np.abs(y).max()) * w.sum())
    lam = np.cumsum(w * (y - x))
    monotone = np.all(np.diff(x) >= -tol)
    slack = np.abs(lam[:-1][np.diff(x) > tol]).max(initial=0.0) <= scale
    return bool(monotone and lam.min() >= -scale and abs(lam[-1]) <= scale and slack)


def _one_pass_pooling(y):
    """A wrong fit: pools each violating pair once, without repeating."""
    x = y.copy()
    for k in range(len(x) - 1):
        if x[k] > x[k + 1]:
            x[k] = x[k + 1] = (x[k] + x[k + 1]) / 2
    return x


def _brute_force(y, w):
    """The best non-decreasing vector of weighted block means over all 2^(n-1) partitions."""
    best, best_err = None, np.inf
    n = len(y)
    for cuts in itertools.product([False, True], repeat=n - 1):
        starts = np.flatnonzero(np.r_[True, cuts])
        means = np.add.reduceat(w * y, starts) / np.add.reduceat(w, starts)
        if np.any(np.diff(means) < 0):
            continue
        x = np.repeat(means, np.diff(np.r_[starts, n]))
        err = float(w @ (y - x) ** 2)
        if err < best_err:
            best, best_err = x, err
    return best


@pytest.mark.parametrize(
    ("y", "w", "expected"),
    [
        ([1.0, 3.0, 2.0, 4.0], None, [1.0, 2.5, 2.5, 4.0]),  # one violating pair
        ([3.0, 2.0, 1.0], None, [2.0, 2.0, 2.0]),  # all pooled
        ([1.0, 2.0, 2.0, 5.0], None, [1.0, 2.0, 2.0, 5.0]),  # already monotone
        ([4.0, 1.0, 2.0, 0.0, 6.0], None, [1.75, 1.75, 1.75, 1.75, 6.0]),  # pools twice
        ([2.0, 0.0], [1.0, 3.0], [0.5, 0.5]),  # weighted mean (2 + 0 * 3) / 4
    ],
)
def test_pava_known_results(y, w, expected):
    np.testing.assert_allclose(nm.monotone_regression(y, w), expected, rtol=1e-15)


def test_pava_equals_the_brute_force_over_all_partitions():
    rng = np.random.default_rng(0)
    for n in (1, 2, 5, 9):
        for _ in range(5):
            y, w = rng.normal(size=n), rng.uniform(0.2, 3.0, size=n)
            np.testing.assert_allclose(nm.monotone_regression(y, w), _brute_force(y, w),
                                       atol=1e-12)


def test_pava_equals_scipys_independent_implementation():
    rng = np.random.default_rng(1)
    y = np.cumsum(rng.normal(size=5000)) * 0.01 + rng.normal(size=5000)  # a noisy trend
    w = rng.uniform(0.5, 2.0, size=5000)
    np.testing.assert_allclose(nm.monotone_regression(y, w), isotonic_regression(y, weights=w).x,
                               atol=1e-12)


def test_pava_is_the_least_squares_monotone_fit_and_the_certificate_can_fail():
    rng = np.random.default_rng(2)
    y, w = rng.normal(size=200), np.ones(200)
    x = nm.monotone_regression(y)
    assert kkt_certificate(y, w, x)
    # no other non-decreasing vector is closer: random ones, and moves from x toward them
    for _ in range(200):
        v = np.sort(rng.normal(size=200))
        assert np.sum((y - x) ** 2) <= np.sum((y - v) ** 2)
        assert np.dot(y - x, v - x) <= 1e-9  # the projection's variational inequality
    # the certificate rejects wrong fits that are monotone or nearly so
    for wrong in (np.maximum.accumulate(y), _one_pass_pooling(y), np.full_like(y, y.mean()),
                  x + 1e-3, np.where(np.arange(200) == 100, x + 1e-3, x)):
        assert not kkt_certificate(y, w, wrong)


# --- disparities and ties ----------------------------------------------------------------------------
TIED = np.array([[0, 3, 1, 2, 2],
                 [3, 0, 2, 3, 1],
                 [1, 2, 0, 1, 3],
                 [2, 3, 1, 0, 2],
                 [2, 1, 3, 2, 0]], dtype=float)  # a rating scale: many ties


def _sse(Delta, Z, ties):
    D = pairwise_distances(Z)
    Dhat = nm.disparities(Delta, Z, ties=ties, normalize=False)
    iu = np.triu_indices(len(Z), k=1)
    return float(((D - Dhat)[iu] ** 2).sum()), Dhat[iu]


def test_secondary_ties_get_equal_disparities_and_primary_fits_at_least_as_well():
    Z = _points(5, 3)
    iu = np.triu_indices(5, k=1)
    sse_primary, primary = _sse(TIED, Z, "primary")
    sse_secondary, secondary = _sse(TIED, Z, "secondary")
    delta = TIED[iu]
    for level in np.unique(delta):
        assert np.ptp(secondary[delta == level]) == 0.0
    assert any(np.ptp(primary[delta == level]) > 1e-6 for level in np.unique(delta))
    assert sse_primary < sse_secondary


def test_primary_approach_equals_the_best_order_within_ties_by_brute_force():
    """Kruskal's primary approach: sorting tied pairs by distance is the best of all orders."""
    Z = _points(5, 4)
    iu = np.triu_indices(5, k=1)
    d, delta = pairwise_distances(Z)[iu], TIED[iu]
    sse_primary, _ = _sse(TIED, Z, "primary")
    groups = [np.flatnonzero(delta == level) for level in np.unique(delta)]
    best = np.inf
    for perms in itertools.product(*(itertools.permutations(g) for g in groups)):
        order = np.concatenate(perms)
        best = min(best, float(((d[order] - nm.monotone_regression(d[order])) ** 2).sum()))
    assert sse_primary == pytest.approx(best, rel=1e-12)


def test_values_equal_up_to_rounding_are_ties_so_the_scale_of_the_data_does_not_matter():
    """sqrt(8) from two pairs of points is tied at one scale and 1 ulp apart at another; both
    must give the same fit (scikit-learn's test_convergence_does_not_depend_on_scale)."""
    X = np.array([[1.0, 1.0], [1.0, 4.0], [1.0, 5.0], [3.0, 3.0]])
    fits = [ml.NonMetricMDS(random_state=42, ties=ties, eps=1e-6).fit(X * k)
            for ties in ("primary", "secondary") for k in (100.0, 0.01)]
    for a, b in (fits[:2], fits[2:]):
        assert a.n_iter_ == b.n_iter_
        np.testing.assert_allclose(a.embedding_, b.embedding_, atol=1e-12)
    delta = np.array([1.0, np.nextafter(1.0, 2.0), 2.0])
    Delta = np.zeros((3, 3))
    Delta[np.triu_indices(3, k=1)] = delta
    order = nm._Order(Delta + Delta.T, "secondary")
    assert order.has_ties and list(order.block_size) == [2, 1]


def test_rescaled_disparities_are_the_closest_monotone_vector_of_their_length():
    Delta = pairwise_distances(_points(12, 5))
    Z = _points(12, 6)
    iu = np.triu_indices(12, k=1)
    d, order = pairwise_distances(Z)[iu], np.argsort(Delta[iu])
    dhat = nm.disparities(Delta, Z)[iu]
    c = len(d)  # N (N - 1) / 2
    assert np.dot(dhat, dhat) == pytest.approx(c, rel=1e-12)
    assert np.all(np.diff(dhat[order]) >= -1e-12)
    rng = np.random.default_rng(7)
    for _ in range(300):
        v = np.empty_like(d)
        v[order] = np.sort(rng.uniform(size=len(d)))
        v *= np.sqrt(c / np.dot(v, v))
        assert np.sum((dhat - d) ** 2) <= np.sum((v - d) ** 2)
    # and the fit of a perturbation of the regression is not closer (the unscaled fit)
    raw = nm.disparities(Delta, Z, normalize=False)[iu]
    raw_scaled = raw * np.sqrt(c / np.dot(raw, raw))
    np.testing.assert_allclose(raw_scaled, dhat, rtol=1e-12)


# --- stress-1 ---------------------------------------------------------------------------------------
def test_kruskal_stress_is_scale_free_ordinal_and_below_the_metric_stress_1():
    Delta = pairwise_distances(_points(15, 8))
    Z = _points(15, 9)
    s = nm.kruskal_stress(Delta, Z)
    assert nm.kruskal_stress(Delta, 7.5 * Z) == pytest.approx(s, rel=1e-12)
    assert nm.kruskal_stress(np.sqrt(Delta) + Delta**3, Z) == pytest.approx(s, rel=1e-12)
    assert s < ml.metrics.normalized_stress(Delta, Z)  # delta itself is one monotone candidate
    assert nm.kruskal_stress(np.expm1(Delta), _points(15, 8)) < 1e-12  # the truth, distorted


def test_raw_stress_at_the_best_scale_is_c_times_stress_1_squared():
    """min over alpha of sum (dhat - alpha d)^2, dhat rescaled to sum c, is c S_1^2."""
    Delta = pairwise_distances(_points(15, 10))
    Z = _points(15, 11)
    iu = np.triu_indices(15, k=1)
    d, dhat = pairwise_distances(Z)[iu], nm.disparities(Delta, Z)[iu]
    alpha = np.dot(dhat, d) / np.dot(d, d)
    assert np.sum((dhat - alpha * d) ** 2) == pytest.approx(
        len(d) * nm.kruskal_stress(Delta, Z) ** 2, rel=1e-10)


# --- the iteration ------------------------------------------------------------------------------------
def _history(Delta, ties="primary", **kwargs):
    mds = ml.NonMetricMDS(dissimilarity="precomputed", init="random", random_state=0, eps=0,
                          max_iter=60, ties=ties, **kwargs).fit(Delta)
    return np.asarray(mds.stress_history_)


@pytest.mark.parametrize("ties", ["primary", "secondary"])
@pytest.mark.parametrize("data", ["continuous", "tied"])
def test_stress_never_increases(ties, data):
    Delta = np.expm1(pairwise_distances(_points(40, 12)))
    if data == "tied":
        Delta = np.ceil(Delta / Delta.max() * 9)  # a 9-point rating scale
        np.fill_diagonal(Delta, 0.0)
    h = _history(Delta, ties)
    assert np.all(np.diff(h) <= 1e-12 * h[0])
    assert h[-1] < 0.5 * h[0]


def test_the_descent_test_fails_for_an_overlong_step(monkeypatch):
    guttman = nm._guttman
    monkeypatch.setattr(nm, "_guttman", lambda Dhat, Z, D: 1.9 * guttman(Dhat, Z, D))
    h = _history(np.expm1(pairwise_distances(_points(40, 12))))
    assert np.any(np.diff(h) > 1e-12 * h[0])


def test_converged_fit_reports_consistent_stresses():
    Delta = np.expm1(pairwise_distances(_points(30, 13)))
    mds = ml.NonMetricMDS(dissimilarity="precomputed", eps=1e-10, max_iter=3000).fit(Delta)
    Z = mds.embedding_
    D = pairwise_distances(Z)
    iu = np.triu_indices(30, k=1)
    assert mds.stress_ == pytest.approx(float(((mds.disparities_ - D)[iu] ** 2).sum()), rel=1e-12)
    assert (mds.disparities_[iu] ** 2).sum() == pytest.approx(len(iu[0]), rel=1e-12)
    assert mds.normalized_stress_ == pytest.approx(nm.kruskal_stress(Delta, Z), rel=1e-12)
    assert mds.normalized_stress_ < 1e-4  # the distorted distances of a planar set: exact fit
    assert mds.stress_history_[-1] == mds.stress_


# --- the defining property: only the order of the dissimilarities matters ----------------------------
TRANSFORMS = {"sqrt": np.sqrt, "cube plus": lambda x: x**3 + x, "expm1": np.expm1,
              "affine": lambda x: 3 * x + 0.0}


def _invariance_gap(init):
    Delta = pairwise_distances(ml.datasets.make_s_curve(60, random_state=0)[0])
    kwargs = {"dissimilarity": "precomputed", "init": init, "random_state": 0, "max_iter": 100}
    base = ml.NonMetricMDS(**kwargs).fit_transform(Delta)
    gaps = [np.abs(ml.NonMetricMDS(**kwargs).fit_transform(f(Delta)) - base).max()
            for f in TRANSFORMS.values()]
    return max(gaps) / np.abs(base).max()


@pytest.mark.parametrize("init", ["classical", "random"])
def test_result_is_invariant_to_monotone_transformations(init):
    assert _invariance_gap(init) < 1e-9


def test_invariance_test_rejects_a_metric_step(monkeypatch):
    """The mutant: disparities = the rescaled dissimilarities themselves (metric SMACOF)."""

    def metric_step(self, D):
        return self._matrix(self.delta)

    monkeypatch.setattr(nm._Order, "disparities", metric_step)
    assert _invariance_gap("random") > 1e-2


# --- the estimator ------------------------------------------------------------------------------------
def test_estimator_api():
    X = _points(30, 14, L=3)
    mds = ml.NonMetricMDS(n_components=2, random_state=0)
    Z = mds.fit_transform(X)
    assert Z.shape == (30, 2) and mds.embedding_ is Z
    np.testing.assert_allclose(mds.dissimilarity_matrix_, pairwise_distances(X))
    pre = ml.NonMetricMDS(dissimilarity="precomputed", random_state=0).fit(pairwise_distances(X))
    np.testing.assert_allclose(pre.embedding_, Z, atol=1e-12)
    assert "ties" in mds.get_params() and "p" not in mds.get_params()
    assert not hasattr(mds, "transform")
    with pytest.raises(AttributeError, match="NonMetricMDS has no transform for new points"):
        mds.transform(X)
    five = ml.NonMetricMDS(init="random", n_init=5, random_state=0, max_iter=50).fit(X)
    one = ml.NonMetricMDS(init="random", n_init=1, random_state=0, max_iter=50).fit(X)
    assert five.stress_ <= one.stress_


def test_nonmetric_beats_metric_on_monotonically_distorted_distances():
    X = ml.datasets.make_s_curve(150, random_state=0)[0]
    Delta = pairwise_distances(X)
    distorted = np.expm1(Delta)
    nmds = ml.NonMetricMDS(dissimilarity="precomputed").fit(distorted)
    mmds = ml.MetricMDS(dissimilarity="precomputed").fit(distorted)
    assert nm.kruskal_stress(Delta, nmds.embedding_) < 0.5 * nm.kruskal_stress(
        Delta, mmds.embedding_)


# --- bad input ----------------------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("call", "match"),
    [
        (lambda: nm.monotone_regression([[1.0, 2.0]]), r"y must be a non-empty 1-D array"),
        (lambda: nm.monotone_regression([]), r"y must be a non-empty 1-D array"),
        (lambda: nm.monotone_regression([1.0, np.nan]), r"y"),
        (lambda: nm.monotone_regression([1.0, 2.0], [1.0]), r"give one weight per value"),
        (lambda: nm.monotone_regression([1.0, 2.0], [1.0, 0.0]), r"weights must be positive"),
        (lambda: ml.NonMetricMDS(ties="tertiary").fit(_points(5, 0)),
         r"ties must be 'primary' .* or 'secondary' .* got 'tertiary'"),
        (lambda: ml.NonMetricMDS(dissimilarity="precomputed").fit(1 - np.eye(4)),
         r"All dissimilarities between distinct points are equal, so they carry no order"),
        (lambda: ml.NonMetricMDS().fit(_points(2, 0)), r"at least two different"),
        (lambda: ml.NonMetricMDS(dissimilarity="precomputed").fit(-TIED), r"negative entries"),
        (lambda: ml.NonMetricMDS(init=np.zeros((5, 2))).fit(_points(5, 0)),
         r"All points of the configuration coincide .* start from a configuration with "
         r"distinct points"),
        (lambda: ml.NonMetricMDS(init=np.zeros((4, 2))).fit(_points(5, 0)),
         r"init has shape \(4, 2\) but \(n_samples, n_components\) = \(5, 2\) is needed"),
        (lambda: ml.NonMetricMDS(n_components=9).fit(_points(5, 0)), r"n_components"),
        (lambda: nm.kruskal_stress(TIED, np.ones((5, 2))), r"All points of the configuration"),
        (lambda: nm.nonmetric_smacof(TIED, init=_points(4, 0)), r"must describe the same points"),
        (lambda: nm.disparities(TIED, _points(5, 0), ties="both"), r"ties must be"),
    ],
)
def test_bad_input_gets_a_clear_error(call, match):
    with pytest.raises(ValueError, match=match):
        call()


# --- parity with scikit-learn ------------------------------------------------------------------------
# The start is shared (classical MDS of the ranks); both run to convergence. scikit-learn's first
# iteration uses the rescaled dissimilarities as disparities and ours their ranks, so the paths
# differ at the start; the margins are what both reach. scikit-learn pools tied dissimilarities
# (the secondary approach) and treats a zero off the diagonal as missing: the data have none.
def _sk_and_ml(Delta, ties):
    from sklearn.manifold import smacof as sk_smacof

    Z0 = nm._rank_start(Delta, 2)
    Z_sk, s_sk = sk_smacof(Delta, metric=False, init=Z0, n_init=1, max_iter=3000, eps=1e-12,
                           normalized_stress=True)
    Z_ml, _, _ = nm.nonmetric_smacof(Delta, init=Z0, max_iter=3000, eps=1e-12, ties=ties)
    return Z_sk, s_sk, Z_ml


def test_parity_with_scikit_learn_from_a_shared_start():
    """Stress-1 within 1e-6 and the configurations equal after a similarity Procrustes fit
    (scipy's disparity < 1e-6; measured: 1e-9 and 3e-11).

    scikit-learn's non-metric stress (normalized_stress=True) divides the raw stress against its
    rescaled disparities by the sum of squared distances; at a converged configuration (its
    scale optimal) that is S_1 / sqrt(1 - S_1^2) of Kruskal's S_1 (Borg and Groenen 11.1), which
    the test checks too.
    """
    X = _points(40, 15, L=3)  # 3-D points in 2-D: stress-1 about 0.15, not 0
    Delta = np.expm1(pairwise_distances(X)) + 0.1
    np.fill_diagonal(Delta, 0.0)
    Z_sk, s_sk, Z_ml = _sk_and_ml(Delta, "primary")
    S_sk, S_ml = nm.kruskal_stress(Delta, Z_sk), nm.kruskal_stress(Delta, Z_ml)
    assert S_ml > 0.1 and abs(S_sk - S_ml) < 1e-6
    assert s_sk == pytest.approx(S_sk / np.sqrt(1 - S_sk**2), rel=1e-6)
    assert procrustes(Z_sk, Z_ml)[2] < 1e-6


def test_parity_with_scikit_learn_on_tied_ratings_with_the_secondary_approach():
    """On a 7-point rating scale, ties="secondary" is scikit-learn's treatment (measured: stress-1
    equal to 1e-10, Procrustes disparity 3e-11); the primary approach, with fewer constraints,
    reaches a lower stress-1 of its own kind than scikit-learn's solution."""
    X = _points(30, 17, L=3)
    D = pairwise_distances(X)
    Delta = np.ceil(D / D.max() * 7)  # ratings 1..7: many ties, none zero
    np.fill_diagonal(Delta, 0.0)
    Z_sk, _, Z_ml = _sk_and_ml(Delta, "secondary")
    S_sk = nm.kruskal_stress(Delta, Z_sk, ties="secondary")
    S_ml = nm.kruskal_stress(Delta, Z_ml, ties="secondary")
    assert abs(S_sk - S_ml) < 1e-6 and procrustes(Z_sk, Z_ml)[2] < 1e-6
    Z_primary = nm.nonmetric_smacof(Delta, init=nm._rank_start(Delta, 2), max_iter=3000,
                                    eps=1e-12)[0]
    assert nm.kruskal_stress(Delta, Z_primary) < nm.kruskal_stress(Delta, Z_sk) - 0.005
