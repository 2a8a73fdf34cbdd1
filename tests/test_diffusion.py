"""Diffusion maps: the alpha-normalisation, the Markov matrix and L_rw, the spectrum, the
uniform parametrisation of a non-uniformly sampled circle, Nyström, bad input, check_estimator."""

import warnings

import numpy as np
import pytest
from sklearn.utils.estimator_checks import parametrize_with_checks

from mlnotes.base import expected_failed_checks
from mlnotes.diffusion import (
    DiffusionMap,
    alpha_normalise,
    diffusion_eigenpairs,
    diffusion_kernel,
    markov_matrix,
)
from mlnotes.eigenmaps import laplacian


def nonuniform_circle(n=600, squeeze=0.5, seed=0):
    """Points on the unit circle at angles theta = u + squeeze sin u, u uniform: the density
    in theta is 1 / (1 + squeeze cos u), three times denser at one side than the other."""
    u = np.sort(np.random.default_rng(seed).uniform(0, 2 * np.pi, n))
    theta = u + squeeze * np.sin(u)
    return np.c_[np.cos(theta), np.sin(theta)], theta


def angle_rms_error(Z, theta):
    """RMS of the angle of (z_1, z_2) against theta, after the best rotation and reflection."""
    phi = np.arctan2(Z[:, 1], Z[:, 0])
    errors = []
    for sign in (1, -1):
        d = np.angle(np.exp(1j * (sign * phi - theta)))
        d = np.angle(np.exp(1j * (d - np.angle(np.mean(np.exp(1j * d))))))
        errors.append(np.sqrt(np.mean(d**2)))
    return min(errors)


def test_alpha_one_recovers_the_uniform_angle_and_alpha_zero_does_not():
    X, theta = nonuniform_circle()
    err = {}
    spread = {}
    for alpha in (0.0, 0.5, 1.0):
        Z = DiffusionMap(2, epsilon=0.03, alpha=alpha).fit(X).eigenvectors_
        err[alpha] = angle_rms_error(Z, theta)
        r = np.linalg.norm(Z, axis=1)
        spread[alpha] = r.std() / r.mean()
    # alpha = 1: (psi_1, psi_2) = (cos, sin) of the true angle, a circle of constant radius
    assert err[1.0] < 0.05 and spread[1.0] < 0.05
    # alpha = 0: the density leaks in; the angle is off by more than 0.15 rad, radius varies
    assert err[0.0] > 0.15 and spread[0.0] > 0.3
    assert err[1.0] < err[0.5] < err[0.0]


def test_alpha_zero_markov_matrix_is_identity_minus_L_rw():
    X, _ = nonuniform_circle(200)
    K = diffusion_kernel(X, 0.05)
    K0, q = alpha_normalise(K, 0.0)
    np.testing.assert_array_equal(K0, K)
    P = markov_matrix(K0)
    np.testing.assert_allclose(P, np.eye(200) - laplacian(K, kind="rw").toarray(), atol=1e-14)
    # the eigenvalues of P are 1 - those of L v = mu D v (D the degrees of K)
    mu = np.sort(np.linalg.eigvals(laplacian(K, kind="rw").toarray()).real)[1:4]
    lam, _ = diffusion_eigenpairs(K0, 3, solver="dense")
    np.testing.assert_allclose(lam, 1 - mu, atol=1e-10)


@pytest.mark.parametrize("n_neighbors", [None, 15])
@pytest.mark.parametrize("alpha", [0.0, 0.5, 1.0])
def test_eigenpairs_of_P_and_their_normalisation(alpha, n_neighbors):
    X, _ = nonuniform_circle(150)
    dm = DiffusionMap(4, epsilon=0.05, n_neighbors=n_neighbors, alpha=alpha).fit(X)
    K = dm.kernel_
    K = K.toarray() if hasattr(K, "toarray") else K
    q = K.sum(axis=1)
    Ka = K / np.outer(q**alpha, q**alpha)  # K^(alpha) = Q^-a K Q^-a
    d = Ka.sum(axis=1)
    P = Ka / d[:, None]
    np.testing.assert_allclose(P.sum(axis=1), 1, atol=1e-12)
    psi = dm.eigenvectors_
    np.testing.assert_allclose(P @ psi, psi * dm.eigenvalues_, atol=1e-9)
    pi = d / d.sum()
    np.testing.assert_allclose(psi.T @ (pi[:, None] * psi), np.eye(4), atol=1e-9)
    # the eigenvalues are the next after 1, decreasing
    all_lam = np.sort(np.linalg.eigvals(P).real)[::-1]
    np.testing.assert_allclose(all_lam[0], 1, atol=1e-12)
    np.testing.assert_allclose(dm.eigenvalues_, all_lam[1:5], atol=1e-10)


def test_time_scales_by_lambda_t_and_gives_diffusion_distances():
    X, _ = nonuniform_circle(40)
    N, t = len(X), 3
    dm = DiffusionMap(N - 1, epsilon=0.2, alpha=0.5, t=t, eigen_solver="dense").fit(X)
    np.testing.assert_allclose(dm.embedding_, dm.eigenvectors_ * dm.eigenvalues_**t)
    assert np.allclose(DiffusionMap(3, epsilon=0.2, alpha=0.5, t=0).fit(X).embedding_,
                       dm.eigenvectors_[:, :3])
    K_alpha, _ = alpha_normalise(dm.kernel_, 0.5)
    P = markov_matrix(K_alpha)
    d = K_alpha.sum(axis=1)
    pi = d / d.sum()
    Pt = np.linalg.matrix_power(P, t)
    # D_t(i, j)^2 = sum_m (P^t_im - P^t_jm)^2 / pi_m = ||Psi_t(i) - Psi_t(j)||^2 (all terms)
    Dt2 = (((Pt[:, None, :] - Pt[None, :, :]) ** 2) / pi).sum(axis=2)
    Z = dm.embedding_
    E2 = ((Z[:, None, :] - Z[None, :, :]) ** 2).sum(axis=2)
    np.testing.assert_allclose(E2, Dt2, atol=1e-9)


@pytest.mark.parametrize("n_neighbors", [None, 30])
def test_nystrom_returns_training_points_and_places_new_ones(n_neighbors):
    X, theta = nonuniform_circle(400, seed=1)
    train, new = X[::2], X[1::2]
    dm = DiffusionMap(2, epsilon=0.03, n_neighbors=n_neighbors, alpha=1.0, t=2).fit(train)
    np.testing.assert_allclose(dm.transform(train), dm.embedding_, atol=1e-10)
    Z_new = dm.transform(new)
    # the new points' images carry their true angle as well as the training points' do
    assert angle_rms_error(dm.embedding_, theta[::2]) < 0.05
    assert angle_rms_error(Z_new, theta[1::2]) < angle_rms_error(dm.embedding_, theta[::2]) + 0.01
    assert angle_rms_error(np.vstack([dm.embedding_, Z_new]),
                           np.r_[theta[::2], theta[1::2]]) < 0.05


def test_default_epsilon_and_sparse_kernel():
    X, _ = nonuniform_circle(300)
    dm = DiffusionMap(2).fit(X)
    kth = np.sort(((X[:, None] - X[None]) ** 2).sum(axis=2), axis=1)[:, 7]
    np.testing.assert_allclose(dm.epsilon_, np.median(kth))
    sparse = DiffusionMap(2, n_neighbors=10).fit(X)
    assert sparse.kernel_.nnz <= 300 * 21
    np.testing.assert_allclose(sparse.kernel_.diagonal(), 1.0)


def test_bad_input():
    X, _ = nonuniform_circle(50)
    with pytest.raises(ValueError, match=r"alpha must be a number in \[0, 1\] \(0: graph "
                                         r"Laplacian, 0.5: Fokker-Planck, 1: Laplace-Beltrami, "
                                         r"density removed\), got 2"):
        DiffusionMap(alpha=2).fit(X)
    with pytest.raises(ValueError, match="epsilon"):
        DiffusionMap(epsilon=-1.0).fit(X)
    with pytest.raises(ValueError, match="n_components"):
        DiffusionMap(n_components=50).fit(X)
    with pytest.raises(ValueError, match="n_neighbors=60 is too large"):
        DiffusionMap(n_neighbors=60).fit(X)
    dm = DiffusionMap(2, epsilon=1e-4).fit(X)
    with pytest.raises(ValueError, match=r"New point\(s\) \[0\] have kernel value 0 to every "
                                         r"training point"):
        dm.transform(np.array([[10.0, 10.0]]))
    with pytest.raises(ValueError, match="X has 3 features, but DiffusionMap is expecting 2"):
        dm.transform(np.ones((2, 3)))


with warnings.catch_warnings():
    warnings.simplefilter("ignore", UserWarning)
    _CHECKS = parametrize_with_checks([DiffusionMap(), DiffusionMap(n_neighbors=5)],
                                      expected_failed_checks=expected_failed_checks)


@_CHECKS
def test_check_estimator(estimator, check):
    check(estimator)


# --- defaults on standardised digits (issue 37) ---------------------------------------------------
def _standardised_digits(n):
    from sklearn.datasets import load_digits
    from sklearn.preprocessing import StandardScaler

    return StandardScaler().fit_transform(load_digits().data[:n])


def test_defaults_on_standardised_digits_connect_the_outliers_and_are_quick():
    import time

    from sklearn.metrics import pairwise_distances

    from mlnotes.graphs import DisconnectedGraphWarning

    X = _standardised_digits(1797)
    D2 = pairwise_distances(X, metric="sqeuclidean")
    np.fill_diagonal(D2, np.inf)
    nearest = D2.min(axis=1)
    start = time.process_time()
    with warnings.catch_warnings():
        warnings.simplefilter("error", DisconnectedGraphWarning)
        dm = DiffusionMap().fit(X)
    assert time.process_time() - start < 20.0  # was 268 s (ARPACK on a cluster at 1)
    # every point keeps its nearest neighbour at weight >= 1e-6: the far outlier sets epsilon
    assert dm.epsilon_ >= nearest.max() / np.log(1e6) * (1 - 1e-12)
    assert np.exp(-nearest.max() / dm.epsilon_) >= 1e-6 * (1 - 1e-9)
    assert dm.eigenvalues_[0] < 1 - 1e-9
    assert np.isfinite(dm.embedding_).all()


def test_an_epsilon_that_isolates_points_is_diagnosed_and_the_named_remedy_works():
    from mlnotes.graphs import DisconnectedGraphWarning

    X = _standardised_digits(400)
    with pytest.warns(DisconnectedGraphWarning, match=r"The diffusion kernel \(epsilon=5\) leaves "
                                                      r"the points disconnected: \d+ eigenvalue"
                                                      r"\(s\) after the trivial one equal 1 .*"
                                                      r"Increase epsilon to at least ([\d.]+)") as rec:
        DiffusionMap(epsilon=5.0).fit(X)
    import re

    needed = float(re.search(r"at least ([\d.e+]+)", str(rec[0].message)).group(1))
    with warnings.catch_warnings():
        warnings.simplefilter("error", DisconnectedGraphWarning)
        DiffusionMap(epsilon=needed * 1.01).fit(X)


def test_a_pipeline_with_standard_scaler_runs_with_the_defaults():
    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import StandardScaler

    from mlnotes.datasets import load_digits

    X = load_digits()[0][:600]
    Z = make_pipeline(StandardScaler(), DiffusionMap()).fit_transform(X)
    assert Z.shape == (600, 2) and np.isfinite(Z).all()
