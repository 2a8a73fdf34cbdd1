r"""Kernel PCA: PCA in the feature space of a kernel.

Step 2 builds the kernel matrix :math:`K_{ij} = k(x_i, x_j)` and centres it in feature space,
:math:`K \leftarrow C K C`; step 3 takes its top eigenpairs :math:`K v_l = \lambda_l v_l`.
With unit eigenvectors :math:`v_l`, the feature-space axes are
:math:`a_l = \sum_i (v_{il} / \sqrt{\lambda_l})\, \phi(x_i)` (unit norm), so the training
scores are :math:`Z = V_L \Lambda_L^{1/2}` and a new point :math:`y` lands at
:math:`z_l(y) = \sum_i \tilde k(y, x_i)\, v_{il} / \sqrt{\lambda_l}`, with :math:`\tilde k` the
kernel centred by the training mean (:func:`~mlnotes.kernels.center_kernel_test`).

The way back (``fit_inverse_transform=True``; Bakır, Weston and Schölkopf 2004, as
scikit-learn): a feature-space point has no exact pre-image in general, so a map
:math:`f: \mathbb R^L \to \mathbb R^D` from the embedding to the data is *learned* by kernel
ridge regression on the training pairs :math:`(z_i, x_i)`,

.. math::
    \min_{f \in \mathcal H^D} \sum_i \|x_i - f(z_i)\|^2 + \alpha \|f\|_{\mathcal H}^2,

with :math:`\mathcal H` the reproducing-kernel space of the same kernel :math:`k` on
:math:`\mathbb R^L`. By the representer theorem the minimiser is
:math:`f(z) = \sum_j k(z, z_j)\, a_j` (rows :math:`a_j \in \mathbb R^D` of :math:`A`); the
objective becomes :math:`\|X - K_Z A\|^2 + \alpha \operatorname{tr}(A^\top K_Z A)`, whose
gradient :math:`2 K_Z ((K_Z + \alpha I) A - X)` vanishes at
:math:`A = (K_Z + \alpha I)^{-1} X` (``dual_coef_``), so
:math:`\hat x(z) = k(z, Z)\, A`. The data's mean is not restored separately (the kernel
was centred), exactly as in scikit-learn.
"""

import warnings

import numpy as np
import scipy.linalg
import scipy.sparse as sp

from ._typing import ArrayLike, FloatArray, Self
from ._validation import (
    NEGATIVE_EIGENVALUE_RTOL,
    NotFittedError,
    check_array,
    check_is_fitted,
    check_n_components,
    check_n_features,
    check_positive,
    check_square_symmetric,
    check_top_eigenvalues_positive,
    describe_negative_eigenvalues,
)
from .base import Estimator
from .graphs import squared_distances
from .kernels import (
    KERNELS,
    _gamma,
    center_kernel,
    center_kernel_test,
    kernel_lower_triangle,
    kernel_matrix,
)
from .spectral import (
    centred_top_eigenpairs,
    check_solver,
    flip_signs,
    is_nearly_psd,
    smallest_eigenvalue,
    top_eigenpairs,
)


def sparse_kernel_matrix(X: ArrayLike, Y: ArrayLike | None = None, *, kernel: str = "rbf",
                         gamma: float | None = None, degree: int = 3,
                         coef0: float = 1) -> FloatArray:
    r""":func:`~mlnotes.kernels.kernel_matrix` for sparse rows (either side, or both).

    The named kernels see the data only through inner products :math:`x^\top y` (linear,
    polynomial, sigmoid) or squared distances :math:`\|x - y\|^2` (RBF); both come from one
    sparse product, so the data are never densified (the ``N x M`` kernel is dense).
    ``gamma=None`` is :math:`1/D`, as for dense data.
    """
    X = sp.csr_matrix(X)
    Y = X if Y is None else sp.csr_matrix(Y)
    if kernel == "rbf":
        return np.exp(-_gamma(X, gamma) * squared_distances(X, Y))
    G = (X @ Y.T).toarray()  # x_i^T y_j
    if kernel == "linear":
        return G
    if kernel == "poly":
        check_positive(degree, "degree", integer=True)
        return (_gamma(X, gamma) * G + coef0) ** degree
    if kernel == "sigmoid":
        return np.tanh(_gamma(X, gamma) * G + coef0)
    raise ValueError(f"kernel must be one of {', '.join(map(repr, KERNELS))}, got {kernel!r}.")


def gram_embedding(K_centered: ArrayLike, n_components: int, *, solver: str = "auto",
                   row_means: FloatArray | None = None, scale: float = 1.0,
                   overwrite: bool = True) -> tuple[FloatArray, FloatArray, FloatArray]:
    r"""Coordinates :math:`Z = V_L \Lambda_L^{1/2}` from the top eigenpairs of a centred Gram
    matrix (shared by kernel PCA and Isomap).

    With ``row_means`` given, ``K_centered`` is instead an *uncentred* symmetric matrix
    :math:`S` with those row means, and the Gram matrix is :math:`s\, C S C` (``scale``
    :math:`s`), centred implicitly by :func:`~mlnotes.spectral.centred_top_eigenpairs`
    (which reads only the lower triangle of :math:`S`, and overwrites it only with the dense
    solver and ``overwrite=True``).

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
    if row_means is None:
        lam, V = top_eigenpairs(K_centered, n_components, solver=solver)
    else:
        lam, V = centred_top_eigenpairs(np.asarray(K_centered, dtype=np.float64), n_components,
                                        row_means=row_means,
                                        scale=scale, solver=solver, overwrite=overwrite)
    check_top_eigenvalues_positive(lam, n_components, name="the centred Gram matrix")
    V = flip_signs(V)
    return V * np.sqrt(lam), lam, V


class KernelPCA(Estimator):
    r"""Kernel principal component analysis.

    Parameters
    ----------
    n_components : int, default=2
    kernel : {"linear", "poly", "rbf", "sigmoid", "precomputed"} or callable, default="linear"
        ``"precomputed"``: ``fit`` takes the ``N x N`` kernel matrix and ``transform`` the
        ``M x N`` kernel between new and training points. A callable ``k(x, y, **kernel_params)``
        is called on each pair of rows (scikit-learn's convention) and must return a number.
    gamma : float, optional
        For ``"poly"``, ``"rbf"``, ``"sigmoid"``; ``None`` means :math:`1/D`.
    degree : int, default=3
    coef0 : float, default=1
    eigen_solver : {"auto", "dense", "arpack"}, default="auto"
        See :mod:`mlnotes.spectral`.
    kernel_params : dict or None
        Keyword arguments of a callable kernel.
    alpha : float, default=1.0
        Ridge penalty :math:`\alpha > 0` of the learned pre-image (see the module docstring).
    fit_inverse_transform : bool, default=False
        Learn the pre-image map in ``fit``, for :meth:`inverse_transform` (not with
        ``kernel="precomputed"``: the kernel on the embedding is then unknown).

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
    gamma_ : float or None
        The kernel's :math:`\gamma` (``gamma``, or :math:`1/D` for None); the pre-image
        kernel on the embedding uses it too, as scikit-learn does.
    dual_coef_ : ndarray of shape (N, D)
        :math:`A = (K_Z + \alpha I)^{-1} X` (with ``fit_inverse_transform=True``).
    X_transformed_fit_ : ndarray of shape (N, n_components)
        The training embedding the pre-image map was fitted on.

    Notes
    -----
    A precomputed kernel that is not positive semi-definite after centring (smallest eigenvalue
    below ``-1e-5`` times the largest) triggers a ``UserWarning`` that says how negative: the
    embedding from the positive top of the spectrum is still defined, but it is no longer PCA
    in a feature space. If one of the top ``n_components`` eigenvalues itself is not positive,
    ``fit`` raises a ``ValueError``.

    For a kernel given by name on dense data, ``fit`` computes one triangle of :math:`K`
    (:func:`~mlnotes.kernels.kernel_lower_triangle`: half the kernel evaluations) and never
    forms :math:`C K C`: the eigensolver applies it through products with :math:`K` and a
    rank-2 correction (:func:`~mlnotes.spectral.centred_top_eigenpairs`). The embedding is
    the same, to rounding.

    Sparse ``X`` (``scipy.sparse``) is accepted with a kernel given by name (and sparse new
    points): the kernel comes from sparse products (:func:`sparse_kernel_matrix`), equal to
    the dense data's; ``X_fit_`` stays sparse.

    float32 input gives float32 coordinates (``transform``, ``fit_transform``), as in
    scikit-learn; the kernel, its eigenproblem and the fitted attributes stay in float64.
    ``alpha`` must be > 0 (scikit-learn also allows 0, where :math:`K_Z` may be singular and
    the pre-image undefined).

    Examples
    --------
    >>> import numpy as np
    >>> from mlnotes import KernelPCA
    >>> X = np.random.default_rng(0).normal(size=(30, 3))
    >>> KernelPCA(n_components=2, kernel="rbf").fit_transform(X).shape
    (30, 2)
    """

    def __init__(self, n_components=2, *, kernel="linear", gamma=None, degree=3, coef0=1,
                 eigen_solver="auto", kernel_params=None, alpha=1.0,
                 fit_inverse_transform=False):
        self.n_components = n_components
        self.kernel = kernel
        self.gamma = gamma
        self.degree = degree
        self.coef0 = coef0
        self.eigen_solver = eigen_solver
        self.kernel_params = kernel_params
        self.alpha = alpha
        self.fit_inverse_transform = fit_inverse_transform

    _preserves_float32 = True  # as scikit-learn's; computed in float64 (base.Estimator)

    def _tags(self):
        precomputed = isinstance(self.kernel, str) and self.kernel == "precomputed"
        return {"input_tags.pairwise": precomputed,
                "input_tags.sparse": not precomputed and not callable(self.kernel)}

    def _kernel(self, X, Y=None, *, gamma=None):
        gamma = self.gamma if gamma is None else gamma
        if sp.issparse(X) or sp.issparse(Y):
            if callable(self.kernel):
                raise TypeError(
                    "A callable kernel is called on pairs of dense rows, but X is sparse; "
                    "convert it with X.toarray() (if it fits in memory), or choose a kernel "
                    "by name (those work on sparse rows)."
                )
            return sparse_kernel_matrix(X, Y, kernel=self.kernel, gamma=gamma,
                                        degree=self.degree, coef0=self.coef0)
        if callable(self.kernel):
            from scipy.spatial.distance import cdist

            # k(x_i, y_j) for each pair of rows, as scikit-learn calls a callable kernel
            K = cdist(X, X if Y is None else Y, metric=self.kernel, **(self.kernel_params or {}))
            return check_array(K, name="the callable kernel's matrix")
        return kernel_matrix(X, Y, kernel=self.kernel, gamma=gamma, degree=self.degree,
                             coef0=self.coef0)

    def fit(self, X: ArrayLike, y: object = None) -> Self:
        check_solver(self.eigen_solver, "eigen_solver")
        precomputed = isinstance(self.kernel, str) and self.kernel == "precomputed"
        if precomputed:
            if self.fit_inverse_transform:
                raise ValueError(
                    "fit_inverse_transform=True needs the kernel on the embedding, which a "
                    "precomputed kernel does not give; choose a kernel by name or a callable."
                )
            K = check_square_symmetric(X, name="the precomputed kernel matrix")
        elif callable(self.kernel) or self.kernel in KERNELS:
            X = check_array(X, min_samples=2, copy=True,  # kept as X_fit_
                            accept_sparse=not callable(self.kernel))
        else:
            raise ValueError(
                f"kernel must be one of {', '.join(map(repr, KERNELS + ('precomputed',)))} "
                f"or a callable k(x, y), got {self.kernel!r}."
            )
        self.gamma_ = None if precomputed or callable(self.kernel) else _gamma(X, self.gamma)
        if precomputed or callable(self.kernel) or sp.issparse(X):
            K = K if precomputed else self._kernel(X)
            col_means = K.mean(axis=0)
        else:  # one triangle, built in cache-sized blocks
            K, row_sums = kernel_lower_triangle(X, kernel=self.kernel, gamma=self.gamma,
                                                degree=self.degree, coef0=self.coef0)
            col_means = row_sums / len(K)
        # keep the training means: new points are centred with them
        self._train_means = (col_means, col_means.mean())
        if precomputed:  # centred explicitly: the PSD check below needs C K C
            Kc = center_kernel(K, copy=True)
            self.embedding_, self.eigenvalues_, self.eigenvectors_ = gram_embedding(
                Kc, self.n_components, solver=self.eigen_solver
            )
        else:  # C K C only through its products (our own K: it may be overwritten)
            self.embedding_, self.eigenvalues_, self.eigenvectors_ = gram_embedding(
                K, self.n_components, solver=self.eigen_solver, row_means=col_means
            )
        if precomputed:
            problem = self._negative_eigenvalue_problem(Kc)
            if problem:
                warnings.warn(
                    f"{problem} (threshold {NEGATIVE_EIGENVALUE_RTOL:g}). A kernel matrix must "
                    "be PSD; the embedding uses only the top of the spectrum. Check the kernel, "
                    "or make it PSD (clip the negative eigenvalues, or add a constant to the "
                    "diagonal).",
                    UserWarning,
                    stacklevel=2,
                )
        self.X_fit_ = K if precomputed else X
        for name in ("dual_coef_", "X_transformed_fit_"):
            self.__dict__.pop(name, None)
        if self.fit_inverse_transform:
            self._fit_preimage(X)
        return self

    def _negative_eigenvalue_problem(self, Kc):
        """A sentence on ``Kc``'s significantly negative eigenvalues, or None.

        Without ``eigen_solver="arpack"``, one Cholesky factorisation settles the usual case,
        a PSD kernel, exactly; the smallest eigenvalue is computed (by ``eigen_solver``) only
        to report it, or when ARPACK was asked for (no dense factorisation then).
        """
        top = float(self.eigenvalues_[0])
        tol = NEGATIVE_EIGENVALUE_RTOL * top
        if self.eigen_solver != "arpack" and top > 0 and is_nearly_psd(Kc, tol):
            return None
        lam_min = smallest_eigenvalue(Kc, solver=self.eigen_solver,
                                      rtol=NEGATIVE_EIGENVALUE_RTOL / 10)
        return describe_negative_eigenvalues(
            [lam_min, top], name="The precomputed kernel matrix (after centring)"
        )

    def _fit_preimage(self, X):
        """Kernel ridge regression of the data on the embedding: A = (K_Z + alpha I)^-1 X."""
        alpha = check_positive(self.alpha, "alpha")
        Z = self.embedding_
        K_Z = self._kernel(Z, gamma=self.gamma_)  # the same kernel (and gamma) on the embedding
        K_Z[np.diag_indices_from(K_Z)] += alpha
        X = X.toarray() if sp.issparse(X) else X  # the pre-images are dense rows
        self.dual_coef_ = scipy.linalg.solve(K_Z, X, assume_a="pos")
        self.X_transformed_fit_ = Z

    def inverse_transform(self, Z: ArrayLike) -> FloatArray:
        r"""The learned pre-image :math:`\hat x(z) = k(z, Z_{fit})\, A` of embedding points.

        Parameters
        ----------
        Z : ndarray of shape (M, n_components)

        Returns
        -------
        X : ndarray of shape (M, D)
        """
        if not self.fit_inverse_transform:
            raise NotFittedError(
                "inverse_transform needs fit_inverse_transform=True when the KernelPCA is "
                "created (the pre-image map is learned in fit); refit with it."
            )
        check_is_fitted(self, "dual_coef_")
        Z = check_n_features(Z, self.X_transformed_fit_.shape[1], name="Z", estimator=self)
        return self._kernel(Z, self.X_transformed_fit_, gamma=self.gamma_) @ self.dual_coef_

    def fit_transform(self, X: ArrayLike, y: object = None) -> FloatArray:
        return self.fit(X).embedding_

    def transform(self, X: ArrayLike) -> FloatArray:
        r"""Project new points: :math:`Z = \tilde K_{test} V_L \Lambda_L^{-1/2}`.

        Parameters
        ----------
        X : ndarray of shape (M, D), or (M, N) kernel values for ``"precomputed"``
        """
        check_is_fitted(self, "eigenvectors_")
        if isinstance(self.kernel, str) and self.kernel == "precomputed":
            K_test = check_n_features(X, len(self.X_fit_), name="the test kernel matrix",
                                      estimator=self)
        else:
            Y = check_n_features(X, self.X_fit_.shape[1], estimator=self,
                                 accept_sparse=not callable(self.kernel))
            K_test = self._kernel(Y, self.X_fit_)
        K_test = center_kernel_test(K_test, self._train_means)
        return K_test @ (self.eigenvectors_ / np.sqrt(self.eigenvalues_))
