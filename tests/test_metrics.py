"""Embedding quality measures: parity with scikit-learn / scipy and defining properties."""

import numpy as np
import pytest
import scipy.spatial
import sklearn.manifold as skm
from sklearn.datasets import make_s_curve, make_swiss_roll

from mlnotes.graphs import pairwise_distances
from mlnotes.metrics import (
    align,
    continuity,
    kl_divergence,
    knn_preservation,
    normalized_stress,
    procrustes_disparity,
    raw_stress,
    residual_variance,
    trustworthiness,
)


def _rotation(theta):
    return np.array([[np.cos(theta), -np.sin(theta)], [np.sin(theta), np.cos(theta)]])


@pytest.mark.parametrize("make", [make_s_curve, make_swiss_roll])
@pytest.mark.parametrize("k", [1, 5, 12])
def test_trustworthiness_matches_sklearn(make, k):
    X, t = make(250, random_state=0)
    Z = np.c_[t, X[:, 1]] + np.random.default_rng(0).normal(scale=0.3, size=(250, 2))
    assert trustworthiness(X, Z, k) == pytest.approx(skm.trustworthiness(X, Z, n_neighbors=k), abs=1e-12)
    # continuity is trustworthiness with the roles exchanged
    assert continuity(X, Z, k) == pytest.approx(skm.trustworthiness(Z, X, n_neighbors=k), abs=1e-12)


def test_perfect_embedding_scores_one():
    X = np.random.default_rng(0).normal(size=(60, 2))
    Z = 3.0 * X @ _rotation(0.7) + 5.0
    assert trustworthiness(X, Z) == pytest.approx(1.0)
    assert continuity(X, Z) == pytest.approx(1.0)
    assert knn_preservation(X, Z) == pytest.approx(1.0)
    assert procrustes_disparity(Z, X) == pytest.approx(0.0, abs=1e-12)
    assert residual_variance(pairwise_distances(X), Z) == pytest.approx(0.0, abs=1e-12)


def test_knn_preservation_counts_shared_neighbours():
    X = np.array([[0.0], [1.0], [2.0], [10.0]])
    Z = np.array([[0.0], [1.0], [20.0], [2.0]])  # the neighbours of 0 are {1} in both
    # k=1: X-neighbours 0:1, 1:0|2 (tie -> 0), 2:1, 3:2; Z-neighbours 0:1, 1:0, 2:3, 3:1
    assert knn_preservation(X, Z, 1) == pytest.approx(2 / 4)


def test_procrustes_disparity_matches_scipy():
    rng = np.random.default_rng(1)
    A, B = rng.normal(size=(30, 3)), rng.normal(size=(30, 3))
    assert procrustes_disparity(A, B) == pytest.approx(scipy.spatial.procrustes(B, A)[2], abs=1e-12)
    # a narrower embedding is padded with zero columns
    C = B[:, :2]
    assert procrustes_disparity(C, B) == pytest.approx(
        scipy.spatial.procrustes(B, np.c_[C, np.zeros(30)])[2], abs=1e-12)


def test_residual_variance_is_one_minus_r_squared():
    rng = np.random.default_rng(2)
    X, Z = rng.normal(size=(40, 3)), rng.normal(size=(40, 2))
    D = pairwise_distances(X)
    iu = np.triu_indices(40, 1)
    r = np.corrcoef(D[iu], pairwise_distances(Z)[iu])[0, 1]
    assert residual_variance(D, Z) == pytest.approx(1 - r**2, abs=1e-12)


def test_align_undoes_flips_and_rotations():
    Z_ref = np.random.default_rng(3).normal(size=(50, 2))
    flipped = Z_ref * [-1.0, 1.0]
    np.testing.assert_allclose(align(flipped, Z_ref), Z_ref, atol=1e-14)
    rotated = Z_ref @ _rotation(1.1)
    np.testing.assert_allclose(align(rotated, Z_ref, allow="orthogonal"), Z_ref, atol=1e-12)
    with pytest.raises(ValueError, match="allow must be 'sign' or 'orthogonal'"):
        align(Z_ref, Z_ref, allow="affine")


def test_kl_divergence():
    P = np.array([[0.0, 0.5], [0.25, 0.25]])
    Q = np.array([[0.1, 0.4], [0.25, 0.25]])
    assert kl_divergence(P, Q) == pytest.approx(0.5 * np.log(0.5 / 0.4))  # zero P entries ignored
    assert kl_divergence(Q, Q) == 0.0
    with pytest.raises(ValueError, match="Q is zero where P is positive"):
        kl_divergence(Q, P)
    with pytest.raises(ValueError, match="P has shape"):
        kl_divergence(P, Q[:1])


def test_stress_still_works():
    X = np.random.default_rng(4).normal(size=(10, 2))
    D = pairwise_distances(X)
    assert raw_stress(D, X) == pytest.approx(0.0, abs=1e-20)
    assert normalized_stress(D, X) == pytest.approx(0.0, abs=1e-10)


def test_bad_input_messages():
    X = np.random.default_rng(5).normal(size=(10, 2))
    with pytest.raises(ValueError, match="n_neighbors=5 is too large for 10 points: trustworthiness "
                                         "needs n_neighbors < n_samples / 2; choose n_neighbors <= 4"):
        trustworthiness(X, X, 5)
    with pytest.raises(ValueError, match="X has 10 rows but Z has 9; they must describe the same points"):
        continuity(X, X[:9])
    with pytest.raises(ValueError, match=r"Z contains 2 NaN and 0 infinite value\(s\) \(first at \(0, 0\)"):
        knn_preservation(X, np.where(np.eye(10, 2) > 0, np.nan, X))
