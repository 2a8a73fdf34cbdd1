r"""Kernel PCA: PCA in the feature space of a kernel.

Step 2 builds the kernel matrix :math:`K_{ij} = k(x_i, x_j)` and centres it in feature space,
:math:`K \leftarrow C K C`; step 3 takes its top eigenpairs :math:`K v_l = \lambda_l v_l`.
With unit eigenvectors :math:`v_l`, the feature-space axes are
:math:`a_l = \sum_i (v_{il} / \sqrt{\lambda_l})\, \phi(x_i)` (unit norm), so the training
scores are :math:`Z = V_L \Lambda_L^{1/2}` and a new point :math:`y` lands at
:math:`z_l(y) = \sum_i \tilde k(y, x_i)\, v_{il} / \sqrt{\lambda_l}`, with :math:`\tilde k` the
kernel centred by the training mean (:func:`~mlnotes.kernels.center_kernel_test`).
"""

import warnings

import numpy as np

from ._validation import (
    NEGATIVE_EIGENVALUE_RTOL,
    check_array,
    check_is_fitted,
    check_n_components,
    check_n_features,
    check_square_symmetric,
    check_top_eigenvalues_positive,
    describe_negative_eigenvalues,
)
from .base import Estimator
from .kernels import KERNELS, center_kernel, center_kernel_test, kernel_matrix
from .spectral import check_solver, flip_signs, smallest_eigenvalue, top_eigenpairs


def gram_embedding(K_centered, n_components, *, solver="auto"):
    r"""Coordinates :math:`Z = V_L \Lambda_L^{1/2}` from the top eigenpairs of a centred Gram
    matrix (shared by kernel PCA and Isomap).

    Returns
    -------
    Z : ndarray of shape (N, n_components)
    eigenvalues : ndarray of shape (n_components,)
    V : ndarray of shape (N, n_components)
        Unit eigenvectors, signs by :func:`~mlnotes.spectral.flip_signs`.

    Raises
    ------
    ValueError
        If one of the top ``n_components`` eigenvalues is not positive: those coordinates
        would be zero (rank deficiency) or imaginary.
    """
    n_components = check_n_components(n_components, len(K_centered))
    lam, V = top_eigenpairs(K_centered, n_components, solver=solver)
    check_top_eigenvalues_positive(lam, n_components, name="the centred Gram matrix")
    V = flip_signs(V)
    return V * np.sqrt(lam), lam, V


class KernelPCA(Estimator):
    r"""Kernel principal component analysis.

    Parameters
    ----------
    n_components : int, default=2
    kernel : {"linear", "poly", "rbf", "sigmoid", "precomputed"}, default="linear"
        ``"precomputed"``: ``fit`` takes the ``N x N`` kernel matrix and ``transform`` the
        ``M x N`` kernel between new and training points.
    gamma : float, optional
        For ``"poly"``, ``"rbf"``, ``"sigmoid"``; ``None`` means :math:`1/D`.
    degree : int, default=3
    coef0 : float, default=1
    eigen_solver : {"auto", "dense", "arpack"}, default="auto"
        See :mod:`mlnotes.spectral`.

    Attributes
    ----------
    eigenvalues_ : ndarray of shape (n_components,)
        Top eigenvalues of the centred kernel matrix, decreasing.
    eigenvectors_ : ndarray of shape (N, n_components)
        Unit eigenvectors; the largest-magnitude entry of each is positive (scikit-learn's rule
        for ``KernelPCA``).
    embedding_ : ndarray of shape (N, n_components)
    X_fit_ : ndarray
        Training data (or the training kernel for ``"precomputed"``).

    Notes
    -----
    A precomputed kernel that is not positive semi-definite after centring (smallest eigenvalue
    below ``-1e-5`` times the largest) triggers a ``UserWarning`` that says how negative: the
    embedding from the positive top of the spectrum is still defined, but it is no longer PCA
    in a feature space. If one of the top ``n_components`` eigenvalues itself is not positive,
    ``fit`` raises a ``ValueError``.

    Examples
    --------
    >>> import numpy as np
    >>> from mlnotes import KernelPCA
    >>> X = np.random.default_rng(0).normal(size=(30, 3))
    >>> KernelPCA(n_components=2, kernel="rbf").fit_transform(X).shape
    (30, 2)
    """

    def __init__(self, n_components=2, *, kernel="linear", gamma=None, degree=3, coef0=1,
                 eigen_solver="auto"):
        self.n_components = n_components
        self.kernel = kernel
        self.gamma = gamma
        self.degree = degree
        self.coef0 = coef0
        self.eigen_solver = eigen_solver

    _preserves_float32 = True  # as scikit-learn's; computed in float64 (base.Estimator)

    def _tags(self):
        return {"input_tags.pairwise": self.kernel == "precomputed"}

    def _kernel(self, X, Y=None):
        return kernel_matrix(X, Y, kernel=self.kernel, gamma=self.gamma, degree=self.degree,
                             coef0=self.coef0)

    def fit(self, X, y=None):
        check_solver(self.eigen_solver, "eigen_solver")
        if self.kernel == "precomputed":
            K = check_square_symmetric(X, name="the precomputed kernel matrix")
        elif self.kernel in KERNELS:
            X = check_array(X, min_samples=2)
            K = self._kernel(X)
        else:
            raise ValueError(
                f"kernel must be one of {', '.join(map(repr, KERNELS + ('precomputed',)))}, "
                f"got {self.kernel!r}."
            )
        # keep the training means: new points are centred with them
        col_means = K.mean(axis=0)
        self._train_means = (col_means, col_means.mean())
        Kc = center_kernel(K, copy=self.kernel == "precomputed")
        self.embedding_, self.eigenvalues_, self.eigenvectors_ = gram_embedding(
            Kc, self.n_components, solver=self.eigen_solver
        )
        if self.kernel == "precomputed":
            problem = describe_negative_eigenvalues(
                [smallest_eigenvalue(Kc), self.eigenvalues_[0]],
                name="The precomputed kernel matrix (after centring)",
            )
            if problem:
                warnings.warn(
                    f"{problem} (threshold {NEGATIVE_EIGENVALUE_RTOL:g}). A kernel matrix must "
                    "be PSD; the embedding uses only the top of the spectrum. Check the kernel, "
                    "or make it PSD (clip the negative eigenvalues, or add a constant to the "
                    "diagonal).",
                    UserWarning,
                    stacklevel=2,
                )
        self.X_fit_ = K if self.kernel == "precomputed" else X
        return self

    def fit_transform(self, X, y=None):
        return self.fit(X).embedding_

    def transform(self, X):
        r"""Project new points: :math:`Z = \tilde K_{test} V_L \Lambda_L^{-1/2}`.

        Parameters
        ----------
        X : ndarray of shape (M, D), or (M, N) kernel values for ``"precomputed"``
        """
        check_is_fitted(self, "eigenvectors_")
        if self.kernel == "precomputed":
            K_test = check_n_features(X, len(self.X_fit_), name="the test kernel matrix",
                                      estimator=self)
        else:
            K_test = self._kernel(check_n_features(X, self.X_fit_.shape[1], estimator=self),
                                  self.X_fit_)
        K_test = center_kernel_test(K_test, self._train_means)
        return K_test @ (self.eigenvectors_ / np.sqrt(self.eigenvalues_))
