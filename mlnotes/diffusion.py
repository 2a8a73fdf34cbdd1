r"""Diffusion maps (Coifman and Lafon, 2006).

Step 1: a Gaussian kernel :math:`k_{ij} = \exp(-\|x_i - x_j\|^2 / \varepsilon)` on all pairs,
or only on the edges of the kNN graph ("or" rule), self-loops :math:`k_{ii} = 1` included.

Step 2: the :math:`\alpha`-normalisation, then a Markov matrix. The degrees
:math:`q_i = \sum_j k_{ij}` estimate the sampling density at :math:`x_i` (up to a constant);
dividing it out,

.. math::
    K^{(\alpha)} = Q^{-\alpha} K Q^{-\alpha}, \qquad
    P = D_\alpha^{-1} K^{(\alpha)}, \quad D_\alpha = \operatorname{diag}(K^{(\alpha)} \mathbf 1).

:math:`P` is a random walk on the points (rows sum to one). As
:math:`\varepsilon \to 0` and :math:`N \to \infty`, :math:`(I - P)/\varepsilon` tends to a
multiple of :math:`\Delta f - 2(1 - \alpha) \nabla \log p \cdot \nabla f` for a density
:math:`p` on the manifold: :math:`\alpha = 0` is the normalised graph Laplacian
(:math:`P = I - L_{rw}` of the weights :math:`K`), whose limit is biased by the density;
:math:`\alpha = \tfrac12` the Fokker-Planck operator; :math:`\alpha = 1` the Laplace-Beltrami
operator itself, whatever the density: the geometry alone.

Step 3: :math:`P` is similar to the symmetric :math:`S = D_\alpha^{-1/2} K^{(\alpha)}
D_\alpha^{-1/2}`; with its top eigenpairs :math:`S u = \lambda u`, the right eigenvectors of
:math:`P` are :math:`\psi = D_\alpha^{-1/2} u`, normalised here so that
:math:`\sum_i \pi_i \psi(i)^2 = 1` with the stationary distribution
:math:`\pi_i = d_i / \sum_j d_j` (:math:`\psi_0 = \mathbf 1`, :math:`\lambda_0 = 1`, skipped).
The diffusion map at time :math:`t` is

.. math::
    \Psi_t(x_i) = \big(\lambda_1^t \psi_1(i), \dots, \lambda_L^t \psi_L(i)\big),

and the Euclidean distance between two images is the diffusion distance
:math:`D_t(x_i, x_j)^2 = \sum_m (P^t_{im} - P^t_{jm})^2 / \pi_m`, truncated to :math:`L` terms.

Sign convention: the largest-magnitude entry of each column positive (as elsewhere).

New points (Nyström): a new point :math:`y` gets kernel values to the training points by the
same rule, is normalised by the training degrees :math:`q_j^\alpha` (its own :math:`q(y)^\alpha`
cancels in the row sum), and :math:`\psi_l(y) = \lambda_l^{-1} \sum_j p(y, x_j) \psi_l(j)`,
the eigenvector equation :math:`P \psi = \lambda \psi` read at :math:`y`. A training point
given again gets back its own row, so ``transform`` reproduces the embedding exactly.
"""

import numbers
import warnings

import numpy as np
import scipy.sparse as sp

from ._typing import ArrayLike, FloatArray, Matrix, Self
from ._validation import (
    check_array,
    check_is_fitted,
    check_n_components,
    check_n_features,
    check_n_neighbors,
    check_positive,
)
from .base import Estimator
from .graphs import (
    BRUTE_BLOCK_ENTRIES,
    DisconnectedGraphWarning,
    knn_graph,
    nearest_neighbors,
    squared_distances,
)
from .spectral import check_solver, flip_signs, top_eigenpairs

BANDWIDTH_NEIGHBOR = 7  # epsilon=None: median squared distance to this neighbour (or the k-th)
TIE_RTOL = 1e-9  # new points: a distance within this fraction of a neighbour radius counts as in
MIN_EIGENVALUE = 1e-12  # transform divides by the eigenvalues used: they must exceed this
MIN_NEAREST_WEIGHT = 1e-6  # epsilon=None: every point's nearest neighbour weighs at least this
# lambda_1 within this of 1: the walk (numerically) cannot pass between some groups of points
DISCONNECTED_GAP = 1e-9


def default_epsilon(X: ArrayLike, n_neighbors: int | None = None) -> float:
    r"""The bandwidth used when ``epsilon`` is None.

    The median squared distance of a point to its ``n_neighbors``-th nearest neighbour (the
    7th when None, or the farthest there is), widened where needed so that every point keeps
    its nearest neighbour at a weight of at least :data:`MIN_NEAREST_WEIGHT`:
    :math:`\varepsilon \ge \max_i d^2(x_i, x_{i(1)}) / \ln(1/w_{\min})`. Without that floor,
    an outlying point (standardised data have them: a rare value of a nearly constant
    feature becomes a huge z-score) has kernel weight :math:`e^{-90}` or exactly 0 to every
    other point, the random walk cannot leave it, and the top eigenvectors only mark such
    points (eigenvalue 1); on data without outliers the floor is far below the median and
    changes nothing.
    """
    k = min(n_neighbors or BANDWIDTH_NEIGHBOR, len(X) - 1)
    ind = nearest_neighbors(X, k)
    kth, first = ind[:, -1], ind[:, 0]
    eps = float(np.median(np.sum((X[kth] - X) ** 2, axis=1)))
    floor = float(np.max(np.sum((X[first] - X) ** 2, axis=1))) / -np.log(MIN_NEAREST_WEIGHT)
    eps = max(eps, floor)
    return eps if eps > 0 else 1.0  # all neighbours coincide: any positive width will do


def diffusion_kernel(X: ArrayLike, epsilon: float, n_neighbors: int | None = None) -> Matrix:
    r"""Step 1: :math:`k_{ij} = \exp(-\|x_i - x_j\|^2 / \varepsilon)`, dense, or on the kNN
    graph's edges and the diagonal (sparse) when ``n_neighbors`` is given."""
    if n_neighbors is None:
        return np.exp(-squared_distances(X) / epsilon)
    G = knn_graph(X, n_neighbors)  # symmetric edge lengths ("or" rule)
    K = sp.csr_matrix(G, dtype=np.float64, copy=True)
    K.data = np.exp(-(K.data**2) / epsilon)
    return sp.csr_matrix(K + sp.eye(len(X)))  # self-loops k_ii = 1


def alpha_normalise(K: Matrix, alpha: float) -> tuple[Matrix, FloatArray]:
    r"""Step 2a: :math:`K^{(\alpha)} = Q^{-\alpha} K Q^{-\alpha}`, :math:`q = K \mathbf 1`.

    Returns
    -------
    K_alpha : ndarray or sparse matrix, like ``K``
    q : ndarray of shape (N,)
        The degrees of ``K`` (a kernel density estimate, up to a constant).
    """
    q = np.asarray(K.sum(axis=1)).ravel()
    scale = q ** -alpha
    if sp.issparse(K):
        return sp.csr_matrix(sp.diags(scale) @ K @ sp.diags(scale)), q
    return scale[:, None] * K * scale[None, :], q


def markov_matrix(K_alpha: Matrix) -> Matrix:
    r"""Step 2b: the random walk :math:`P = D_\alpha^{-1} K^{(\alpha)}` (rows sum to one)."""
    d = np.asarray(K_alpha.sum(axis=1)).ravel()
    if sp.issparse(K_alpha):
        return sp.csr_matrix(sp.diags(1 / d) @ K_alpha)
    return K_alpha / d[:, None]


def diffusion_eigenpairs(K_alpha: Matrix, n_components: int, *,
                         solver: str = "auto") -> tuple[FloatArray, FloatArray]:
    r"""Step 3: the top non-trivial eigenpairs of :math:`P = D_\alpha^{-1} K^{(\alpha)}`,
    through the symmetric :math:`S = D_\alpha^{-1/2} K^{(\alpha)} D_\alpha^{-1/2}`.

    Returns
    -------
    eigenvalues : ndarray of shape (n_components,)
        Decreasing, after :math:`\lambda_0 = 1`.
    psi : ndarray of shape (N, n_components)
        Right eigenvectors of :math:`P`, :math:`\sum_i \pi_i \psi(i)^2 = 1`.
    """
    d = np.asarray(K_alpha.sum(axis=1)).ravel()
    s = 1 / np.sqrt(d)
    S = (sp.diags(s) @ K_alpha @ sp.diags(s)) if sp.issparse(K_alpha) else \
        s[:, None] * K_alpha * s[None, :]
    lam, U = top_eigenpairs(S, n_components + 1, solver=solver)
    # psi = D^{-1/2} u; sum_i pi_i psi_i^2 = u^T u / sum(d) = 1 / sum(d): rescale by sqrt(sum d)
    psi = s[:, None] * U * np.sqrt(d.sum())
    return lam[1:], psi[:, 1:]


class DiffusionMap(Estimator):
    r"""Diffusion maps.

    Parameters
    ----------
    n_components : int, default=2
    epsilon : float or None, default=None
        Kernel width :math:`\varepsilon` in :math:`\exp(-\|x_i - x_j\|^2 / \varepsilon)`. None:
        the median squared distance to the ``n_neighbors``-th nearest neighbour (the 7th when
        ``n_neighbors`` is None), widened if needed so that every point's nearest neighbour
        keeps a weight of at least :data:`MIN_NEAREST_WEIGHT` (see :func:`default_epsilon`).
        A width that leaves points unreachable (eigenvalue 1 after the trivial one) gets a
        :class:`~mlnotes.DisconnectedGraphWarning` naming the width that connects them.
    n_neighbors : int or None, default=None
        Keep the kernel only on the kNN graph ("or" rule) and the diagonal (sparse); None
        keeps all pairs.
    alpha : float in [0, 1], default=1.0
        Density normalisation: 0 the graph Laplacian's random walk, 0.5 Fokker-Planck, 1 the
        Laplace-Beltrami operator (density removed).
    t : float >= 0, default=1
        Diffusion time: coordinates are scaled by :math:`\lambda^t`.
    eigen_solver : {"auto", "dense", "arpack"}, default="auto"
        "auto": ARPACK above 200 points for fewer than 10 components, unless it has not
        converged within about the dense solver's cost (clustered top eigenvalues), then
        the dense solver (:func:`mlnotes.spectral.top_eigenpairs`).

    Attributes
    ----------
    embedding_ : ndarray of shape (N, n_components)
        :math:`\lambda_l^t \psi_l`.
    eigenvalues_ : ndarray of shape (n_components,)
        :math:`\lambda_1 \ge \dots \ge \lambda_L` of :math:`P` (after :math:`\lambda_0 = 1`).
    eigenvectors_ : ndarray of shape (N, n_components)
        :math:`\psi_l`, :math:`\sum_i \pi_i \psi_l(i)^2 = 1`.
    epsilon_ : float
        The kernel width used.
    kernel_ : ndarray or scipy.sparse.csr_matrix of shape (N, N)
        :math:`K`.
    X_fit_ : ndarray of shape (N, p)

    Examples
    --------
    >>> from mlnotes import DiffusionMap
    >>> from mlnotes.datasets import make_s_curve
    >>> X, t = make_s_curve(300, random_state=0)
    >>> DiffusionMap(n_components=2, alpha=1.0).fit_transform(X).shape
    (300, 2)
    """

    def __init__(self, n_components=2, *, epsilon=None, n_neighbors=None, alpha=1.0, t=1,
                 eigen_solver="auto"):
        self.n_components = n_components
        self.epsilon = epsilon
        self.n_neighbors = n_neighbors
        self.alpha = alpha
        self.t = t
        self.eigen_solver = eigen_solver

    def _check_params(self, X):
        check_solver(self.eigen_solver, "eigen_solver")
        check_n_components(self.n_components, len(X) - 1,
                           what="n_samples - 1: the constant eigenvector is skipped")
        if self.n_neighbors is not None:
            check_n_neighbors(self.n_neighbors, len(X))
        if self.epsilon is not None:
            check_positive(self.epsilon, "epsilon")
        if (isinstance(self.alpha, bool) or not isinstance(self.alpha, numbers.Real)
                or not 0 <= self.alpha <= 1):
            raise ValueError(
                f"alpha must be a number in [0, 1] (0: graph Laplacian, 0.5: Fokker-Planck, "
                f"1: Laplace-Beltrami, density removed), got {self.alpha!r}."
            )
        check_positive(self.t, "t", allow_zero=True)

    def fit(self, X: ArrayLike, y: object = None) -> Self:
        X = check_array(X, min_samples=2, copy=True)  # kept as X_fit_
        self._check_params(X)
        eps = self.epsilon if self.epsilon is not None else default_epsilon(X, self.n_neighbors)
        K = diffusion_kernel(X, eps, self.n_neighbors)
        K_alpha, q = alpha_normalise(K, self.alpha)
        lam, psi = diffusion_eigenpairs(K_alpha, self.n_components, solver=self.eigen_solver)
        self.eigenvectors_ = flip_signs(psi)
        self.eigenvalues_ = lam
        self.embedding_ = self.eigenvectors_ * self._time_scale(lam)
        self.epsilon_, self.kernel_, self._q, self.X_fit_ = float(eps), K, q, X
        self._warn_if_disconnected(X)
        if self.n_neighbors is not None:  # squared distance of each point to its k-th neighbour
            kth = nearest_neighbors(X, self.n_neighbors)[:, -1]
            self._kth_d2 = np.einsum("ij,ij->i", X[kth] - X, X[kth] - X)
        return self

    def _warn_if_disconnected(self, X):
        r"""Warn when :math:`\lambda_1 = 1` (to :data:`DISCONNECTED_GAP`): a group of points
        the random walk cannot leave, which the first coordinates then only mark."""
        stuck = int(np.sum(self.eigenvalues_ > 1.0 - DISCONNECTED_GAP))
        if stuck == 0:
            return
        nearest = nearest_neighbors(X, 1)[:, 0]
        widest = float(np.max(np.sum((X[nearest] - X) ** 2, axis=1)))
        needed = widest / -np.log(MIN_NEAREST_WEIGHT)
        remedy = (f"increase epsilon to at least {needed:.3g} (every point's nearest neighbour "
                  f"then weighs >= {MIN_NEAREST_WEIGHT:g}; epsilon=None chooses so)"
                  if needed > self.epsilon_ else "increase epsilon")
        if self.n_neighbors is not None:
            remedy += " or n_neighbors (the kNN graph may be disconnected)"
        warnings.warn(
            f"The diffusion kernel (epsilon={self.epsilon_:.3g}) leaves the points "
            f"disconnected: {stuck} eigenvalue(s) after the trivial one equal 1 to within "
            f"{DISCONNECTED_GAP:g}, so the random walk cannot pass between some groups of "
            f"points, and those coordinates only tell the groups apart (often single "
            f"outlying points). {remedy[0].upper() + remedy[1:]}, or remove the outlying "
            f"points.",
            DisconnectedGraphWarning,
            stacklevel=3,
        )

    def _time_scale(self, lam):
        """:math:`\\lambda^t`, with the sign of a negative eigenvalue kept (real for any t)."""
        return np.sign(lam) * np.abs(lam) ** self.t

    def fit_transform(self, X: ArrayLike, y: object = None) -> FloatArray:
        return self.fit(X).embedding_

    def _new_point_kernel(self, Y):
        """Kernel values ``(M, N)`` of new points to the training points, by fit's rule."""
        X = self.X_fit_
        D2 = squared_distances(Y, X)
        Kn = np.exp(-D2 / self.epsilon_)
        if self.n_neighbors is None:
            return Kn
        nearest = np.argmin(D2, axis=1)
        twin = np.all(X[nearest] == Y, axis=1)
        D2o = D2.copy()
        D2o[np.flatnonzero(twin), nearest[twin]] = np.inf  # a point is not its own neighbour
        k = self.n_neighbors
        kth_of_y = np.partition(D2o, k - 1, axis=1)[:, k - 1:k]
        # y -> its k nearest, or x_j -> y when y is within x_j's k-th neighbour distance
        edge = (D2o <= kth_of_y) | (D2o <= self._kth_d2[None, :] * (1.0 + TIE_RTOL))
        edge[np.flatnonzero(twin), nearest[twin]] = True  # the self-loop k_ii = 1
        return np.where(edge, Kn, 0.0)

    def transform(self, X: ArrayLike) -> FloatArray:
        r"""Embed new points by the Nyström formula
        :math:`\lambda_l^t \psi_l(y) = \lambda_l^{t-1} \sum_j p(y, x_j) \psi_l(j)`.

        Parameters
        ----------
        X : ndarray of shape (M, p)

        Returns
        -------
        Z : ndarray of shape (M, n_components)
        """
        check_is_fitted(self, "embedding_")
        Y = check_n_features(X, self.X_fit_.shape[1], estimator=self)
        if np.any(np.abs(self.eigenvalues_) < MIN_EIGENVALUE):
            raise ValueError(
                f"The eigenvalues {self.eigenvalues_} include 0, where the Nyström factor "
                "1 / lambda is undefined; use fewer components or a larger epsilon."
            )
        Z = np.empty((len(Y), self.n_components))
        block = max(1, BRUTE_BLOCK_ENTRIES // len(self.X_fit_))
        for start in range(0, len(Y), block):
            Kn = self._new_point_kernel(Y[start:start + block]) * self._q ** -self.alpha
            row = Kn.sum(axis=1)
            if (row == 0).any():
                lonely = start + np.flatnonzero(row == 0)
                raise ValueError(
                    f"New point(s) {lonely[:5].tolist()} have kernel value 0 to every training "
                    f"point (epsilon={self.epsilon_:g} is too small for them), so the Nyström "
                    "formula is undefined; increase epsilon or drop them."
                )
            Z[start:start + block] = (Kn @ self.eigenvectors_) / row[:, None]  # P psi at y
        return Z * self._time_scale(self.eigenvalues_) / self.eigenvalues_
