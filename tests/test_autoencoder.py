"""Autoencoders: back-propagation against finite differences, the linear autoencoder spans the
PCA subspace, a nonlinear one beats PCA on a curved manifold."""

import numpy as np
import pytest
from scipy.linalg import subspace_angles
from sklearn.decomposition import PCA as SkPCA

from mlnotes import autoencoder as ae


def _flat(params):
    return np.concatenate([np.concatenate([W.ravel(), b]) for W, b in params])


def _unflat(theta, like):
    out, k = [], 0
    for W, b in like:
        W2 = theta[k:k + W.size].reshape(W.shape)
        k += W.size
        out.append((W2, theta[k:k + b.size]))
        k += b.size
    return out


@pytest.mark.parametrize(
    "sizes, acts",
    [
        ([3, 4, 2, 4, 3], ("tanh", "identity", "tanh", "identity")),
        ([4, 5, 3, 1, 3, 5, 4], ("tanh", "tanh", "identity", "tanh", "tanh", "identity")),
        ([5, 2, 5], ("identity", "identity")),
    ],
)
def test_loss_gradient_equals_central_differences(sizes, acts):
    rng = np.random.default_rng(len(sizes))
    X = rng.normal(size=(20, sizes[0]))
    params = ae.init_params(sizes, rng)
    params = [(W, rng.normal(scale=0.3, size=b.shape)) for W, b in params]  # non-zero biases
    loss, grads = ae.loss_gradient(params, X, acts)
    theta, g = _flat(params), _flat(grads)
    h = 1e-6
    fd = np.empty_like(theta)
    for k in range(theta.size):
        e = np.zeros_like(theta)
        e[k] = h
        fd[k] = (ae.loss_gradient(_unflat(theta + e, params), X, acts)[0]
                 - ae.loss_gradient(_unflat(theta - e, params), X, acts)[0]) / (2 * h)
    assert np.abs(g - fd).max() <= 1e-6 * np.abs(fd).max()
    R = ae.forward(params, X, acts)[-1] - X
    assert loss == pytest.approx((R**2).sum() / (2 * len(X)), rel=1e-14)


@pytest.fixture(scope="module")
def linear_data():
    """Six features with a clear gap after the second principal variance."""
    rng = np.random.default_rng(0)
    Q = np.linalg.qr(rng.normal(size=(6, 6)))[0]
    return rng.normal(size=(300, 6)) @ np.diag([3.0, 2.5, 1.0, 0.8, 0.6, 0.5]) @ Q + 4.0


def test_linear_autoencoder_decoder_spans_the_pca_subspace(linear_data):
    X = linear_data
    lin = ae.LinearAutoencoder(n_components=2, random_state=0).fit(X)
    pca = SkPCA(n_components=2).fit(X)
    assert subspace_angles(lin.components_.T, pca.components_.T).max() < 1e-3
    assert subspace_angles(lin.params_[0][0], pca.components_.T).max() < 1e-3  # encoder too
    # the same reconstruction as PCA's rank-2 projection
    X_pca = pca.inverse_transform(pca.transform(X))
    pca_error = ((X - X_pca) ** 2).sum(axis=1).mean()
    assert lin.reconstruction_error(X) == pytest.approx(pca_error, rel=1e-6)
    # ... but not the principal axes themselves: any basis of their span
    assert lin.loss_history_[-1] < lin.loss_history_[0]
    assert lin.n_iter_ == len(lin.loss_history_) - 1


def test_linear_autoencoder_loss_decreases_monotonically(linear_data):
    lin = ae.LinearAutoencoder(n_components=3, max_iter=300, random_state=1).fit(linear_data)
    assert np.all(np.diff(lin.loss_history_) <= 0)
    assert lin.learning_rate_ == pytest.approx(
        0.5 / ((linear_data - linear_data.mean(0)) ** 2).sum(axis=1).mean()
    )


def _arc(n, seed):
    rng = np.random.default_rng(seed)
    t = np.sort(rng.uniform(0.0, 1.5 * np.pi, n))
    return np.c_[np.cos(t), np.sin(t)] + 0.01 * rng.normal(size=(n, 2)), t


def test_nonlinear_autoencoder_beats_pca_on_a_curved_manifold():
    X, t = _arc(300, 0)
    net = ae.Autoencoder(n_components=1, hidden_layer_sizes=(32,), epochs=150,
                         random_state=0).fit(X)
    pca = SkPCA(n_components=1).fit(X)
    pca_error = ((X - pca.inverse_transform(pca.transform(X))) ** 2).sum(axis=1).mean()
    assert net.reconstruction_error(X) < 0.1 * pca_error
    # the one-number code follows the arc: monotone in the angle
    code = net.encode(X)[:, 0]
    assert abs(np.corrcoef(np.argsort(np.argsort(code)), np.arange(len(t)))[0, 1]) > 0.99


def test_autoencoder_is_seeded_and_records_its_loss():
    X, _ = _arc(120, 1)
    a = ae.Autoencoder(n_components=1, hidden_layer_sizes=(8, 4), epochs=20, random_state=3).fit(X)
    b = ae.Autoencoder(n_components=1, hidden_layer_sizes=(8, 4), epochs=20, random_state=3).fit(X)
    np.testing.assert_array_equal(_flat(a.params_), _flat(b.params_))
    assert len(a.loss_history_) == 21
    assert a.loss_history_[-1] < 0.5 * a.loss_history_[0]
    # loss_history_ is the training loss in data units: 1/2 of the mean squared error
    assert a.loss_history_[-1] == pytest.approx(a.reconstruction_error(X) / 2, rel=1e-10)
    assert [W.shape for W, _ in a.params_] == [(2, 8), (8, 4), (4, 1), (1, 4), (4, 8), (8, 2)]


def test_encode_decode_shapes_and_round_trip():
    X, _ = _arc(50, 2)
    net = ae.Autoencoder(n_components=1, hidden_layer_sizes=(6,), epochs=3, random_state=0).fit(X)
    Z = net.encode(X)
    assert Z.shape == (50, 1)
    X_hat = net.decode(Z)
    assert X_hat.shape == X.shape
    assert net.reconstruction_error(X) == pytest.approx(((X - X_hat) ** 2).sum(1).mean())
    np.testing.assert_array_equal(net.fit_transform(X), net.encode(X))


def test_first_adam_step_is_a_signed_step_of_size_lr():
    """With bias correction, Adam's first step is -lr * g / (|g| + eps) per parameter."""
    params = [(np.array([[1.0, -2.0]]), np.array([0.5, 0.0]))]
    grads = [(np.array([[3.0, -1e-3]]), np.array([-7.0, 2.0]))]
    zeros = [(np.zeros((1, 2)), np.zeros(2))]
    new, _, _ = ae._adam_step(params, grads, zeros, zeros, 1, 0.1)
    for (p, g), q in zip(((params[0][0], grads[0][0]), (params[0][1], grads[0][1])), new[0],
                         strict=True):
        np.testing.assert_allclose(q, p - 0.1 * g / (np.abs(g) + ae.ADAM_EPS), rtol=1e-12)
