r"""Principal component analysis as one eigenproblem.

With centred data :math:`\tilde X = C X`, the directions of largest variance are the top
eigenvectors of the sample covariance :math:`S = \tilde X^\top \tilde X / (N - 1)` (step 2),
found by :func:`mlnotes.spectral.top_eigenpairs` (step 3). When there are more features than
samples the same subspace comes cheaper from the ``N x N`` Gram matrix
:math:`\tilde X \tilde X^\top` (the dual problem: classical MDS of the data), computed as the
thin SVD :math:`\tilde X = U \Sigma V^\top`, whose right singular vectors stay orthonormal
past the rank of :math:`\tilde X`.
"""

import numbers

import numpy as np
import scipy.sparse as sp
from scipy.sparse.linalg import LinearOperator, eigsh
from scipy.special import gammaln

from ._typing import ArrayLike, FloatArray, Self
from ._validation import check_array, check_is_fitted, check_n_components, check_n_features
from .base import Estimator
from .spectral import flip_signs, top_eigenpairs

# sparse X: the covariance is formed (D x D, dense) up to this many features; beyond, its top
# eigenpairs come from ARPACK on the implicitly centred operator
SPARSE_DENSE_COVARIANCE_MAX_FEATURES = 2000


def _sparse_principal_components(X, n_components):
    r"""The top principal axes of a sparse ``X`` without centring it (that would fill it in).

    :math:`S = (X^\top X - N \bar x \bar x^\top) / (N - 1)`: formed densely for up to
    :data:`SPARSE_DENSE_COVARIANCE_MAX_FEATURES` features, else applied as a
    ``LinearOperator``, :math:`S v = (X^\top (X v) - N \bar x (\bar x^\top v)) / (N - 1)`,
    whose top eigenpairs ARPACK finds (scikit-learn's PCA on sparse data centres implicitly
    too; an uncentred SVD, TruncatedSVD, would not be PCA).
    """
    N, D = X.shape
    mean = np.asarray(X.mean(axis=0)).ravel()
    if D <= SPARSE_DENSE_COVARIANCE_MAX_FEATURES or n_components >= D - 1:
        S = (np.asarray((X.T @ X).todense()) - N * np.outer(mean, mean)) / (N - 1)
        variance, V = top_eigenpairs(S, n_components, solver="dense")
    else:
        def matvec(v):
            v = np.asarray(v).reshape(D, -1)
            return (X.T @ (X @ v) - N * np.outer(mean, mean @ v)) / (N - 1)

        S = LinearOperator((D, D), matvec=matvec, matmat=matvec, dtype=np.float64)
        v0 = np.full(D, 1.0 / np.sqrt(D))  # a fixed start vector: reproducible axes
        variance, V = eigsh(S, k=n_components, which="LA", v0=v0)
        order = np.argsort(variance)[::-1]
        variance, V = variance[order], V[:, order]
    return flip_signs(V).T, np.maximum(variance, 0.0), mean


def _total_variance(X, mean):
    r"""Sum of the per-feature variances, :math:`\operatorname{tr} S`, dense or sparse."""
    N = X.shape[0]
    if sp.issparse(X):
        return float(X.multiply(X).sum() - N * mean @ mean) / (N - 1)
    return ((X - mean) ** 2).sum() / (N - 1)


def _centred_product(X, mean, components):
    r""":math:`(X - \bar x) V_L` (for a sparse X without centring it)."""
    if sp.issparse(X):
        return np.asarray(X @ components.T) - mean @ components.T
    return (X - mean) @ components.T


def principal_components(X: ArrayLike, n_components: int) -> tuple[FloatArray, FloatArray, FloatArray]:
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
        # dual: Xc = U Sigma V^T, so Xc Xc^T = U Sigma^2 U^T and the axes are the right
        # singular vectors v = Xc^T u / sigma. Dividing by sigma fails past the rank (sigma
        # = 0): the thin SVD gives those axes too, orthonormal, at the Gram matrix's cost
        _, sigma, Vt = np.linalg.svd(Xc, full_matrices=False)
        V = Vt[:n_components].T
        variance = sigma[:n_components] ** 2 / (N - 1)
    return flip_signs(V).T, np.maximum(variance, 0.0), mean


def mle_log_evidence(spectrum: ArrayLike, rank: int, n_samples: int) -> float:
    r"""Minka's (2000) Laplace approximation to :math:`\log p(X \mid k)`, the evidence for
    probabilistic PCA with ``rank`` :math:`= k` components.

    With the :math:`d` covariance eigenvalues :math:`\lambda_1 \ge \dots \ge \lambda_d`
    (``spectrum``), :math:`N` = ``n_samples``, the noise variance
    :math:`\hat\sigma^2 = \frac{1}{d-k} \sum_{j>k} \lambda_j`, :math:`m = dk - k(k+1)/2`
    (the dimension of the Stiefel manifold of :math:`k` orthonormal axes) and
    :math:`\hat\lambda_j = \lambda_j` for :math:`j \le k`, :math:`\hat\sigma^2` beyond,

    .. math::
        \log p(X \mid k) \approx \log p(U) - \frac N2 \sum_{j=1}^{k} \log \lambda_j
        - \frac{N(d-k)}{2} \log \hat\sigma^2 + \frac{m+k}{2} \log 2\pi
        - \frac12 \log |A_Z| - \frac k2 \log N,

    where :math:`\log p(U) = -k \log 2 + \sum_{i=1}^{k} \big(\log\Gamma(\tfrac{d-i+1}{2})
    - \tfrac{d-i+1}{2} \log \pi\big)` is the uniform prior on the axes and
    :math:`\log|A_Z| = \sum_{i=1}^{k} \sum_{j=i+1}^{d} \log\big(N (\hat\lambda_j^{-1} -
    \hat\lambda_i^{-1}) (\lambda_i - \lambda_j)\big)` the curvature of the likelihood in
    the axes. The eigenvalues' common scale (dividing by :math:`N` or :math:`N - 1`) shifts
    every :math:`k` equally and does not change the maximiser.

    A direction that carries no variance (:math:`\lambda_k \le \epsilon \lambda_1`, machine
    :math:`\epsilon`) cannot be a principal axis: its evidence is :math:`-\infty`.
    :math:`\hat\sigma^2` is floored at :math:`\epsilon \lambda_1` (exactly rank-:math:`k`
    data have :math:`\hat\sigma^2 = 0`).

    Parameters
    ----------
    spectrum : array-like of shape (d,)
        All eigenvalues of the sample covariance, decreasing.
    rank : int
        :math:`k`, from 1 to :math:`d - 1` (:math:`\hat\sigma^2` needs a discarded one).
    n_samples : int

    Returns
    -------
    float
    """
    lam = np.asarray(spectrum, dtype=float)
    d, k, N = len(lam), rank, n_samples
    if isinstance(k, bool) or not isinstance(k, numbers.Integral) or not 1 <= k <= d - 1:
        raise ValueError(
            f"rank={k!r} should be in [1, n_features - 1] = [1, {d - 1}]: the noise variance "
            "is the mean of the discarded eigenvalues, so at least one must be discarded."
        )
    floor = np.finfo(float).eps * max(float(lam[0]), np.finfo(float).tiny)
    if lam[k - 1] <= floor:
        return -np.inf
    sigma2 = max(float(lam[k:].mean()), floor)
    i = np.arange(1, k + 1)
    log_prior = -k * np.log(2.0) + np.sum(gammaln((d - i + 1) / 2) - (d - i + 1) / 2 * np.log(np.pi))
    log_likelihood = -N / 2 * np.sum(np.log(lam[:k])) - N * (d - k) / 2 * np.log(sigma2)
    m = d * k - k * (k + 1) / 2
    hat = np.r_[lam[:k], np.full(d - k, sigma2)]
    rows, cols = np.triu_indices(d, 1)
    first = rows < k  # pairs i < j with i among the k kept
    rows, cols = rows[first], cols[first]
    log_det = np.sum(np.log(N * (1 / hat[cols] - 1 / hat[rows]) * (lam[rows] - lam[cols])))
    return float(log_prior + log_likelihood + (m + k) / 2 * np.log(2 * np.pi) - log_det / 2
                 - k / 2 * np.log(N))


def mle_dimension(spectrum: ArrayLike, n_samples: int) -> int:
    r"""The :math:`k` in :math:`1, \dots, d - 1` of largest :func:`mle_log_evidence`: Minka's
    choice of the number of principal components (``PCA(n_components="mle")``)."""
    lam = np.asarray(spectrum, dtype=float)
    evidence = [mle_log_evidence(lam, k, n_samples) for k in range(1, len(lam))]
    return int(np.argmax(evidence)) + 1


class PCA(Estimator):
    r"""Principal component analysis.

    Projects the centred data onto the :math:`L` directions of largest variance:
    :math:`Z = (X - \bar x)\, V_L`, where :math:`V_L` holds the top :math:`L` eigenvectors of
    the covariance :math:`S`. Reconstruction :math:`\hat X = Z V_L^\top + \bar x` is the best
    rank-:math:`L` approximation in squared error; the error is the sum of the discarded
    eigenvalues times :math:`N - 1` (Eckart–Young).

    Parameters
    ----------
    n_components : int, float in (0, 1), "mle" or None, default=2
        The number of components :math:`L`; a float :math:`f`: the fewest components whose
        explained variance ratios sum to more than :math:`f` (scikit-learn's rule:
        ``n_components=0.95`` keeps 95% of the variance); ``"mle"``: the :math:`L` of largest
        evidence under probabilistic PCA, Minka's (2000) Laplace approximation
        (:func:`mle_log_evidence`; needs :math:`N \ge D` and :math:`D \ge 2`); None: all
        :math:`\min(N, D)` components (:math:`N - 1` when :math:`D \ge N`: the centred data
        have rank :math:`N - 1`, and scikit-learn's :math:`N`-th component is an arbitrary
        direction of zero variance). The number kept is ``n_components_``.
    whiten : bool, default=False
        Divide each coordinate by its standard deviation, :math:`z_l / \sqrt{\lambda_l}`, so
        that the scores are uncorrelated with unit variance (``inverse_transform`` multiplies
        back). The axes ``components_`` stay unit vectors, as in scikit-learn.

    Attributes
    ----------
    n_components_ : int
    components_ : ndarray of shape (n_components, D)
        Principal axes; the largest-magnitude entry of each is positive (scikit-learn's rule).
    explained_variance_ : ndarray of shape (n_components,)
    explained_variance_ratio_ : ndarray of shape (n_components,)
    singular_values_ : ndarray of shape (n_components,)
        Singular values of the centred data, :math:`\sigma_l = \sqrt{(N - 1) \lambda_l}`.
    noise_variance_ : float
        The mean of the discarded eigenvalues (of the :math:`\min(N, D)`), 0 when none is
        discarded: the isotropic noise variance of probabilistic PCA's maximum-likelihood fit
        (Tipping and Bishop), as scikit-learn reports it.
    mean_ : ndarray of shape (D,)
    embedding_ : ndarray of shape (N, n_components)

    Notes
    -----
    Sparse ``X`` (``scipy.sparse``) is accepted and centred implicitly: the covariance is
    :math:`(X^\top X - N \bar x \bar x^\top)/(N-1)`, never :math:`X - \bar x` (which is
    dense); see :func:`_sparse_principal_components`. float32 input gives float32 coordinates
    (``transform``, ``fit_transform``), as in scikit-learn; the eigenproblem and the fitted
    attributes stay in float64.

    Examples
    --------
    >>> import numpy as np
    >>> from mlnotes import PCA
    >>> X = np.array([[0.0, 0.0], [2.0, 2.0], [4.0, 4.0]])
    >>> PCA(n_components=1).fit(X).explained_variance_
    array([8.])
    """

    def __init__(self, n_components=2, *, whiten=False):
        self.n_components = n_components
        self.whiten = whiten

    _preserves_float32 = True

    def _tags(self):
        return {"input_tags.sparse": True}

    def _check_n_components(self):
        """``(how many to compute, variance fraction or None)`` from ``n_components``."""
        n = self.n_components
        if n is None or (isinstance(n, str) and n == "mle"):
            return None, None
        if isinstance(n, str):
            raise ValueError(
                f"n_components={n!r} is not a rule mlnotes knows; the one string accepted is "
                "'mle' (Minka's choice), else pass an integer, a fraction in (0, 1) or None."
            )
        if isinstance(n, bool) or not isinstance(n, numbers.Real):
            raise TypeError(
                f"n_components must be a positive integer, a variance fraction in (0, 1), "
                f"'mle' or None, got {n!r}."
            )
        if isinstance(n, numbers.Integral):
            return n, None
        if not 0 < n < 1:
            raise ValueError(
                f"n_components={n!r} is a float, so it must be a fraction of the variance in "
                "(0, 1) (e.g. 0.95); pass an integer for a number of components."
            )
        return None, float(n)

    def fit(self, X: ArrayLike, y: object = None) -> Self:
        X = check_array(X, min_samples=2, accept_sparse=True)
        n, fraction = self._check_n_components()
        mle = isinstance(self.n_components, str)
        if mle:
            self._check_mle(X.shape)
        full = n is None
        if full:
            # all components: min(N, D) as scikit-learn, except that with more features than
            # samples the N-th has zero variance and no defined direction (rank N - 1)
            N, D = X.shape
            n = D if D < N else N - 1
        solve = _sparse_principal_components if sp.issparse(X) else principal_components
        if sp.issparse(X):
            n = check_n_components(n, min(X.shape), what="min(n_samples, n_features)")
        self.components_, self.explained_variance_, self.mean_ = solve(X, n)
        total = _total_variance(X, self.mean_)
        self.explained_variance_ratio_ = self.explained_variance_ / total if total > 0 else (
            np.zeros_like(self.explained_variance_)
        )
        keep = None
        if fraction is not None:
            # the fewest components whose ratios sum to more than the fraction
            cumulative = np.cumsum(self.explained_variance_ratio_)
            keep = min(int(np.searchsorted(cumulative, fraction, side="right")) + 1, n)
        elif mle:  # all D eigenvalues were computed (N >= D)
            keep = mle_dimension(self.explained_variance_, X.shape[0])
        if keep is not None:
            self.components_ = self.components_[:keep]
            self.explained_variance_ = self.explained_variance_[:keep]
            self.explained_variance_ratio_ = self.explained_variance_ratio_[:keep]
        self.n_components_ = len(self.components_)
        self.n_features_in_ = X.shape[1]
        N = X.shape[0]
        self.singular_values_ = np.sqrt(self.explained_variance_ * (N - 1))
        # the mean of the discarded eigenvalues, of min(N, D) in all (their sum: the total
        # variance minus the kept)
        rest = min(X.shape) - self.n_components_
        self.noise_variance_ = (max(total - float(self.explained_variance_.sum()), 0.0) / rest
                                if rest > 0 else 0.0)
        self.embedding_ = self._scale(_centred_product(X, self.mean_, self.components_))
        return self

    @staticmethod
    def _check_mle(shape):
        N, D = shape
        if N < D:
            raise ValueError(
                f"n_components='mle' needs at least as many samples as features, got "
                f"N={N} < D={D}: the covariance then has D - N + 1 zero eigenvalues, which "
                "no model with isotropic noise explains. Pass an integer or a variance fraction "
                "(e.g. n_components=0.95) instead."
            )
        if D < 2:
            raise ValueError(
                "n_components='mle' chooses between 1 and D - 1 components, so it needs at "
                f"least 2 features, got {D}; with one feature, PCA has one component."
            )

    def _scale(self, Z):
        r"""Whitened scores :math:`z_l / \sqrt{\lambda_l}` (unit variance) if ``whiten``.

        A zero-variance axis (rank-deficient data) has scores that are round-off; its scale is
        floored at machine epsilon, as scikit-learn's, so they stay finite."""
        return Z / self._whitening_scale() if self.whiten else Z

    def _whitening_scale(self):
        return np.maximum(np.sqrt(self.explained_variance_), np.finfo(float).eps)

    def fit_transform(self, X: ArrayLike, y: object = None) -> FloatArray:
        return self.fit(X).embedding_

    def transform(self, X: ArrayLike) -> FloatArray:
        """Coordinates :math:`(X - \\bar x) V_L` of (new) points."""
        check_is_fitted(self, "components_")
        X = check_n_features(X, self.n_features_in_, estimator=self, accept_sparse=True)
        return self._scale(_centred_product(X, self.mean_, self.components_))

    def inverse_transform(self, Z: ArrayLike) -> FloatArray:
        """Back to data space: :math:`Z V_L^\\top + \\bar x`."""
        check_is_fitted(self, "components_")
        Z = check_array(Z, name="Z")
        if Z.shape[1] != len(self.components_):
            raise ValueError(
                f"Z has {Z.shape[1]} columns but the model has {len(self.components_)} components."
            )
        if self.whiten:
            Z = Z * self._whitening_scale()
        return Z @ self.components_ + self.mean_

