r"""Classical (Torgerson) multidimensional scaling.

Given dissimilarities :math:`\delta_{ij}`, double centring their squares (step 2) gives the
Gram matrix :math:`K = -\tfrac12 C \Delta^{(2)} C`, equal to :math:`\tilde X \tilde X^\top`
when the :math:`\delta_{ij}` are Euclidean distances of points :math:`x_i`. The best rank-
:math:`L` fit of :math:`K` (Eckart–Young, over positive semi-definite matrices) is
:math:`Z Z^\top` with :math:`Z = V_L \Lambda_L^{1/2}`, the top eigenpairs (step 3). Negative
eigenvalues mean no Euclidean configuration reproduces the :math:`\delta_{ij}` exactly.

Metric MDS by SMACOF lives in :mod:`mlnotes.smacof`.
"""

import warnings

import numpy as np

from ._validation import (
    check_array,
    check_dissimilarity,
    check_n_components,
    check_top_eigenvalues_positive,
    describe_negative_eigenvalues,
)
from .graphs import squared_distances
from .kernels import double_center
from .spectral import flip_signs, spectrum_and_top_eigenvectors


def classical_mds(Delta, n_components):
    r"""Classical MDS of a dissimilarity matrix.

    :math:`K = -\tfrac12 C\,(\delta_{ij}^2)\,C`, then :math:`Z = V_L \Lambda_L^{1/2}` from its
    :math:`L` largest eigenpairs.

    Parameters
    ----------
    Delta : ndarray of shape (N, N)
        Symmetric, non-negative, zero diagonal.
    n_components : int

    Returns
    -------
    Z : ndarray of shape (N, n_components)
        Columns ordered by decreasing eigenvalue, eigenvector signs by
        :func:`~mlnotes.spectral.flip_signs` (scikit-learn's ``ClassicalMDS`` rule).
    eigenvalues : ndarray of shape (N,)
        *All* eigenvalues of :math:`K`, decreasing, negative ones included.

    Warns
    -----
    UserWarning
        If :math:`K` has significantly negative eigenvalues (the dissimilarities are not
        Euclidean); the message says how negative, relative to the largest.
    """
    Delta = check_dissimilarity(Delta)
    return _classical_mds(Delta**2, n_components)


def _classical_mds(D2, n_components):
    """Classical MDS from squared dissimilarities (already validated); ``D2`` is overwritten."""
    n_components = check_n_components(n_components, len(D2))
    K = double_center(D2, copy=False)
    lam, V = spectrum_and_top_eigenvectors(K, n_components)
    check_top_eigenvalues_positive(lam, n_components, name="the double-centred matrix K")
    problem = describe_negative_eigenvalues(lam, name="The Gram matrix K = -1/2 C D2 C")
    if problem:
        warnings.warn(
            f"{problem}: the dissimilarities are not Euclidean distances, so the embedding "
            "cannot reproduce them exactly (only the positive part of the spectrum is used). "
            "Inspect eigenvalues_, or use metric MDS (MetricMDS) for non-Euclidean input.",
            UserWarning,
            stacklevel=3,
        )
    Z = flip_signs(V) * np.sqrt(lam[:n_components])
    return Z, lam


def strain(K, Z):
    r"""Strain :math:`\|K - Z Z^\top\|_F^2 = \sum_{ij} (k_{ij} - z_i^\top z_j)^2`.

    Classical MDS minimises it; at the optimum it equals the sum of the squared eigenvalues of
    :math:`K` left out of the embedding (the negative ones included).
    """
    K = check_array(K, name="K")
    Z = check_array(Z, name="Z")
    if K.shape != (len(Z), len(Z)):
        raise ValueError(f"K is {K.shape} but Z has {len(Z)} rows; K must be N x N for N points.")
    R = K - Z @ Z.T
    return float(np.einsum("ij,ij->", R, R))


class ClassicalMDS:
    r"""Classical multidimensional scaling (Torgerson scaling, principal coordinates).

    For Euclidean input the result equals the PCA scores of the data (up to the sign of each
    column); that is the duality between :math:`\tilde X^\top \tilde X` and
    :math:`\tilde X \tilde X^\top`.

    Parameters
    ----------
    n_components : int, default=2
    dissimilarity : {"euclidean", "precomputed"}, default="euclidean"
        ``"euclidean"``: ``fit`` takes data ``X`` (``N x D``); ``"precomputed"``: it takes the
        ``N x N`` dissimilarity matrix.

    Attributes
    ----------
    embedding_ : ndarray of shape (N, n_components)
    eigenvalues_ : ndarray of shape (N,)
        All eigenvalues of the double-centred matrix, decreasing, negative ones included
        (scikit-learn keeps only the top ``n_components``).
    dissimilarity_matrix_ : ndarray of shape (N, N)

    Examples
    --------
    >>> import numpy as np
    >>> from mlnotes import ClassicalMDS
    >>> X = np.array([[0.0, 0.0], [3.0, 0.0], [0.0, 4.0]])
    >>> Z = ClassicalMDS(n_components=2).fit_transform(X)
    >>> bool(np.allclose(np.linalg.norm(Z[0] - Z[1]), 3.0))
    True
    """

    def __init__(self, n_components=2, *, dissimilarity="euclidean"):
        self.n_components = n_components
        self.dissimilarity = dissimilarity

    def fit(self, X, y=None):
        if self.dissimilarity == "euclidean":
            D2 = squared_distances(check_array(X, min_samples=2))
            self.dissimilarity_matrix_ = np.sqrt(D2)
        elif self.dissimilarity == "precomputed":
            self.dissimilarity_matrix_ = check_dissimilarity(X)
            D2 = self.dissimilarity_matrix_**2
        else:
            raise ValueError(
                f"dissimilarity must be 'euclidean' or 'precomputed', got {self.dissimilarity!r}."
            )
        self.embedding_, self.eigenvalues_ = _classical_mds(D2, self.n_components)
        return self

    def fit_transform(self, X, y=None):
        return self.fit(X).embedding_
