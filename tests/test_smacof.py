"""Metric MDS: stress gradient, Guttman transform, monotone SMACOF, parity with scikit-learn."""

import warnings

import numpy as np
import pytest
from sklearn.datasets import make_s_curve
from sklearn.manifold import smacof as sk_smacof

from mlnotes import smacof as sm
from mlnotes.graphs import pairwise_distances
from mlnotes.metrics import normalized_stress, raw_stress

from finite_differences import central_differences


def _classical_reference(Delta, L):
    """Classical MDS for the test's expectations only: top eigenpairs of -1/2 C Delta^2 C."""
    try:
        from mlnotes.mds import classical_mds
    except ImportError:
        N = len(Delta)
        C = np.eye(N) - 1.0 / N
        lam, V = np.linalg.eigh(-0.5 * C @ (Delta**2) @ C)
        lam, V = lam[::-1][:L], V[:, ::-1][:, :L]
        return V * np.sqrt(lam)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        return classical_mds(Delta, L)[0]


def _non_euclidean(N, seed):
    rng = np.random.default_rng(seed)
    A = rng.uniform(0.5, 2.0, size=(N, N))
    A = (A + A.T) / 2
    np.fill_diagonal(A, 0)
    return A


@pytest.fixture(scope="module")
def s_curve_delta():
    X = make_s_curve(120, random_state=0)[0]
    return pairwise_distances(X)


@pytest.mark.parametrize("p", [2, 1])
@pytest.mark.parametrize("L", [1, 2, 3])
def test_stress_gradient_equals_central_differences(p, L):
    rng = np.random.default_rng(10 * p + L)
    Delta = _non_euclidean(12, p + L)
    Z = rng.normal(size=(12, L))  # continuous: no ties, no coinciding points
    stress, grad = sm.stress_gradient(Delta, Z, p=p)
    assert stress == pytest.approx(raw_stress(Delta, Z, p=p), rel=1e-13)
    fd = central_differences(lambda Y: sm.stress_gradient(Delta, Y, p=p)[0], Z, h=1e-6)
    assert np.abs(grad - fd).max() <= 1e-6 * np.abs(fd).max()


def test_guttman_transform_is_a_gradient_step_of_size_one_over_2N():
    """For centred Z: Z+ = B(Z) Z / N = Z - grad / (2N)."""
    rng = np.random.default_rng(1)
    Delta = _non_euclidean(15, 1)
    Z = rng.normal(size=(15, 2))
    Z -= Z.mean(axis=0)
    _, grad = sm.stress_gradient(Delta, Z)
    np.testing.assert_allclose(sm.guttman_transform(Delta, Z), Z - grad / 30, atol=1e-12)


def test_guttman_transform_matches_the_B_matrix_formula():
    rng = np.random.default_rng(2)
    Delta = _non_euclidean(9, 2)
    Z = rng.normal(size=(9, 3))
    D = pairwise_distances(Z)
    B = np.zeros_like(D)
    off = ~np.eye(9, dtype=bool)
    B[off] = -Delta[off] / D[off]
    B[np.diag_indices(9)] = -B.sum(axis=1)
    np.testing.assert_allclose(sm.guttman_transform(Delta, Z), B @ Z / 9, atol=1e-12)


@pytest.mark.parametrize("seed", range(4))
def test_stress_decreases_monotonically(seed, s_curve_delta):
    for Delta in (s_curve_delta, _non_euclidean(60, seed)):
        _, stress, n_iter, history = sm.smacof(
            Delta, 2, random_state=seed, max_iter=200, eps=0.0, return_history=True
        )
        steps = np.diff(history)
        assert np.all(steps <= 1e-12 * history[0])
        assert stress == history[-1] == pytest.approx(raw_stress(Delta, sm.smacof(
            Delta, 2, random_state=seed, max_iter=200, eps=0.0)[0]))


@pytest.mark.parametrize("data", ["s_curve", "non_euclidean"])
def test_smacof_matches_scikit_learn_from_the_same_start(data, s_curve_delta):
    Delta = s_curve_delta if data == "s_curve" else _non_euclidean(80, 7)
    Z0 = np.random.default_rng(3).uniform(size=(len(Delta), 2))
    Z, stress, n_iter = sm.smacof(Delta, 2, init=Z0, max_iter=40, eps=0.0)
    Z_sk, stress_sk, n_sk = sk_smacof(
        Delta, init=Z0.copy(), max_iter=40, eps=0.0, normalized_stress=False, return_n_iter=True
    )
    assert n_iter == n_sk == 40
    np.testing.assert_allclose(Z, Z_sk, rtol=1e-9, atol=1e-9 * np.abs(Z_sk).max())
    assert stress == pytest.approx(stress_sk, rel=1e-10)
    _, stress1_sk = sk_smacof(Delta, init=Z0.copy(), max_iter=40, eps=0.0, normalized_stress=True)
    assert normalized_stress(Delta, Z) == pytest.approx(stress1_sk, rel=1e-9)


def test_stopping_rule_is_the_first_small_relative_decrease(s_curve_delta):
    eps = 1e-3
    _, _, n_iter, history = sm.smacof(
        s_curve_delta, 2, random_state=0, eps=eps, max_iter=500, return_history=True
    )
    h = np.asarray(history)
    rel = (h[:-1] - h[1:]) / h[:-1]
    assert n_iter == len(h) - 1 < 500
    assert np.all(rel[:-1] >= eps) and rel[-1] < eps


def test_metric_mds_attributes(s_curve_delta):
    X = make_s_curve(120, random_state=0)[0]
    mds = sm.MetricMDS(n_components=2, random_state=0).fit(X)
    Z = mds.embedding_
    assert mds.stress_ == pytest.approx(raw_stress(s_curve_delta, Z), rel=1e-12)
    assert mds.normalized_stress_ == pytest.approx(normalized_stress(s_curve_delta, Z), rel=1e-12)
    assert mds.stress_history_[-1] == mds.stress_
    assert mds.n_iter_ == len(mds.stress_history_) - 1
    np.testing.assert_allclose(mds.dissimilarity_matrix_, s_curve_delta)
    # init="classical": the run starts from classical MDS and only improves on it
    Z_cmds = _classical_reference(s_curve_delta, 2)
    assert mds.stress_history_[0] == pytest.approx(raw_stress(s_curve_delta, Z_cmds), rel=1e-9)
    assert mds.stress_ < mds.stress_history_[0]
    pre = sm.MetricMDS(n_components=2, dissimilarity="precomputed", random_state=0)
    np.testing.assert_allclose(pre.fit_transform(s_curve_delta), Z, atol=1e-10)


def test_planar_data_is_recovered_exactly():
    X = np.random.default_rng(4).normal(size=(50, 2))
    mds = sm.MetricMDS(n_components=2, eps=1e-12, max_iter=50).fit(X)
    assert mds.normalized_stress_ < 1e-8
    np.testing.assert_allclose(pairwise_distances(mds.embedding_), pairwise_distances(X),
                               atol=1e-7)


def test_more_restarts_never_hurt():
    Delta = _non_euclidean(40, 5)
    one = sm.MetricMDS(init="random", n_init=1, random_state=0,
                       dissimilarity="precomputed").fit(Delta)
    five = sm.MetricMDS(init="random", n_init=5, random_state=0,
                        dissimilarity="precomputed").fit(Delta)
    assert five.stress_ <= one.stress_


def test_array_init_is_used():
    X = make_s_curve(60, random_state=1)[0]
    Z0 = np.random.default_rng(0).normal(size=(60, 2))
    mds = sm.MetricMDS(init=Z0, max_iter=1).fit(X)
    np.testing.assert_allclose(mds.embedding_, sm.guttman_transform(pairwise_distances(X), Z0))


def test_city_block_stress_with_p1():
    """City-block data: the L1 fit (subgradient method) reaches near-zero L1 stress, which a
    Euclidean embedding (SMACOF) cannot."""
    rng = np.random.default_rng(0)
    X = rng.uniform(size=(60, 2))
    Delta = np.abs(X[:, None] - X[None]).sum(axis=-1)
    l1 = sm.MetricMDS(p=1, max_iter=600, dissimilarity="precomputed").fit(Delta)
    l2 = sm.MetricMDS(p=2, dissimilarity="precomputed").fit(Delta)
    assert l1.normalized_stress_ < 0.01
    assert l2.normalized_stress_ > 0.05
    assert l1.stress_ == pytest.approx(raw_stress(Delta, l1.embedding_, p=1), rel=1e-12)
    assert l1.stress_ == min(l1.stress_history_)  # the best iterate is returned
    assert l1.stress_ < l1.stress_history_[0]


def test_metric_mds_matches_scikit_learns_mds_from_the_classical_start():
    from sklearn.manifold import MDS

    X = make_s_curve(150, random_state=0)[0]
    ours = sm.MetricMDS(n_components=2, eps=1e-12, max_iter=3000).fit(X)
    ref = MDS(n_components=2, init="classical_mds", eps=1e-12, max_iter=3000,
              normalized_stress=False, random_state=0).fit(X)
    assert ours.stress_ == pytest.approx(ref.stress_, rel=1e-6)
    # compare distances: the configurations agree up to a rigid motion
    np.testing.assert_allclose(pairwise_distances(ours.embedding_),
                               pairwise_distances(ref.embedding_), atol=1e-3)
