r"""Classical (Torgerson) multidimensional scaling.

Given dissimilarities :math:`\delta_{ij}`, double centring their squares (step 2) gives the
Gram matrix :math:`K = -\tfrac12 C \Delta^{(2)} C`, equal to :math:`\tilde X \tilde X^\top`
when the :math:`\delta_{ij}` are Euclidean distances of points :math:`x_i`. The best rank-
:math:`L` fit of :math:`K` (Eckart–Young, over positive semi-definite matrices) is
:math:`Z Z^\top` with :math:`Z = V_L \Lambda_L^{1/2}`, the top eigenpairs (step 3). Negative
eigenvalues mean no Euclidean configuration reproduces the :math:`\delta_{ij}` exactly.

Landmark MDS (de Silva and Tenenbaum 2003) avoids the :math:`N \times N` matrix: classical
MDS of :math:`\ell` landmarks only, then every point is placed from its squared distances
:math:`\delta_a` to the landmarks by distance-based triangulation,

.. math::
    z_a = -\tfrac12\, \Lambda_d^{-1/2} V_d^\top (\delta_a - \bar\delta),

with :math:`V_d, \Lambda_d` the top eigenpairs of the landmarks' double-centred matrix and
:math:`\bar\delta` the mean of the columns of the landmarks' squared-distance matrix. For a
landmark, :math:`-\tfrac12(\delta_a - \bar\delta)^\top v = (K v)_a = \lambda v_a` (as
:math:`v \perp \mathbf 1`), so the formula gives back its classical MDS coordinates
:math:`\sqrt\lambda\, v_a`; for Euclidean data it is the projection of the point on the
landmarks' principal axes, and with every point a landmark it is classical MDS itself. The
same formula places new points (``transform``). Cost: :math:`O(N \ell)` distances and one
:math:`\ell \times \ell` eigenproblem instead of :math:`N^2` and :math:`N \times N`.

Metric MDS by SMACOF lives in :mod:`mlnotes.smacof`.
"""

import warnings
from collections.abc import Callable

import numpy as np

from ._typing import ArrayLike, FloatArray, IntArray, Seed, Self
from ._validation import (
    check_array,
    check_dissimilarity,
    check_is_fitted,
    check_n_components,
    check_n_features,
    check_random_state,
    check_top_eigenvalues_positive,
    describe_negative_eigenvalues,
)
from .base import Estimator
from .graphs import squared_distances
from .kernels import double_center
from .spectral import flip_signs, spectrum_and_top_eigenvectors


def classical_mds(Delta: ArrayLike, n_components: int) -> tuple[FloatArray, FloatArray]:
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


# --- landmarks ------------------------------------------------------------------------------------
LANDMARK_METHODS = ("random", "maxmin")


def check_landmarks(n_landmarks: int | None, landmarks: str, n_samples: int, n_components: int) -> int:
    """Check ``n_landmarks`` (``d < n_landmarks <= N``) and the selection method."""
    n_landmarks = check_n_components(n_landmarks, n_samples, what="n_samples", name="n_landmarks")
    if n_landmarks <= n_components:
        raise ValueError(
            f"n_landmarks={n_landmarks} must exceed n_components={n_components}: classical MDS "
            f"of l landmarks gives at most l - 1 coordinates (centring removes one). Use many "
            f"more landmarks than components (e.g. n_landmarks={max(10 * n_components, 50)})."
        )
    if landmarks not in LANDMARK_METHODS:
        raise ValueError(
            f"landmarks must be one of {', '.join(map(repr, LANDMARK_METHODS))}, got "
            f"{landmarks!r}."
        )
    return n_landmarks


def choose_landmarks(n_samples: int, n_landmarks: int, distances_from: Callable[[IntArray], FloatArray], *,
                     method: str = "random", random_state: Seed = None) -> tuple[IntArray, FloatArray]:
    r"""Pick landmarks and return them with their dissimilarities to every point.

    ``"random"``: ``n_landmarks`` distinct points uniformly at random. ``"maxmin"`` (de Silva
    and Tenenbaum): a random first landmark, then repeatedly the point farthest from the
    landmarks chosen so far, :math:`rg\max_a \min_{l} \delta_{la}`, which spreads the
    landmarks over the data.

    Parameters
    ----------
    n_samples, n_landmarks : int
    distances_from : callable
        ``distances_from(indices)`` returns the ``(len(indices), N)`` dissimilarities (or any
        increasing function of them, e.g. squares) from those points to all points.
    method : {"random", "maxmin"}
    random_state : int, Generator or None

    Returns
    -------
    landmarks : ndarray of shape (n_landmarks,)
    rows : ndarray of shape (n_landmarks, N)
        ``distances_from(landmarks)``.
    """
    rng = check_random_state(random_state)
    if method == "random":
        landmarks = rng.choice(n_samples, n_landmarks, replace=False)
        return landmarks, distances_from(landmarks)
    landmarks = np.empty(n_landmarks, dtype=np.intp)
    rows = np.empty((n_landmarks, n_samples))
    landmarks[0] = rng.integers(n_samples)
    rows[0] = distances_from(landmarks[:1])[0]
    nearest = rows[0].copy()  # dissimilarity of every point to its nearest landmark
    for l in range(1, n_landmarks):
        landmarks[l] = np.argmax(nearest)
        if nearest[landmarks[l]] <= 0:
            raise ValueError(
                f"Only {l} distinct points (up to zero dissimilarity) were found, fewer than "
                f"n_landmarks={n_landmarks}; use fewer landmarks or remove duplicate points."
            )
        rows[l] = distances_from(landmarks[l:l + 1])[0]
        np.minimum(nearest, rows[l], out=nearest)
    return landmarks, rows


def landmark_triangulation(D2_landmarks: ArrayLike, n_components: int, *,
                           warn: bool = True) -> tuple[FloatArray, FloatArray, FloatArray]:
    r"""Classical MDS of the landmarks, packed for :func:`triangulate`.

    Parameters
    ----------
    D2_landmarks : ndarray of shape (l, l)
        Squared dissimilarities among the landmarks (symmetrised here).
    n_components : int
    warn : bool
        Warn when the landmarks' Gram matrix has significant negative eigenvalues (as
        :func:`classical_mds`).

    Returns
    -------
    P : ndarray of shape (l, n_components)
        :math:`V_d \Lambda_d^{-1/2}`, eigenvector signs by
        :func:`~mlnotes.spectral.flip_signs`.
    mean : ndarray of shape (l,)
        :math:`ar\delta`, the mean of the columns of ``D2_landmarks``.
    eigenvalues : ndarray of shape (l,)
        All eigenvalues of the landmarks' double-centred matrix, decreasing.
    """
    D2 = (D2_landmarks + D2_landmarks.T) / 2
    np.fill_diagonal(D2, 0.0)
    mean = D2.mean(axis=0)
    if warn:
        Z, lam = _classical_mds(D2, n_components)
    else:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", UserWarning)
            Z, lam = _classical_mds(D2, n_components)
    return Z / lam[:n_components], mean, lam


def triangulate(D2_to_landmarks: ArrayLike, P: FloatArray, mean: FloatArray) -> FloatArray:
    r"""Distance-based triangulation :math:`z_a = -	frac12 (\delta_a - ar\delta)^	op P`.

    ``D2_to_landmarks`` is ``(M, l)``: squared dissimilarities of M points to the landmarks;
    ``P`` and ``mean`` come from :func:`landmark_triangulation`.
    """
    return -0.5 * (D2_to_landmarks - mean) @ P


def strain(K: ArrayLike, Z: ArrayLike) -> float:
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


class ClassicalMDS(Estimator):
    r"""Classical multidimensional scaling (Torgerson scaling, principal coordinates).

    For Euclidean input the result equals the PCA scores of the data (up to the sign of each
    column); that is the duality between :math:`\tilde X^\top \tilde X` and
    :math:`\tilde X \tilde X^\top`. With ``n_landmarks`` it is landmark MDS (de Silva and
    Tenenbaum 2003, see the module docstring): classical MDS of the landmarks and
    triangulation of the other points, in :math:`O(N \ell)` memory.

    Parameters
    ----------
    n_components : int, default=2
        Embedding dimension :math:`d`.
    dissimilarity : {"euclidean", "precomputed"}, default="euclidean"
        ``"euclidean"``: ``fit`` takes data ``X`` (``N x p``); ``"precomputed"``: it takes the
        ``N x N`` dissimilarity matrix.
    n_landmarks : int or None, default=None
        None: exact classical MDS. An integer :math:`\ell` (more than ``n_components``):
        landmark MDS with that many landmarks.
    landmarks : {"random", "maxmin"}, default="random"
        How landmarks are chosen (see :func:`choose_landmarks`).
    random_state : int, Generator or None, default=None
        Seeds the choice of landmarks.

    Attributes
    ----------
    embedding_ : ndarray of shape (N, n_components)
    eigenvalues_ : ndarray of shape (N,) or (n_landmarks,)
        All eigenvalues of the double-centred matrix (of the landmarks, with
        ``n_landmarks``), decreasing, negative ones included (scikit-learn keeps only the top
        ``n_components``).
    dissimilarity_matrix_ : ndarray of shape (N, N)
        Exact method only (landmark MDS never forms it).
    landmarks_ : ndarray of shape (n_landmarks,)
        Indices of the landmarks (all points, in order, for the exact method).

    Examples
    --------
    >>> import numpy as np
    >>> from mlnotes import ClassicalMDS
    >>> X = np.array([[0.0, 0.0], [3.0, 0.0], [0.0, 4.0]])
    >>> Z = ClassicalMDS(n_components=2).fit_transform(X)
    >>> bool(np.allclose(np.linalg.norm(Z[0] - Z[1]), 3.0))
    True
    """

    def __init__(self, n_components=2, *, dissimilarity="euclidean", n_landmarks=None,
                 landmarks="random", random_state=None):
        self.n_components = n_components
        self.dissimilarity = dissimilarity
        self.n_landmarks = n_landmarks
        self.landmarks = landmarks
        self.random_state = random_state

    def _tags(self):
        return {"input_tags.pairwise": self.dissimilarity == "precomputed"}

    def fit(self, X: ArrayLike, y: object = None) -> Self:
        if self.dissimilarity == "euclidean":
            X = check_array(X, min_samples=2)
        elif self.dissimilarity == "precomputed":
            X = check_dissimilarity(X)
        else:
            raise ValueError(
                f"dissimilarity must be 'euclidean' or 'precomputed', got {self.dissimilarity!r}."
            )
        N = len(X)
        self.__dict__.pop("dissimilarity_matrix_", None)
        if self.n_landmarks is None:
            D2 = squared_distances(X) if self.dissimilarity == "euclidean" else X**2
            self.dissimilarity_matrix_ = np.sqrt(D2) if self.dissimilarity == "euclidean" else X
            mean = D2.mean(axis=0)
            self.embedding_, self.eigenvalues_ = _classical_mds(D2, self.n_components)
            # the exact method is landmark MDS with every point a landmark
            self.landmarks_ = np.arange(N)
            self._triangulation = (self.embedding_ / self.eigenvalues_[:self.n_components], mean)
        else:
            L = check_landmarks(self.n_landmarks, self.landmarks, N, self.n_components)
            if self.dissimilarity == "euclidean":
                def rows(idx):
                    return squared_distances(X[idx], X)
            else:
                def rows(idx):
                    return X[idx] ** 2
            self.landmarks_, D2_L = choose_landmarks(N, L, rows, method=self.landmarks,
                                                     random_state=self.random_state)
            P, mean, self.eigenvalues_ = landmark_triangulation(D2_L[:, self.landmarks_],
                                                                self.n_components)
            self._triangulation = (P, mean)
            self.embedding_ = triangulate(D2_L.T, P, mean)
        if self.dissimilarity == "euclidean":
            self._landmark_points = X[self.landmarks_]
        return self

    def fit_transform(self, X: ArrayLike, y: object = None) -> FloatArray:
        return self.fit(X).embedding_

    def transform(self, X: ArrayLike) -> FloatArray:
        r"""Place new points by triangulation from their distances to the landmarks.

        Parameters
        ----------
        X : ndarray of shape (M, p), or (M, N) for ``dissimilarity="precomputed"``
            New data, or their dissimilarities to the N training points.

        Returns
        -------
        Z : ndarray of shape (M, n_components)
            :math:`-\tfrac12 \Lambda_d^{-1/2} V_d^\top (\delta_a - \bar\delta)`; for Euclidean
            data and the exact method, the projection on the principal axes (PCA's
            ``transform``).
        """
        check_is_fitted(self, "embedding_")
        if self.dissimilarity == "precomputed":
            Delta = check_n_features(X, self.n_features_in_, estimator=self,
                                     name="the dissimilarities to the training points")
            if Delta.min() < 0:
                raise ValueError("Dissimilarities must be >= 0; the new ones include negatives.")
            D2 = Delta[:, self.landmarks_] ** 2
        else:
            Y = check_n_features(X, self._landmark_points.shape[1], estimator=self)
            D2 = squared_distances(Y, self._landmark_points)
        return triangulate(D2, *self._triangulation)
