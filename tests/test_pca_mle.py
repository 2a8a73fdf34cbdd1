"""PCA(n_components="mle"): Minka's (2000) Laplace approximation to the evidence of
probabilistic PCA (issue 35), against scikit-learn's choice on several data sets."""

import numpy as np
import pytest

import mlnotes as ml
from mlnotes.pca import mle_dimension, mle_log_evidence

sklearn = pytest.importorskip("sklearn")


def _low_rank(rank, noise, n=300, d=10, seed=0):
    rng = np.random.default_rng(seed)
    signal = rng.normal(size=(n, rank)) @ rng.normal(size=(rank, d))
    return signal + noise * rng.normal(size=(n, d))


def _data_sets():
    from sklearn import datasets

    yield "iris", datasets.load_iris().data
    yield "wine", datasets.load_wine().data
    yield "diabetes", datasets.load_diabetes().data
    for rank in (1, 3, 6):
        yield f"rank {rank} + small noise", _low_rank(rank, 0.05)
    # noise comparable to the weakest signal directions: the evidence then stops before the
    # true rank, at a place only the complete formula finds
    for seed in range(4):
        yield f"rank 6 + large noise, seed {seed}", _low_rank(6, 1.2, n=60, seed=seed)


@pytest.mark.parametrize("name, X", list(_data_sets()), ids=lambda v: v if isinstance(v, str)
                         else "")
def test_mle_chooses_as_scikit_learn(name, X):
    from sklearn.decomposition import PCA as SkPCA

    ours, theirs = ml.PCA(n_components="mle").fit(X), SkPCA(n_components="mle").fit(X)
    assert ours.n_components_ == theirs.n_components_, name
    np.testing.assert_allclose(ours.explained_variance_, theirs.explained_variance_,
                               rtol=1e-9)
    np.testing.assert_allclose(ours.noise_variance_, theirs.noise_variance_, rtol=1e-6)


def test_mle_finds_the_rank_of_low_rank_data_with_noise():
    for rank in (1, 2, 4, 7):
        assert ml.PCA(n_components="mle").fit(_low_rank(rank, 0.01)).n_components_ == rank
    exact = _low_rank(4, 0.0)  # no noise: sigma^2 floored, the rank is still found
    assert ml.PCA(n_components="mle").fit(exact).n_components_ == 4


def test_evidence_matches_scikit_learn_term_by_term():
    from sklearn.decomposition._pca import _assess_dimension  # the reference's own evidence

    X = _low_rank(3, 0.5, n=80, d=8)
    lam = np.linalg.eigvalsh(np.cov(X.T))[::-1]
    ours = [mle_log_evidence(lam, k, 80) for k in range(1, 8)]
    theirs = [_assess_dimension(lam, k, 80) for k in range(1, 8)]
    np.testing.assert_allclose(ours, theirs, rtol=1e-12)


def test_evidence_scale_and_degenerate_spectra():
    lam = np.array([5.0, 2.0, 0.3, 0.2, 0.1])
    # dividing the covariance by N or N - 1 shifts every k by the same amount
    shift = [mle_log_evidence(3 * lam, k, 50) - mle_log_evidence(lam, k, 50) for k in (1, 2, 3)]
    np.testing.assert_allclose(shift, shift[0], rtol=1e-12)
    assert mle_dimension(3 * lam, 50) == mle_dimension(lam, 50)
    tiny = np.array([1.0, 1e-30, 1e-30, 1e-30])  # directions with no variance
    assert np.isfinite(mle_log_evidence(tiny, 1, 10))
    assert mle_log_evidence(tiny, 2, 10) == -np.inf
    assert mle_dimension(tiny, 10) == 1
    with pytest.raises(ValueError, match=r"rank=4 should be in \[1, n_features - 1\] = \[1, 3\]"):
        mle_log_evidence(tiny, 4, 10)


def test_mle_bad_input():
    X = np.random.default_rng(0).normal(size=(5, 8))
    with pytest.raises(ValueError, match=r"needs at least as many samples as features, got "
                                         r"N=5 < D=8"):
        ml.PCA(n_components="mle").fit(X)
    with pytest.raises(ValueError, match="at least 2 features"):
        ml.PCA(n_components="mle").fit(X[:, :1])
    with pytest.raises(ValueError, match="the one string accepted is 'mle'"):
        ml.PCA(n_components="minka").fit(X)
