r"""Step 2 of the recipe: matrices of inner products.

Classical MDS, Isomap and kernel PCA all diagonalise a centred Gram matrix. It comes either
from squared distances by double centring, :math:`K = -\tfrac12 C D2 C`, or from a kernel
:math:`k(x, y) = \langle \phi(x), \phi(y) \rangle` followed by centring in feature space,
:math:`K \leftarrow C K C`. New points are centred with the training means
(:func:`center_kernel_test`), so that they land in the same coordinates.
"""

from collections.abc import Callable
from typing import Any

import numpy as np

from ._typing import ArrayLike, FloatArray
from ._validation import check_array, check_positive
from .graphs import squared_distances

KERNELS = ("linear", "poly", "rbf", "sigmoid")


def centering_matrix(N: int) -> FloatArray:
    r"""The centring matrix :math:`C = I - \tfrac1N \mathbf 1 \mathbf 1^\top` (``N x N``).

    :math:`C x` subtracts the mean of :math:`x`; :math:`C` is symmetric and idempotent.
    Kept for teaching: the functions below centre with row and column means instead of
    multiplying by :math:`C`, which costs :math:`O(N^2)` instead of :math:`O(N^3)`.
    """
    check_positive(N, "N", integer=True)
    return np.eye(N) - np.full((N, N), 1.0 / N)


def _center(A, col_means, row_means, grand_mean, copy=True):
    # (C A C)_ij = a_ij - mean_i' a_i'j - mean_j' a_ij' + mean a: the same as C @ A @ C
    if copy:
        A = A - col_means[None, :]
    else:
        A -= col_means[None, :]
    A -= row_means[:, None]
    A += grand_mean
    return A


def double_center(D2: ArrayLike, *, copy: bool = True) -> FloatArray:
    r"""Double centring :math:`K = -\tfrac12 C\, D2\, C` of squared distances.

    When :math:`D2_{ij} = \|x_i - x_j\|^2`, :math:`K = \tilde X \tilde X^\top` with
    :math:`\tilde X = C X` the centred data: the Gram matrix classical MDS factorises.
    Every row and column of :math:`K` sums to zero.

    Parameters
    ----------
    D2 : ndarray of shape (N, N)
        Squared dissimilarities.
    copy : bool, default=True
        False centres ``D2`` in place (when it is already a float64 array), saving memory.

    Returns
    -------
    K : ndarray of shape (N, N)
    """
    D2 = check_array(D2, name="D2")
    if D2.shape[0] != D2.shape[1]:
        raise ValueError(f"D2 must be square (N x N) but has shape {D2.shape}.")
    col = D2.mean(axis=0)
    K = _center(D2, col, D2.mean(axis=1), col.mean(), copy=copy)
    K *= -0.5
    return K


def _gamma(X, gamma):
    if gamma is None:
        return 1.0 / X.shape[1]  # scikit-learn's default, 1 / D
    return float(check_positive(gamma, "gamma"))


def _pair(X, Y):
    X = check_array(X)
    Y = X if Y is None else check_array(Y, name="Y")
    if Y.shape[1] != X.shape[1]:
        raise ValueError(
            f"X has {X.shape[1]} features but Y has {Y.shape[1]}; both need the same columns."
        )
    return X, Y


def linear_kernel(X: ArrayLike, Y: ArrayLike | None = None) -> FloatArray:
    r"""Linear kernel :math:`k(x, y) = x^\top y`."""
    X, Y = _pair(X, Y)
    return X @ Y.T


def polynomial_kernel(X: ArrayLike, Y: ArrayLike | None = None, *, degree: float = 3,
                      gamma: float | None = None, coef0: float = 1) -> FloatArray:
    r"""Polynomial kernel :math:`k(x, y) = (\gamma\, x^\top y + c_0)^{d}`; ``gamma=None`` is
    :math:`1/D`."""
    X, Y = _pair(X, Y)
    check_positive(degree, "degree", integer=True)
    return (_gamma(X, gamma) * (X @ Y.T) + coef0) ** degree


def rbf_kernel(X: ArrayLike, Y: ArrayLike | None = None, *, gamma: float | None = None) -> FloatArray:
    r"""Gaussian (RBF) kernel :math:`k(x, y) = \exp(-\gamma \|x - y\|^2)`; ``gamma=None`` is
    :math:`1/D`."""
    X, Y = _pair(X, Y)
    K = squared_distances(X, None if Y is X else Y)
    K *= -_gamma(X, gamma)
    return np.exp(K, out=K)


def sigmoid_kernel(X: ArrayLike, Y: ArrayLike | None = None, *, gamma: float | None = None,
                   coef0: float = 1) -> FloatArray:
    r"""Sigmoid (tanh) kernel :math:`k(x, y) = \tanh(\gamma\, x^\top y + c_0)`; ``gamma=None``
    is :math:`1/D`. Not positive semi-definite in general."""
    X, Y = _pair(X, Y)
    return np.tanh(_gamma(X, gamma) * (X @ Y.T) + coef0)


def kernel_matrix(X: ArrayLike, Y: ArrayLike | None = None, *, kernel: str | Callable[..., Any] = "rbf",
                  gamma: float | None = None, degree: float = 3, coef0: float = 1) -> FloatArray:
    """The kernel matrix :math:`K_{ij} = k(x_i, y_j)` for a kernel given by name."""
    if kernel == "linear":
        return linear_kernel(X, Y)
    if kernel == "poly":
        return polynomial_kernel(X, Y, degree=degree, gamma=gamma, coef0=coef0)
    if kernel == "rbf":
        return rbf_kernel(X, Y, gamma=gamma)
    if kernel == "sigmoid":
        return sigmoid_kernel(X, Y, gamma=gamma, coef0=coef0)
    raise ValueError(f"kernel must be one of {', '.join(map(repr, KERNELS))}, got {kernel!r}.")


KERNEL_BLOCK_ENTRIES = 2**18  # kernel_lower_triangle: entries per block of rows (2 MB, in cache)


def _kernel_from_products(G, sq_rows, sq_cols, kernel, gamma, degree, coef0):
    """Turn the inner products ``G = X_b Y^T`` into the named kernel's values, in place."""
    if kernel == "rbf":  # -gamma |x - y|^2 = 2 gamma x^T y - gamma |x|^2 - gamma |y|^2, <= 0
        G *= 2 * gamma
        G -= gamma * sq_rows[:, None]
        G -= gamma * sq_cols[None, :]
        np.minimum(G, 0.0, out=G)
        return np.exp(G, out=G)
    if kernel == "linear":
        return G
    G *= gamma
    G += coef0
    return np.power(G, degree, out=G) if kernel == "poly" else np.tanh(G, out=G)


def kernel_lower_triangle(X: ArrayLike, *, kernel: str = "rbf", gamma: float | None = None,
                          degree: float = 3, coef0: float = 1) -> tuple[FloatArray, FloatArray]:
    r"""The lower triangle of the kernel matrix :math:`K = k(X, X)` and the row sums of
    the whole :math:`K`, for a kernel given by name.

    A kernel is symmetric, :math:`K_{ij} = K_{ji}`, and a symmetric eigensolver reads one
    triangle, so half the evaluations suffice. Rows are built in blocks
    :math:`b = [r_0, r_1)`: one product :math:`X_b X_{[0, r_1)}^\top` (columns up to the
    block's last row), turned into kernel values in place while the block is in the cache, so
    that the ``N x N`` matrix is written once and never read again here. The row sums
    :math:`s_i = \sum_j K_{ij}` (for centring, :math:`C K C`) come from each block's rows and,
    by symmetry, from its columns left of the block: :math:`K_{ji} = K_{ij}`.

    Parameters
    ----------
    X : ndarray of shape (N, D)
    kernel : {"linear", "poly", "rbf", "sigmoid"}
    gamma, degree, coef0
        As in :func:`kernel_matrix`.

    Returns
    -------
    K : ndarray of shape (N, N)
        :math:`K_{ij} = k(x_i, x_j)` for :math:`j \le i` (and in the blocks on the diagonal);
        zero elsewhere.
    row_sums : ndarray of shape (N,)
        :math:`\sum_j K_{ij}` over the whole symmetric matrix.
    """
    if kernel not in KERNELS:
        raise ValueError(f"kernel must be one of {', '.join(map(repr, KERNELS))}, got {kernel!r}.")
    data = check_array(X)
    g = _gamma(data, gamma)
    if kernel == "poly":
        check_positive(degree, "degree", integer=True)
    n = len(data)
    sq = np.einsum("ij,ij->i", data, data)
    K = np.zeros((n, n))  # untouched pages (most of the upper triangle) are never allocated
    row_sums = np.zeros(n)
    rows = max(1, KERNEL_BLOCK_ENTRIES // n)
    for r0 in range(0, n, rows):
        r1 = min(n, r0 + rows)
        block = K[r0:r1, :r1]
        np.matmul(data[r0:r1], data[:r1].T, out=block)
        _kernel_from_products(block, sq[r0:r1], sq[:r1], kernel, g, degree, coef0)
        if kernel == "rbf":  # |x_i - x_i|^2 = 0 exactly, as squared_distances makes it
            block[:, r0:r1][np.diag_indices(r1 - r0)] = 1.0
        row_sums[r0:r1] += block.sum(axis=1)
        row_sums[:r0] += block[:, :r0].sum(axis=0)
    return K, row_sums


def center_kernel(K: ArrayLike, *, copy: bool = True) -> FloatArray:
    r"""Centre a training kernel in feature space: :math:`C K C`.

    The kernel of the centred features :math:`\phi(x_i) - \bar\phi`; centring twice changes
    nothing (:math:`C^2 = C`). ``copy=False`` centres ``K`` in place.
    """
    K = check_array(K, name="K")
    if K.shape[0] != K.shape[1]:
        raise ValueError(f"K must be square (N x N) but has shape {K.shape}.")
    col = K.mean(axis=0)
    return _center(K, col, K.mean(axis=1), col.mean(), copy=copy)


def center_kernel_test(K_test: ArrayLike, K_train: ArrayLike | tuple[FloatArray, float]) -> FloatArray:
    r"""Centre the kernel between new points and the training points with the *training* mean.

    With :math:`\bar\phi = \frac1N \sum_j \phi(x_j)` the training mean in feature space,
    :math:`\langle \phi(y_i) - \bar\phi, \phi(x_j) - \bar\phi \rangle
    = K^{test}_{ij} - \frac1N \sum_{j'} K^{test}_{ij'} - \frac1N \sum_{i'} K_{i'j}
    + \frac1{N^2} \sum_{i'j'} K_{i'j'}`.

    Parameters
    ----------
    K_test : ndarray of shape (M, N)
        :math:`k(y_i, x_j)`, new points against training points.
    K_train : ndarray of shape (N, N), or tuple
        The *uncentred* training kernel, or its column means ``(N,)`` and grand mean as a pair
        (what an estimator keeps instead of the whole matrix).
    """
    K_test = check_array(K_test, name="K_test")
    if isinstance(K_train, tuple):
        col_means, grand_mean = K_train
    else:
        K_train = check_array(K_train, name="K_train")
        col_means = K_train.mean(axis=0)
        grand_mean = col_means.mean()
    if K_test.shape[1] != len(col_means):
        raise ValueError(
            f"K_test has {K_test.shape[1]} columns but there are {len(col_means)} training points; "
            "each row must hold the kernel against every training point."
        )
    return _center(K_test, col_means, K_test.mean(axis=1), grand_mean)
