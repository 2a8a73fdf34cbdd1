"""SNE family: perplexity search, affinities, objectives and gradients, optimiser, end to end.

References are independent: central finite differences, scikit-learn's private t-SNE pieces
(``_joint_probabilities``, ``_kl_divergence``, ``_gradient_descent``) and ``TSNE(method="exact")``.
"""

import warnings

import numpy as np
import pytest
from scipy.linalg import subspace_angles
from scipy.spatial.distance import squareform
from sklearn.datasets import load_digits, make_s_curve
from sklearn.decomposition import PCA as SkPCA
from sklearn.manifold import TSNE as SkTSNE
from sklearn.manifold import _t_sne, trustworthiness

from mlnotes import sne
from mlnotes.graphs import squared_distances

from finite_differences import central_differences


@pytest.fixture(scope="module")
def digits():
    return load_digits().data[:300]


def _random_joint_P(N, rng):
    A = rng.random((N, N)) + 0.05
    A = A + A.T
    np.fill_diagonal(A, 0.0)
    return A / A.sum()


def _random_conditional_P(N, rng):
    A = rng.random((N, N)) + 0.05
    np.fill_diagonal(A, 0.0)
    return A / A.sum(axis=1, keepdims=True)


def _assert_rel(a, b, rtol):
    assert np.abs(a - b).max() <= rtol * np.abs(b).max(), np.abs(a - b).max() / np.abs(b).max()


# --- step 1: perplexity search and affinities ------------------------------------------------
@pytest.mark.parametrize("perplexity", [5.0, 30.0, 80.0])
def test_perplexity_search_hits_target_for_every_point(digits, perplexity):
    P_cond, sigma = sne.conditional_affinities(squared_distances(digits), perplexity)
    perp = 2.0 ** sne.entropy_bits(P_cond)
    assert np.abs(perp - perplexity).max() <= 1e-5
    np.testing.assert_allclose(P_cond.sum(axis=1), 1.0, rtol=1e-12)
    assert np.all(np.diag(P_cond) == 0)
    assert np.all(sigma > 0)


def test_entropy_bits_matches_definition():
    P = np.array([[0, 0.5, 0.5], [0.25, 0, 0.75], [1.0, 0, 0]])
    expected = [1.0, -(0.25 * np.log2(0.25) + 0.75 * np.log2(0.75)), 0.0]
    np.testing.assert_allclose(sne.entropy_bits(P), expected, atol=1e-15)


def test_bandwidths_reproduce_the_gaussian_rows(digits):
    """p_{j|i} is exactly the normalised Gaussian with the returned sigma_i (eq. of the notes)."""
    D2 = squared_distances(digits)
    P_cond, sigma = sne.conditional_affinities(D2, 20.0)
    E = np.exp(-D2 / (2 * sigma[:, None] ** 2))
    np.fill_diagonal(E, 0)
    np.testing.assert_allclose(P_cond, E / E.sum(axis=1, keepdims=True), rtol=1e-9, atol=1e-250)


def test_larger_perplexity_means_wider_bandwidths(digits):
    D2 = squared_distances(digits)
    _, s_small = sne.conditional_affinities(D2, 10.0)
    _, s_large = sne.conditional_affinities(D2, 40.0)
    assert np.all(s_large > s_small)


def test_joint_P_matches_scikit_learn(digits):
    """Same data, same perplexity: scikit-learn searches with float32 distances and stops at
    |H - log Perp| <= 1e-5 nats, so entries agree to about 1e-4 relative, not to float64."""
    D2 = squared_distances(digits)
    P = sne.joint_affinities(sne.conditional_affinities(D2, 30.0)[0])
    P_sk = squareform(_t_sne._joint_probabilities(D2.astype(np.float32), 30.0, 0), checks=False)
    big = P_sk > 1e-6 * P_sk.max()
    np.testing.assert_allclose(P[big], P_sk[big], rtol=2e-4)
    assert np.abs(P - P_sk).max() <= 1e-5 * P_sk.max()
    np.testing.assert_allclose(P, P.T, atol=0)
    assert P.sum() == pytest.approx(1.0, abs=1e-12)


def test_joint_affinities_formula():
    rng = np.random.default_rng(0)
    Pc = _random_conditional_P(7, rng)
    np.testing.assert_allclose(sne.joint_affinities(Pc), (Pc + Pc.T) / 14, atol=0)


# --- step 2: objectives and gradients ---------------------------------------------------------
@pytest.mark.parametrize(
    "name, objective, make_P",
    [
        ("sne", sne.sne_objective_gradient, _random_conditional_P),
        ("symmetric", sne.symmetric_sne_objective_gradient, _random_joint_P),
        ("tsne", sne.tsne_objective_gradient, _random_joint_P),
        ("tsne dof=2.5", lambda Z, P, **k: sne.tsne_objective_gradient(Z, P, dof=2.5, **k),
         _random_joint_P),
        ("tsne dof=0.5", lambda Z, P, **k: sne.tsne_objective_gradient(Z, P, dof=0.5, **k),
         _random_joint_P),
    ],
)
@pytest.mark.parametrize("L", [1, 2, 3])
def test_gradient_equals_central_differences(name, objective, make_P, L):
    rng = np.random.default_rng(L)
    N = 14
    P = make_P(N, rng)
    Z = rng.normal(size=(N, L))
    _, grad = objective(Z, P)
    fd = central_differences(lambda Y: objective(Y, P)[0], Z, h=1e-5)
    _assert_rel(grad, fd, 1e-6)


def test_kl_is_zero_when_maps_match():
    """KL(P || Q) = 0 when P is exactly the map's own Q (and the gradient vanishes)."""
    Z = np.random.default_rng(3).normal(size=(10, 2))
    Q = sne.student_t_affinities(Z)
    kl, grad = sne.tsne_objective_gradient(Z, Q)
    assert abs(kl) < 1e-14
    assert np.abs(grad).max() < 1e-14


def test_student_t_affinities_are_a_distribution():
    Z = np.random.default_rng(4).normal(size=(9, 2))
    for dof in (1.0, 3.0):
        Q = sne.student_t_affinities(Z, dof)
        assert Q.sum() == pytest.approx(1.0)
        assert np.all(np.diag(Q) == 0)
        np.testing.assert_allclose(Q, Q.T, atol=0)
    D2 = squared_distances(Z)
    K = 1 / (1 + D2)
    np.fill_diagonal(K, 0)
    np.testing.assert_allclose(sne.student_t_affinities(Z), K / K.sum(), rtol=1e-13)


@pytest.mark.parametrize("scale", [1e-4, 1.0, 10.0])
def test_tsne_objective_and_gradient_equal_scikit_learn_exact(digits, scale):
    D2 = squared_distances(digits)
    P_condensed = _t_sne._joint_probabilities(D2.astype(np.float32), 30.0, 0)
    P = squareform(P_condensed, checks=False)
    N = len(P)
    Y = scale * np.random.default_rng(5).normal(size=(N, 2))
    kl, grad = sne.tsne_objective_gradient(Y, P)
    kl_sk, grad_sk = _t_sne._kl_divergence(Y.ravel(), P_condensed, 1, N, 2)
    assert kl == pytest.approx(kl_sk, rel=1e-10)
    _assert_rel(grad.ravel(), grad_sk, 1e-10)


def test_tsne_objective_matches_scikit_learn_for_other_dof():
    """Objective agrees for nu = 2 (scikit-learn's choice for L = 3); its gradient there uses the
    kernel k instead of w = (1 + s/nu)^-1 and does not match finite differences, ours does
    (see test_gradient_equals_central_differences)."""
    rng = np.random.default_rng(6)
    P = _random_joint_P(12, rng)
    Y = rng.normal(size=(12, 3))
    kl, _ = sne.tsne_objective_gradient(Y, P, dof=2.0)
    kl_sk, _ = _t_sne._kl_divergence(Y.ravel(), squareform(P, checks=False), 2.0, 12, 3)
    assert kl == pytest.approx(kl_sk, rel=1e-12)


def test_compute_objective_false_skips_only_the_kl():
    rng = np.random.default_rng(7)
    P, Z = _random_joint_P(10, rng), rng.normal(size=(10, 2))
    for f in (sne.sne_objective_gradient, sne.symmetric_sne_objective_gradient,
              sne.tsne_objective_gradient):
        kl, g = f(Z, P, compute_objective=False)
        assert kl is None
        np.testing.assert_array_equal(g, f(Z, P)[1])


# --- step 3: initialisation and optimiser -----------------------------------------------------
def test_pca_init_is_scikit_learns_scaled_pca(digits):
    Z0 = sne.initial_embedding(digits, 2, init="pca")
    assert Z0[:, 0].std() == pytest.approx(1e-4, rel=1e-12)
    ref = SkPCA(2, svd_solver="full").fit_transform(digits)
    ref = ref / ref[:, 0].std() * 1e-4
    np.testing.assert_allclose(np.abs(Z0), np.abs(ref), rtol=1e-7, atol=1e-12)
    assert subspace_angles(Z0, ref).max() < 1e-8


def test_random_init_scale_and_seed():
    X = np.zeros((500, 3))
    Z1 = sne.initial_embedding(X, 2, init="random", random_state=1)
    Z2 = sne.initial_embedding(X, 2, init="random", random_state=1)
    np.testing.assert_array_equal(Z1, Z2)
    assert Z1.std() == pytest.approx(1e-4, rel=0.1)


def test_one_phase_equals_scikit_learns_gradient_descent(digits):
    """Momentum, gains (+0.2 / x0.8, floor 0.01) and update: the same trajectory as scikit-learn's
    _gradient_descent on the same objective, P and start. (Only over 20 steps: the dynamics are
    chaotic, round-off differences of 1e-15 grow to O(1) within ~60 steps.)"""
    D2 = squared_distances(digits)
    P = sne.joint_affinities(sne.conditional_affinities(D2, 30.0)[0])
    N = len(P)
    Z0 = sne.initial_embedding(digits, 2, init="pca")
    P_condensed = squareform(P, checks=False)
    for momentum, alpha in [(0.5, 12.0), (0.8, 1.0)]:
        Z, _, n_iter, _ = sne.gradient_descent(
            sne.tsne_objective_gradient, Z0, alpha * P, start=0, stop=20,
            learning_rate=75.0, momentum=momentum,
        )
        p, _, _ = _t_sne._gradient_descent(
            _t_sne._kl_divergence, Z0.ravel().copy(), 0, 20, n_iter_check=50,
            momentum=momentum, learning_rate=75.0, min_gain=0.01,
            args=[alpha * P_condensed, 1, N, 2], kwargs={},
        )
        assert n_iter == 20
        _assert_rel(Z.ravel(), p, 1e-8)


def test_schedule_callback_and_history():
    X = make_s_curve(120, random_state=0)[0]
    seen = []
    est = sne.TSNE(perplexity=10, max_iter=300, record_every=25, random_state=0,
                   callback=lambda it, Z, kl: seen.append((it, kl is not None)))
    Z = est.fit_transform(X)
    assert [it for it, _ in seen] == list(range(1, 301))
    h = est.history_
    assert h.iterations == list(range(0, 301, 25))
    assert h.exaggeration == [12.0] * 10 + [1.0] * 3
    np.testing.assert_array_equal(h.embeddings[0], sne.initial_embedding(X, 2))
    np.testing.assert_array_equal(h.embeddings[-1], Z)
    assert h.kl[-1] == est.kl_divergence_
    # each recorded KL is the objective of the recorded map, with the P in force then
    for Zk, kl, alpha in zip(h.embeddings, h.kl, h.exaggeration, strict=True):
        assert kl == pytest.approx(sne.tsne_objective_gradient(Zk, alpha * est.P_)[0], rel=1e-12)
    assert est.learning_rate_ == 50.0  # "auto": max(120 / 12 / 4, 50)
    assert sne.SNE(perplexity=5).fit(X[:30]).learning_rate_ == pytest.approx(1 / 96)
    assert est.n_iter_ == 300


def test_callback_can_stop_the_run():
    X = make_s_curve(80, random_state=1)[0]
    est = sne.TSNE(perplexity=10, max_iter=500, random_state=0,
                   callback=lambda it, Z, kl: it == 40)
    Z = est.fit_transform(X)
    assert est.n_iter_ == 40
    assert np.isfinite(Z).all()


def test_kl_divergence_is_for_the_final_unexaggerated_P():
    X = make_s_curve(150, random_state=2)[0]
    est = sne.TSNE(perplexity=15, max_iter=300, random_state=0)
    Z = est.fit_transform(X)
    P_condensed = squareform(est.P_, checks=False)
    kl_sk, _ = _t_sne._kl_divergence(Z.ravel(), P_condensed, 1, len(Z), 2)
    assert est.kl_divergence_ == pytest.approx(kl_sk, rel=1e-10)


def test_learning_rate_auto_rule():
    X = make_s_curve(300, random_state=3)[0]
    est = sne.TSNE(perplexity=10, max_iter=5, early_exaggeration=1.0, random_state=0)
    with warnings.catch_warnings():  # 5 steps may well be too few to make progress
        warnings.simplefilter("ignore", RuntimeWarning)
        est.fit(X)
    assert est.learning_rate_ == pytest.approx(300 / 1.0 / 4)
    assert sne.SymmetricSNE(perplexity=10, max_iter=300, early_exaggeration=12.0,
                            random_state=0).fit(X[:100]).learning_rate_ == pytest.approx(100 / 96)


def test_progress_bar_runs():
    X = make_s_curve(60, random_state=4)[0]
    Z = sne.TSNE(perplexity=5, max_iter=260, progress=True, random_state=0).fit_transform(X)
    assert Z.shape == (60, 2)


@pytest.mark.parametrize("cls", [sne.SNE, sne.SymmetricSNE, sne.TSNE])
def test_every_estimator_lowers_its_kl_and_keeps_neighbours(cls):
    X = make_s_curve(200, random_state=5)[0]
    est = cls(perplexity=20, max_iter=400, random_state=0)
    Z = est.fit_transform(X)
    Z0 = sne.initial_embedding(X, 2, init="pca")
    assert est.kl_divergence_ < est._objective(Z0, est.P_)[0]
    assert trustworthiness(X, Z, n_neighbors=12) > 0.9
    assert est.P_.shape == (200, 200)


def test_no_transform_for_new_points():
    # SNE and symmetric SNE have none (TSNE's: tests/test_tsne_transform.py)
    est = sne.SymmetricSNE(perplexity=5, max_iter=260, random_state=0).fit(make_s_curve(40)[0])
    with pytest.raises(AttributeError, match="no transform for new points"):
        est.transform(np.zeros((2, 3)))


# --- end to end against scikit-learn's exact t-SNE --------------------------------------------
@pytest.mark.parametrize("data", ["digits", "s_curve"])
def test_tsne_matches_scikit_learn_exact_end_to_end(data):
    """Same data, perplexity, start and 500 iterations. The runs separate after ~60 iterations
    (chaos), so this compares two samples of where t-SNE lands; the sizes are chosen where that
    is stable: perturbing the start by 1e-9 moves the final KL by ~0.1% here, while at
    n = 300 to 500 on the S-curve it moves it by 3 to 8% (for both libraries alike)."""
    if data == "digits":
        X = load_digits().data[::3][:500]
    else:
        X = make_s_curve(600, random_state=0)[0]
    Z0 = sne.initial_embedding(X, 2, init="pca")  # one start for both
    ours = sne.TSNE(perplexity=30, max_iter=500, init=Z0)
    Z = ours.fit_transform(X)
    ref = SkTSNE(perplexity=30, max_iter=500, init=Z0.copy(), method="exact", random_state=0)
    Z_sk = ref.fit_transform(X)
    assert ours.kl_divergence_ == pytest.approx(ref.kl_divergence_, rel=0.02)
    t_ours = trustworthiness(X, Z, n_neighbors=12)
    t_sk = trustworthiness(X, Z_sk, n_neighbors=12)
    assert abs(t_ours - t_sk) <= 0.01
