r"""Autoencoders: PCA as the linear case, and a small tanh network in numpy.

An autoencoder is an encoder :math:`f: \mathbb{R}^D \to \mathbb{R}^L` and a decoder
:math:`g: \mathbb{R}^L \to \mathbb{R}^D` trained to reconstruct the data,

.. math::
    \min_{f, g} \; \frac{1}{2N} \sum_{n=1}^N \|x_n - g(f(x_n))\|^2 .

With linear maps :math:`f(x) = W_1^\top x`, :math:`g(z) = W_2^\top z` (centred data) the best
rank-:math:`L` reconstruction is PCA's (Eckart–Young), so a trained linear autoencoder's decoder
spans the top-:math:`L` principal subspace: not the principal axes themselves, any basis of
their span (:class:`LinearAutoencoder`). Nonlinear layers let the code follow a curved
manifold, where PCA can only project onto a flat one (:class:`Autoencoder`).

The network is a list of layers :math:`a_{l} = \phi_l(a_{l-1} W_l + b_l)`, one row per sample;
:func:`forward` and :func:`loss_gradient` (back-propagation, written out) are shared by both
estimators, which differ only in their optimiser: full-batch gradient descent for the linear one,
Adam on mini-batches for the network.

References
----------
.. [1] Baldi, P. and Hornik, K. (1989). Neural networks and principal component analysis:
       learning from examples without local minima. Neural Networks 2, 53-58.
.. [2] Hinton, G. E. and Salakhutdinov, R. R. (2006). Reducing the dimensionality of data with
       neural networks. Science 313, 504-507.
.. [3] Kingma, D. P. and Ba, J. (2015). Adam: a method for stochastic optimization. ICLR.
"""

import numbers
from collections.abc import Sequence

import numpy as np

from ._typing import ArrayLike, FloatArray, Seed, Self
from ._validation import (
    check_array,
    check_is_fitted,
    check_n_components,
    check_positive,
    check_random_state,
)
from .base import Estimator

ADAM_BETA1, ADAM_BETA2, ADAM_EPS = 0.9, 0.999, 1e-8  # Kingma and Ba's defaults
LINEAR_STEP = 0.5  # linear AE: learning_rate="auto" = LINEAR_STEP / tr(S), S the covariance
AUTO_STEP_CUT = 4.0  # linear AE, "auto": after a divergence, restart with a step this much smaller
AUTO_MAX_RESTARTS = 5
DIVERGENCE_FACTOR = 1e6  # a loss this many times the initial one (or non-finite) = diverged

_ACTIVATIONS = {
    # name: (phi, phi' expressed through the output a = phi(u))
    "tanh": (np.tanh, lambda a: 1.0 - a * a),
    "identity": (lambda u: u, lambda a: np.ones_like(a)),
}


# --- the network: parameters, forward pass, back-propagation ----------------------------------
def init_params(layer_sizes: Sequence[int], random_state: Seed = None) -> list[tuple[FloatArray, FloatArray]]:
    r"""Glorot-uniform weights :math:`W_l \sim U(\pm\sqrt{6 / (n_{in} + n_{out})})`, zero biases.

    Returns a list of ``(W, b)`` with ``W`` of shape ``(n_in, n_out)``.
    """
    rng = check_random_state(random_state)
    params = []
    for n_in, n_out in zip(layer_sizes[:-1], layer_sizes[1:], strict=True):
        bound = np.sqrt(6.0 / (n_in + n_out))
        params.append((rng.uniform(-bound, bound, size=(n_in, n_out)), np.zeros(n_out)))
    return params


def forward(params: Sequence[tuple[FloatArray, FloatArray]], X: ArrayLike,
            activations: Sequence[str]) -> list[FloatArray]:
    r"""All layer outputs :math:`a_0 = X`, :math:`a_l = \phi_l(a_{l-1} W_l + b_l)`."""
    A = [X]
    for (W, b), name in zip(params, activations, strict=True):
        A.append(_ACTIVATIONS[name][0](A[-1] @ W + b))
    return A


def loss_gradient(params: Sequence[tuple[FloatArray, FloatArray]], X: ArrayLike,
                  activations: Sequence[str]) -> tuple[float, list[tuple[FloatArray, FloatArray]]]:
    r"""Reconstruction loss :math:`\frac{1}{2N} \sum_n \|x_n - \hat x_n\|^2` and its gradient.

    Back-propagation: with :math:`\delta_{\text{out}} = (\hat X - X) / N`, each layer from the
    last gives :math:`\partial/\partial W_l = a_{l-1}^\top \delta_l`,
    :math:`\partial/\partial b_l = 1^\top \delta_l`, and passes back
    :math:`\delta_{l-1} = (\delta_l W_l^\top) \circ \phi_{l-1}'`, where for tanh
    :math:`\phi' = 1 - a^2`.

    Returns
    -------
    loss : float
    grads : list of (dW, db), shaped like ``params``
    """
    A = forward(params, X, activations)
    N = X.shape[0]
    R = A[-1] - X
    loss = float(np.einsum("ij,ij->", R, R)) / (2.0 * N)
    delta = R / N * _ACTIVATIONS[activations[-1]][1](A[-1])
    grads = [None] * len(params)
    for l in range(len(params) - 1, -1, -1):
        W = params[l][0]
        grads[l] = (A[l].T @ delta, delta.sum(axis=0))
        if l:
            delta = (delta @ W.T) * _ACTIVATIONS[activations[l - 1]][1](A[l])
    return loss, grads


# --- estimators ----------------------------------------------------------------------------------
class _BaseAutoencoder(Estimator):
    """Shared parts: preprocessing, encode/decode through the two halves of the network."""

    def _prepare(self, X):
        X = check_array(X, min_samples=2)
        self.n_features_in_ = X.shape[1]
        self._L = check_n_components(self.n_components, X.shape[1], what="n_features")
        self.mean_ = X.mean(axis=0)
        return X

    def _check_X(self, X):
        check_is_fitted(self, "params_")
        X = check_array(X)
        if X.shape[1] != self.n_features_in_:
            raise ValueError(
                f"X has {X.shape[1]} features, but {type(self).__name__} is expecting "
                f"{self.n_features_in_} features as input (the autoencoder was fitted on "
                f"{self.n_features_in_}); pass data with the same columns."
            )
        return X

    @property
    def _n_features_out(self):
        return self._L

    def encode(self, X: ArrayLike) -> FloatArray:
        """The code :math:`Z = f(X)`, shape (N, n_components)."""
        X = self._check_X(X)
        k = self._code_layer
        return forward(self.params_[:k], (X - self.mean_) / self.scale_, self._activations[:k])[-1]

    def decode(self, Z: ArrayLike) -> FloatArray:
        r"""The reconstruction :math:`\hat X = g(Z)` in data units, shape (N, n_features)."""
        check_is_fitted(self, "params_")
        Z = check_array(Z, name="Z")
        if Z.shape[1] != self._L:
            raise ValueError(f"Z must have {self._L} columns (n_components), got {Z.shape[1]}.")
        k = self._code_layer
        out = forward(self.params_[k:], Z, self._activations[k:])[-1]
        return out * self.scale_ + self.mean_

    transform = encode
    inverse_transform = decode

    def fit_transform(self, X: ArrayLike, y: object = None) -> FloatArray:
        """Fit and return the code of ``X``."""
        return self.fit(X).encode(X)

    def reconstruction_error(self, X: ArrayLike) -> float:
        r"""Mean squared reconstruction error :math:`\frac1N \sum_n \|x_n - g(f(x_n))\|^2`."""
        X = self._check_X(X)
        R = X - self.decode(self.encode(X))
        return float(np.einsum("ij,ij->", R, R)) / len(X)

    def _diverged(self, loss, loss0, what):
        if not np.isfinite(loss) or loss > DIVERGENCE_FACTOR * loss0:
            raise FloatingPointError(
                f"Training diverged at {what} (loss {loss:.3g}, initially {loss0:.3g}) with "
                f"learning_rate={self._lr:g}. Lower learning_rate (e.g. 10x smaller)."
            )


class LinearAutoencoder(_BaseAutoencoder):
    r"""Linear autoencoder trained by full-batch gradient descent.

    Encoder :math:`z = W_1^\top (x - \bar x) + b_1`, decoder
    :math:`\hat x = W_2^\top z + b_2 + \bar x`, loss :math:`\frac{1}{2N}\|X_c - \hat X_c\|_F^2`.
    Every local minimum is global (Baldi and Hornik), and there
    :math:`W_1 W_2` is the orthogonal projection onto the top-:math:`L` principal subspace: the
    rows of ``components_`` (the decoder) span PCA's subspace, in some basis.

    Parameters
    ----------
    n_components : int
        Code size :math:`L`.
    learning_rate : float or "auto"
        Step size; ``"auto"`` is :math:`0.5 / \operatorname{tr}(S)`, with :math:`S` the
        covariance: the trace bounds the largest eigenvalue, which sets the curvature. The
        curvature also grows with the weights (the loss is quartic in them), so large initial
        weights (few features) can still make that step diverge; ``"auto"`` then restarts from
        the same initial weights with a step 4 times smaller (at most 5 times).
    max_iter : int
        Gradient steps. Convergence slows with the smallest variance in the data: directions
        of tiny variance give the encoder almost no gradient to remove its component along
        them (rate about :math:`\eta \lambda_{\min}` per step).
    tol : float
        Stop once the gradient norm is below ``tol`` times :math:`\operatorname{tr}(S)`.
    random_state : int, Generator or None
        Seeds the (Glorot) initial weights.

    Attributes
    ----------
    components_ : ndarray of shape (n_components, n_features)
        Decoder weights :math:`W_2`.
    params_ : list of (W, b)
    loss_history_ : list of float
        Loss before the first step and after every step.
    n_iter_ : int
    learning_rate_ : float

    Examples
    --------
    >>> import numpy as np
    >>> X = np.random.default_rng(0).normal(size=(200, 4)) * [3.0, 2.0, 0.5, 0.1]
    >>> ae = LinearAutoencoder(n_components=2, random_state=0).fit(X)
    >>> ae.encode(X).shape, ae.decode(ae.encode(X)).shape
    ((200, 2), (200, 4))
    """

    _activations = ("identity", "identity")
    _code_layer = 1

    def __init__(self, n_components=2, *, learning_rate="auto", max_iter=5000, tol=1e-9,
                 random_state=None):
        self.n_components = n_components
        self.learning_rate = learning_rate
        self.max_iter = max_iter
        self.tol = tol
        self.random_state = random_state

    def fit(self, X: ArrayLike, y: object = None) -> Self:
        """Train on ``X`` (N x D) by gradient descent."""
        X = self._prepare(X)
        check_positive(self.max_iter, "max_iter", integer=True)
        check_positive(self.tol, "tol", allow_zero=True)
        Xc = X - self.mean_
        trace = float(np.einsum("ij,ij->", Xc, Xc)) / len(X)  # tr(S)
        if trace == 0:
            raise ValueError("All samples are identical (zero variance); nothing to encode.")
        self._lr = _learning_rate(self.learning_rate, LINEAR_STEP / trace)
        self.scale_ = 1.0
        params0 = init_params([X.shape[1], self._L, X.shape[1]], self.random_state)
        for restart in range(AUTO_MAX_RESTARTS + 1):
            try:
                params, history = self._descend(params0, Xc, trace)
                break
            except FloatingPointError:
                if self.learning_rate != "auto" or restart == AUTO_MAX_RESTARTS:
                    raise
                self._lr /= AUTO_STEP_CUT
        self.params_, self.loss_history_, self.n_iter_ = params, history, len(history) - 1
        self.learning_rate_ = self._lr
        self.components_ = params[1][0]
        return self

    def _descend(self, params, Xc, trace):
        """Gradient descent with step ``self._lr`` until the gradient is small or max_iter."""
        loss, grads = loss_gradient(params, Xc, self._activations)
        history = [loss]
        while len(history) <= self.max_iter and _grad_norm(grads) > self.tol * trace:
            params = [(W - self._lr * dW, b - self._lr * db)
                      for (W, b), (dW, db) in zip(params, grads, strict=True)]
            loss, grads = loss_gradient(params, Xc, self._activations)
            history.append(loss)
            self._diverged(loss, history[0], f"step {len(history) - 1}")
        return params, history


class Autoencoder(_BaseAutoencoder):
    r"""A small multilayer autoencoder in numpy: tanh hidden layers, linear code and output.

    Layers :math:`D \to h_1 \to \dots \to h_k \to L \to h_k \to \dots \to h_1 \to D`, trained
    with Adam on shuffled mini-batches. Inputs are centred and divided by one overall scale
    (the root mean square of the centred entries), so tanh units start in their sensitive
    range without distorting the geometry; reconstructions are returned in data units.

    Parameters
    ----------
    n_components : int
        Code size :math:`L` (the bottleneck).
    hidden_layer_sizes : tuple of int
        Encoder hidden widths; the decoder mirrors them.
    learning_rate : float
        Adam's step size.
    epochs : int
        Passes over the data.
    batch_size : int
    random_state : int, Generator or None
        Seeds the weights and the shuffling.
    callback : callable or None
        ``callback(epoch, model)`` after every epoch, with ``model.params_`` and
        ``model.loss_history_`` as they are then (the model encodes and decodes as trained so
        far); return True to stop training there.

    Attributes
    ----------
    params_ : list of (W, b)
    loss_history_ : list of float
        Training loss :math:`\frac{1}{2N}\sum_n \|x_n - \hat x_n\|^2` (in data units) on the
        whole data before training and after every epoch.
    learning_rate_ : float

    Examples
    --------
    >>> import numpy as np
    >>> t = np.linspace(0, 3, 200)
    >>> X = np.c_[np.cos(t), np.sin(t)]
    >>> ae = Autoencoder(n_components=1, hidden_layer_sizes=(16,), epochs=5, random_state=0)
    >>> ae.fit(X).encode(X).shape
    (200, 1)
    """

    def __init__(self, n_components=2, *, hidden_layer_sizes=(32,), learning_rate=1e-2,
                 epochs=200, batch_size=32, random_state=None, callback=None):
        self.n_components = n_components
        self.hidden_layer_sizes = hidden_layer_sizes
        self.learning_rate = learning_rate
        self.epochs = epochs
        self.batch_size = batch_size
        self.random_state = random_state
        self.callback = callback

    def _architecture(self, D):
        hidden = tuple(self.hidden_layer_sizes)
        for h in hidden:
            if isinstance(h, bool) or not isinstance(h, numbers.Integral) or h < 1:
                raise ValueError(
                    f"hidden_layer_sizes must be positive integers, got {self.hidden_layer_sizes!r}."
                )
        sizes = [D, *hidden, self._L, *hidden[::-1], D]
        acts = ["tanh"] * len(hidden) + ["identity"] + ["tanh"] * len(hidden) + ["identity"]
        return sizes, tuple(acts), len(hidden) + 1

    def fit(self, X: ArrayLike, y: object = None) -> Self:
        """Train on ``X`` (N x D) with Adam on mini-batches."""
        X = self._prepare(X)
        check_positive(self.epochs, "epochs", integer=True)
        check_positive(self.batch_size, "batch_size", integer=True)
        self._lr = _learning_rate(self.learning_rate, None)
        sizes, self._activations, self._code_layer = self._architecture(X.shape[1])
        Xc = X - self.mean_
        self.scale_ = float(np.sqrt(np.mean(Xc**2)))
        if self.scale_ == 0:
            raise ValueError("All samples are identical (zero variance); nothing to encode.")
        Xs = Xc / self.scale_
        rng = check_random_state(self.random_state)
        params = init_params(sizes, rng)
        m = [(np.zeros_like(W), np.zeros_like(b)) for W, b in params]  # Adam's moments
        v = [(np.zeros_like(W), np.zeros_like(b)) for W, b in params]
        to_data_units = self.scale_**2
        history = [loss_gradient(params, Xs, self._activations)[0] * to_data_units]
        t = 0
        for epoch in range(1, self.epochs + 1):
            order = rng.permutation(len(Xs))
            for start in range(0, len(Xs), self.batch_size):
                _, grads = loss_gradient(params, Xs[order[start:start + self.batch_size]],
                                         self._activations)
                t += 1
                params, m, v = _adam_step(params, grads, m, v, t, self._lr)
            history.append(loss_gradient(params, Xs, self._activations)[0] * to_data_units)
            self._diverged(history[-1], history[0], f"epoch {epoch}")
            if self.callback is not None:
                self.params_, self.loss_history_ = params, history
                if self.callback(epoch, self):
                    break
        self.params_, self.loss_history_, self.learning_rate_ = params, history, self._lr
        return self


def _adam_step(params, grads, m, v, t, lr):
    r"""Adam: :math:`m \leftarrow \beta_1 m + (1-\beta_1) g`, :math:`v \leftarrow \beta_2 v +
    (1-\beta_2) g^2`, :math:`\theta \leftarrow \theta - \eta\, \hat m / (\sqrt{\hat v} + \epsilon)`
    with the bias corrections :math:`\hat m = m / (1 - \beta_1^t)`, :math:`\hat v = v / (1 - \beta_2^t)`."""
    c1, c2 = 1.0 - ADAM_BETA1**t, 1.0 - ADAM_BETA2**t
    new_p, new_m, new_v = [], [], []
    for theta, g, mm, vv in zip(params, grads, m, v, strict=True):
        layer_p, layer_m, layer_v = [], [], []
        for th, gi, mi, vi in zip(theta, g, mm, vv, strict=True):
            mi = ADAM_BETA1 * mi + (1.0 - ADAM_BETA1) * gi
            vi = ADAM_BETA2 * vi + (1.0 - ADAM_BETA2) * gi * gi
            layer_p.append(th - lr * (mi / c1) / (np.sqrt(vi / c2) + ADAM_EPS))
            layer_m.append(mi)
            layer_v.append(vi)
        new_p.append(tuple(layer_p))
        new_m.append(tuple(layer_m))
        new_v.append(tuple(layer_v))
    return new_p, new_m, new_v


def _learning_rate(value, auto):
    if isinstance(value, str):
        if value == "auto" and auto is not None:
            return auto
        raise ValueError(f"learning_rate must be a positive number, got {value!r}.")
    return float(check_positive(value, "learning_rate"))


def _grad_norm(grads):
    return float(np.sqrt(sum((dW**2).sum() + (db**2).sum() for dW, db in grads)))
