r"""Laplacian eigenmaps (Belkin and Niyogi, 2003).

Step 1: a neighbourhood graph (kNN or epsilon). Step 2: weights on its edges, binary or heat
kernel :math:`w_{ij} = \exp(-\|x_i - x_j\|^2 / t)`, the degrees :math:`D = \operatorname{diag}
(\sum_j w_{ij})` and the Laplacian :math:`L = D - W`, with
:math:`z^\top L z = \tfrac12 \sum_{ij} w_{ij} (z_i - z_j)^2 \ge 0`. Step 3:
:math:`\min \operatorname{tr}(Z^\top L Z)` subject to :math:`Z^\top D Z = I`, the generalised
problem :math:`L v = \lambda D v`, skipping the constant :math:`v = \mathbf 1` (eigenvalue 0).
It is solved through :math:`L_{sym} = D^{-1/2} L D^{-1/2}` (eigenvectors :math:`u = D^{1/2} v`),
as scikit-learn's ``spectral_embedding`` does.

Scaling: :math:`V^\top D V = I` (scikit-learn's ``SpectralEmbedding`` returns exactly these
:math:`D^{-1/2} u`).
"""

import numpy as np
import scipy.sparse as sp

from ._validation import check_array, check_n_components, check_positive
from .graphs import SPECTRAL_CONSEQUENCE, neighbourhood_graph
from .spectral import TRIVIAL_SKIPPED, bottom_eigenpairs, check_solver, flip_signs

LAPLACIANS = ("unnormalized", "sym", "rw")


def heat_kernel_weights(G, t=None):
    r"""Edge weights from edge lengths: :math:`w_{ij} = \exp(-d_{ij}^2 / t)`, or 1 on every
    edge when ``t`` is None (binary weights). Same sparsity pattern as ``G``."""
    if not sp.issparse(G):
        raise TypeError("G must be a scipy.sparse graph of edge lengths (e.g. from knn_graph).")
    W = sp.csr_matrix(G, dtype=np.float64, copy=True)
    if t is None:
        W.data[:] = 1.0
    else:
        check_positive(t, "t")
        W.data = np.exp(-(W.data**2) / t)
    return W


def laplacian(W, *, kind="unnormalized"):
    r"""Graph Laplacian of a symmetric weight matrix.

    ``"unnormalized"``: :math:`L = D - W`; ``"sym"``: :math:`L_{sym} = I - D^{-1/2} W D^{-1/2}`;
    ``"rw"``: :math:`L_{rw} = I - D^{-1} W` (not symmetric). :math:`L \mathbf 1 = 0`,
    :math:`L_{sym} D^{1/2} \mathbf 1 = 0`, :math:`L_{rw} \mathbf 1 = 0`.

    Returns
    -------
    L : scipy.sparse.csr_matrix of shape (N, N)
    """
    if kind not in LAPLACIANS:
        raise ValueError(f"kind must be one of {', '.join(map(repr, LAPLACIANS))}, got {kind!r}.")
    W = sp.csr_matrix(W, dtype=np.float64)
    if W.shape[0] != W.shape[1]:
        raise ValueError(f"W must be square, got shape {W.shape}.")
    check_array(W.data, name="W", ensure_2d=False)
    if W.nnz and W.data.min() < 0:
        raise ValueError("W has negative weights; graph weights must be >= 0.")
    deg = np.asarray(W.sum(axis=1)).ravel()
    if kind == "unnormalized":
        return sp.csr_matrix(sp.diags(deg) - W)
    if (deg == 0).any():
        raise ValueError(
            f"Node(s) {np.flatnonzero(deg == 0)[:5].tolist()} have degree 0 (no edges), so the "
            "normalised Laplacian is undefined; connect them (larger n_neighbors or radius)."
        )
    scale = 1.0 / np.sqrt(deg) if kind == "sym" else 1.0 / deg
    left = sp.diags(scale)
    right = left if kind == "sym" else sp.eye(len(deg))
    return sp.csr_matrix(sp.eye(len(deg)) - left @ W @ right)


class LaplacianEigenmaps:
    r"""Laplacian eigenmaps.

    Parameters
    ----------
    n_components : int, default=2
    n_neighbors : int or None, default=10
        :math:`k` of the kNN graph ("or" symmetrisation).
    radius : float or None, default=None
        Use the epsilon graph instead; set ``n_neighbors=None``.
    t : float or None, default=None
        Heat-kernel width; None gives binary weights.
    eigen_solver : {"auto", "dense", "arpack"}, default="auto"

    Attributes
    ----------
    embedding_ : ndarray of shape (N, n_components)
        Generalised eigenvectors with :math:`Z^\top D Z = I`, largest-magnitude entry of each
        column positive (scikit-learn's rule), the trivial one skipped.
    eigenvalues_ : ndarray of shape (n_components,)
        The non-trivial eigenvalues :math:`\lambda` of :math:`L v = \lambda D v`, increasing.
    affinity_matrix_ : scipy.sparse.csr_matrix
        The weights :math:`W`.

    Examples
    --------
    >>> from mlnotes import LaplacianEigenmaps
    >>> from mlnotes.datasets import make_s_curve
    >>> X, t = make_s_curve(300, random_state=0)
    >>> LaplacianEigenmaps(n_components=2, n_neighbors=10).fit_transform(X).shape
    (300, 2)
    """

    def __init__(self, n_components=2, *, n_neighbors=10, radius=None, t=None,
                 eigen_solver="auto"):
        self.n_components = n_components
        self.n_neighbors = n_neighbors
        self.radius = radius
        self.t = t
        self.eigen_solver = eigen_solver

    def fit(self, X, y=None):
        X = check_array(X, min_samples=2)
        check_solver(self.eigen_solver, "eigen_solver")
        check_n_components(self.n_components, len(X) - 1, what=TRIVIAL_SKIPPED)
        G = neighbourhood_graph(X, n_neighbors=self.n_neighbors, radius=self.radius,
                                consequence=SPECTRAL_CONSEQUENCE)
        self.affinity_matrix_ = heat_kernel_weights(G, self.t)
        L = laplacian(self.affinity_matrix_)
        D = sp.diags(L.diagonal())  # degrees: L = D - W and W has no self-loops
        self.eigenvalues_, V = bottom_eigenpairs(L, self.n_components, B=D, skip=1,
                                                 solver=self.eigen_solver)
        self.embedding_ = flip_signs(V)
        return self

    def fit_transform(self, X, y=None):
        return self.fit(X).embedding_
