r"""Principal component analysis as one eigenproblem.

With centred data :math:`\tilde X = C X`, the directions of largest variance are the top
eigenvectors of the sample covariance :math:`S = \tilde X^\top \tilde X / (N - 1)` (step 2),
found by :func:`mlnotes.spectral.top_eigenpairs` (step 3). When there are more features than
samples the same subspace comes cheaper from the ``N x N`` Gram matrix
:math:`\tilde X \tilde X^\top` (the dual problem: classical MDS of the data).
"""

import numpy as np

from ._validation import check_array, check_is_fitted, check_n_components, check_n_features
from .base import Estimator
from .spectral import flip_signs, top_eigenpairs


def principal_components(X, n_components):
    r"""The top principal axes of ``X`` and the variance along each.

    Returns
    -------
    components : ndarray of shape (n_components, D)
        Unit principal axes (rows), signs by :func:`~mlnotes.spectral.flip_signs` on each axis
        (scikit-learn's rule for PCA).
    explained_variance : ndarray of shape (n_components,)
        Eigenvalues of :math:`S = \tilde X^\top \tilde X / (N-1)`.
    mean : ndarray of shape (D,)
    """
    X = check_array(X, min_samples=2)
    N, D = X.shape
    n_components = check_n_components(n_components, min(N, D), what="min(n_samples, n_features)")
    mean = X.mean(axis=0)
    Xc = X - mean
    if D <= N:
        S = Xc.T @ Xc / (N - 1)  # covariance, D x D
        variance, V = top_eigenpairs(S, n_components, solver="dense")
    else:
        # dual: K = Xc Xc^T = U Lambda U^T; axes v = Xc^T u / sqrt(lambda)
        lam, U = top_eigenpairs(Xc @ Xc.T, n_components, solver="dense")
        V = Xc.T @ U / np.sqrt(np.maximum(lam, np.finfo(float).tiny))
        variance = lam / (N - 1)
    return flip_signs(V).T, np.maximum(variance, 0.0), mean


class PCA(Estimator):
    r"""Principal component analysis.

    Projects the centred data onto the :math:`L` directions of largest variance:
    :math:`Z = (X - \bar x)\, V_L`, where :math:`V_L` holds the top :math:`L` eigenvectors of
    the covariance :math:`S`. Reconstruction :math:`\hat X = Z V_L^\top + \bar x` is the best
    rank-:math:`L` approximation in squared error; the error is the sum of the discarded
    eigenvalues times :math:`N - 1` (Eckart–Young).

    Parameters
    ----------
    n_components : int, default=2

    Attributes
    ----------
    components_ : ndarray of shape (n_components, D)
        Principal axes; the largest-magnitude entry of each is positive (scikit-learn's rule).
    explained_variance_ : ndarray of shape (n_components,)
    explained_variance_ratio_ : ndarray of shape (n_components,)
    mean_ : ndarray of shape (D,)
    embedding_ : ndarray of shape (N, n_components)

    Examples
    --------
    >>> import numpy as np
    >>> from mlnotes import PCA
    >>> X = np.array([[0.0, 0.0], [2.0, 2.0], [4.0, 4.0]])
    >>> PCA(n_components=1).fit(X).explained_variance_
    array([8.])
    """

    def __init__(self, n_components=2):
        self.n_components = n_components

    def fit(self, X, y=None):
        X = check_array(X, min_samples=2)
        self.components_, self.explained_variance_, self.mean_ = principal_components(
            X, self.n_components
        )
        total = ((X - self.mean_) ** 2).sum() / (len(X) - 1)
        self.explained_variance_ratio_ = self.explained_variance_ / total if total > 0 else (
            np.zeros_like(self.explained_variance_)
        )
        self.n_features_in_ = X.shape[1]
        self.embedding_ = (X - self.mean_) @ self.components_.T
        return self

    def fit_transform(self, X, y=None):
        return self.fit(X).embedding_

    def transform(self, X):
        """Coordinates :math:`(X - \\bar x) V_L` of (new) points."""
        check_is_fitted(self, "components_")
        X = check_n_features(X, self.n_features_in_, estimator=self)
        return (X - self.mean_) @ self.components_.T

    def inverse_transform(self, Z):
        """Back to data space: :math:`Z V_L^\\top + \\bar x`."""
        check_is_fitted(self, "components_")
        Z = check_array(Z, name="Z")
        if Z.shape[1] != len(self.components_):
            raise ValueError(
                f"Z has {Z.shape[1]} columns but the model has {len(self.components_)} components."
            )
        return Z @ self.components_ + self.mean_

