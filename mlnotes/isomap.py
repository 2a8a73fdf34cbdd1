r"""Isomap: classical MDS on geodesic distances.

Step 1: a neighbourhood graph (kNN or epsilon) with edge lengths :math:`\|x_i - x_j\|` and its
shortest-path distances :math:`d^G_{ij}`, which approximate distances along the manifold.
Step 2: double centring :math:`K = -\tfrac12 C (d^G_{ij})^2 C`. Step 3: the top eigenpairs,
:math:`Z = V_L \Lambda_L^{1/2}`. Geodesic distances are not Euclidean in general, so :math:`K`
may have negative eigenvalues; they are left out, as in scikit-learn (no warning).

A disconnected graph has no finite geodesic distance between its components. As scikit-learn
does, Isomap then joins every pair of components by the shortest straight edge between them
(:func:`mlnotes.graphs.join_components`) and warns (:class:`mlnotes.DisconnectedGraphWarning`,
with the component sizes and the smallest ``n_neighbors`` or ``radius`` that connects the
graph): the result is defined, but paths between components run through those shortcuts.

New points are placed by the geodesic extension: a new point reaches training point :math:`j`
through its nearest training neighbours, :math:`d^G(y, x_j) = \min_{i \in N(y)}
(\|y - x_i\| + d^G_{ij})`, and these distances are projected like kernel-PCA test points.

Landmark Isomap (de Silva and Tenenbaum 2003; ``n_landmarks``): shortest paths from the
:math:`\ell` landmarks only (Dijkstra from :math:`\ell` sources, :math:`\ell \times N`
distances instead of :math:`N \times N`), classical MDS of the landmarks, and distance-based
triangulation (:func:`mlnotes.mds.triangulate`) of every point from its geodesic distances to
the landmarks; new points are triangulated from their geodesic extension to the landmarks.
"""

from functools import cached_property

import numpy as np
import scipy.sparse as sp
from scipy.sparse import csgraph

from ._typing import ArrayLike, FloatArray, Self
from ._validation import check_array, check_is_fitted, check_n_features
from .base import Estimator
from .graphs import (
    GEODESIC_CONSEQUENCE,
    GEODESIC_METHODS,
    JOINED_CONSEQUENCE,
    PRECOMPUTED_GRAPH,
    check_connected,
    check_distances,
    check_metric,
    cross_graph,
    cross_graph_from_distances,
    cross_graph_from_sparse,
    geodesic_distances,
    graph_from_sparse_distances,
    join_components,
    join_components_by_distances,
    metric_distances,
    neighbourhood_graph,
    neighbourhood_graph_from_distances,
    pairwise_distances,
    precomputed_graph_fix,
)
from .kernel_pca import gram_embedding
from .kernels import center_kernel_test
from .mds import check_landmarks, choose_landmarks, landmark_triangulation, triangulate
from .metrics import residual_variance
from .spectral import check_solver


def _squares_exactly(G):
    r"""Whether :math:`\sqrt{d^2} = d` holds exactly for every shortest-path length of ``G``.

    In binary floating point the square root of a correctly rounded square is the number
    itself, unless the square underflows or overflows. Every non-zero path length lies between
    the shortest positive edge and the sum of all edges, so checking those two suffices.
    """
    lengths = G.data[G.data > 0]
    return lengths.size == 0 or (lengths.min() > 1e-150 and lengths.sum() < 1e150)


class Isomap(Estimator):
    r"""Isometric feature mapping (Tenenbaum, de Silva and Langford, 2000).

    Parameters
    ----------
    n_components : int, default=2
    n_neighbors : int or None, default=5
        :math:`k` of the kNN graph ("or" symmetrisation, as scikit-learn).
    radius : float or None, default=None
        Use the epsilon graph instead; set ``n_neighbors=None``.
    path_method : {"dijkstra", "floyd"}, default="dijkstra"
        Exact method only; landmark Isomap always runs Dijkstra from the landmarks.
    eigen_solver : {"auto", "dense", "arpack"}, default="auto"
        Exact method only (the landmarks' :math:`\ell \times \ell` problem is solved dense).
    n_landmarks : int or None, default=None
        None: exact Isomap. An integer :math:`\ell` (more than ``n_components``): landmark
        Isomap with that many landmarks.
    landmarks : {"random", "maxmin"}, default="random"
        How landmarks are chosen (see :func:`mlnotes.mds.choose_landmarks`; max-min uses the
        geodesic distances).
    random_state : int, Generator or None, default=None
        Seeds the choice of landmarks.
    metric : str or callable, default="euclidean"
        Edge lengths of the graph: a name of :data:`mlnotes.graphs.CDIST_METRICS` (the
        metrics of ``scipy.spatial.distance.cdist`` that scikit-learn's ``Isomap`` documents,
        with the aliases ``"l1"``, ``"manhattan"``, ``"l2"``), a callable ``f(u, v)``, or
        ``"precomputed"``: ``fit`` then takes the ``N x N`` distance matrix and ``transform``
        the ``M x N`` distances of new points to the training points; both may be sparse
        neighbours graphs instead (see Notes). scikit-learn's default
        is ``"minkowski"`` with ``p=2``, the same distance; here ``p`` goes in
        ``metric_params``. Other metrics than Euclidean (and sparse data) compute the full
        distance matrix once, :math:`O(N^2)` memory like the geodesic distances themselves.
    metric_params : dict or None
        Keyword arguments of the metric (e.g. ``{"p": 3}`` for ``"minkowski"``).

    Notes
    -----
    Sparse ``X`` (``scipy.sparse``) is accepted with the Euclidean metric: the distances come
    from sparse products, and new points may be sparse too.

    With ``metric="precomputed"`` a sparse ``X`` is a neighbours graph of distances, step 1
    done elsewhere: scikit-learn's ``KNeighborsTransformer(mode="distance")`` or
    ``kneighbors_graph(mode="distance")``. A stored entry is an edge (an explicit zero too: a
    duplicate point, or the point itself, which is left out); each row keeps its
    ``n_neighbors`` shortest stored edges to other points (or those within ``radius``), so a
    graph built for a larger :math:`k` serves any smaller one, and
    ``make_pipeline(KNeighborsTransformer(n_neighbors=k, mode="distance"),
    Isomap(n_neighbors=k, metric="precomputed"))`` gives the embedding of
    ``Isomap(n_neighbors=k)``, ``transform`` included. A row with fewer stored edges, an edge
    stored with two lengths, or a negative entry raises a ``ValueError``; so does a
    disconnected graph, which cannot be joined as below without the distances it leaves out.

    float32 input gives float32 coordinates (as scikit-learn's ``Isomap``), computed in
    float64.

    Warns
    -----
    mlnotes.DisconnectedGraphWarning
        If the neighbourhood graph is disconnected; its components are then joined by their
        shortest edges (see the module docstring).

    Attributes
    ----------
    embedding_ : ndarray of shape (N, n_components)
        Eigenvector signs by :func:`~mlnotes.spectral.flip_signs` (scikit-learn's rule).
    eigenvalues_ : ndarray of shape (n_components,)
        Top eigenvalues of the double-centred squared geodesic distances (among the landmarks
        with ``n_landmarks``).
    eigenvectors_ : ndarray of shape (N, n_components)
        The unit eigenvectors (``embedding_ = eigenvectors_ * sqrt(eigenvalues_)``); exact
        method only.
    X_fit_ : ndarray of shape (N, D)
        Training data, for ``transform`` (the distance matrix for ``metric="precomputed"``;
        for a sparse neighbours graph, the ``n_neighbors`` graph taken from it).
    graph_ : scipy.sparse.csr_matrix
        The neighbourhood graph (edge lengths), with the joining edges if it was disconnected.
    geodesic_distances_ : ndarray of shape (N, N) or (n_landmarks, N)
        All geodesic distances, or (with ``n_landmarks``) those from the landmarks.
    landmarks_ : ndarray of shape (n_landmarks,)
        Indices of the landmarks (landmark Isomap only).
    residual_variances_ : ndarray of shape (n_components,)
        Entry :math:`l-1` is :math:`1 - R^2` between the geodesic distances and the distances
        in the first :math:`l` embedding coordinates; its elbow suggests the intrinsic
        dimension. Computed on first access (it costs :math:`O(N^2 L)`).

    Examples
    --------
    >>> import numpy as np
    >>> from mlnotes import Isomap
    >>> t = np.linspace(0, 3 * np.pi, 60)
    >>> X = np.c_[np.cos(t), np.sin(t), 0.1 * t]  # a helix: intrinsically 1-D
    >>> Z = Isomap(n_components=1, n_neighbors=2).fit_transform(X)
    >>> bool(abs(np.corrcoef(Z[:, 0], t)[0, 1]) > 0.999)
    True
    """

    def __init__(self, n_components=2, *, n_neighbors=5, radius=None, path_method="dijkstra",
                 eigen_solver="auto", n_landmarks=None, landmarks="random", random_state=None,
                 metric="euclidean", metric_params=None):
        self.n_components = n_components
        self.n_neighbors = n_neighbors
        self.radius = radius
        self.path_method = path_method
        self.eigen_solver = eigen_solver
        self.n_landmarks = n_landmarks
        self.landmarks = landmarks
        self.random_state = random_state
        self.metric = metric
        self.metric_params = metric_params

    def _tags(self):
        return {"input_tags.pairwise": self.metric == "precomputed", "input_tags.sparse": True}

    def _metric(self):
        """The checked metric and whether the graph comes from a full distance matrix."""
        metric = check_metric(self.metric)
        euclidean = isinstance(metric, str) and metric == "euclidean" and not self.metric_params
        return metric, not euclidean

    def _distances(self, X, Y=None):
        """Distances of the rows of ``Y`` (default ``X``) to the rows of ``X`` in the metric."""
        metric, _ = self._metric()
        if sp.issparse(X) or sp.issparse(Y):
            if not (isinstance(metric, str) and metric == "euclidean"):
                raise TypeError(
                    f"Sparse data works with metric='euclidean' only, got {self.metric!r}; "
                    "convert it with X.toarray() (if it fits in memory)."
                )
            return pairwise_distances(X if Y is None else Y, X)
        if Y is None:
            return metric_distances(X, metric=metric, metric_params=self.metric_params)
        return metric_distances(Y, X, metric=metric, metric_params=self.metric_params)

    _preserves_float32 = True  # as scikit-learn's; computed in float64 (base.Estimator)

    def fit(self, X: ArrayLike, y: object = None) -> Self:
        metric, by_distances = self._metric()
        precomputed = isinstance(metric, str) and metric == "precomputed"
        sparse_graph = precomputed and sp.issparse(X)
        if sparse_graph:  # a neighbours graph: edges stored, the rest missing (not zero)
            X = graph_from_sparse_distances(X, n_neighbors=self.n_neighbors, radius=self.radius)
        elif precomputed:
            X = check_distances(X, name="the precomputed distance matrix", copy=True)
        else:
            X = check_array(X, min_samples=2, accept_sparse=True, copy=True)  # kept as X_fit_
        by_distances = by_distances or sp.issparse(X)
        check_solver(self.eigen_solver, "eigen_solver")
        if self.path_method not in GEODESIC_METHODS:
            raise ValueError(f"path_method must be 'dijkstra' or 'floyd', got {self.path_method!r}.")
        self.__dict__.pop("residual_variances_", None)
        for name in ("landmarks_", "eigenvectors_", "_triangulation"):
            self.__dict__.pop(name, None)
        if self.n_landmarks is not None:
            L = check_landmarks(self.n_landmarks, self.landmarks, X.shape[0], self.n_components)
        if sparse_graph:
            self.graph_ = check_connected(
                X, None, n_neighbors=self.n_neighbors, radius=self.radius,
                consequence=GEODESIC_CONSEQUENCE, what=PRECOMPUTED_GRAPH.capitalize(),
                fix=precomputed_graph_fix(self.n_neighbors, self.radius))
        elif by_distances:  # any metric, precomputed distances, sparse data: the full matrix
            D = X if precomputed else self._distances(X)
            G = neighbourhood_graph_from_distances(D, n_neighbors=self.n_neighbors,
                                                   radius=self.radius,
                                                   consequence=JOINED_CONSEQUENCE, warn=True)
            self.graph_ = join_components_by_distances(G, D)
        else:
            G = neighbourhood_graph(X, n_neighbors=self.n_neighbors, radius=self.radius,
                                    consequence=JOINED_CONSEQUENCE, warn=True)
            self.graph_ = join_components(G, X)  # G itself if connected
        self._by_distances = by_distances
        self.X_fit_ = X
        if self.n_landmarks is not None:
            return self._fit_landmarks(L)
        D = geodesic_distances(self.graph_, self.path_method)
        # D2 in D's own memory, when the square root gives D back exactly (a fresh N x N
        # array costs more than the squaring: its pages must be mapped and zeroed)
        in_place = _squares_exactly(self.graph_)
        D2 = np.square(D, out=D) if in_place else D**2
        d2_means = D2.mean(axis=0)
        col_means = -0.5 * d2_means  # column means of -1/2 D2, for new points
        self._train_means = (col_means, col_means.mean())
        # K = -1/2 C D2 C (double_center), applied through its products: no centred copy
        self.embedding_, self.eigenvalues_, self.eigenvectors_ = gram_embedding(
            D2, self.n_components, solver=self.eigen_solver, row_means=d2_means, scale=-0.5,
            overwrite=False,
        )
        self.geodesic_distances_ = np.sqrt(D2, out=D) if in_place else D
        return self

    def _fit_landmarks(self, n_landmarks):
        """Dijkstra from the landmarks, classical MDS of them, triangulation of all points."""
        G = self.graph_

        def rows(idx):  # shortest paths from these sources (the graph is stored both ways)
            return csgraph.dijkstra(G, directed=True, indices=idx)

        self.landmarks_, Dg = choose_landmarks(G.shape[0], n_landmarks, rows,
                                               method=self.landmarks,
                                               random_state=self.random_state)
        self.geodesic_distances_ = Dg  # (l, N)
        D2_L = Dg**2
        P, mean, lam = landmark_triangulation(D2_L[:, self.landmarks_], self.n_components,
                                              warn=False)
        self.eigenvalues_ = lam[:self.n_components]
        self._triangulation = (P, mean)
        self.embedding_ = triangulate(D2_L.T, P, mean)
        return self

    def fit_transform(self, X: ArrayLike, y: object = None) -> FloatArray:
        return self.fit(X).embedding_

    @cached_property
    def residual_variances_(self):
        check_is_fitted(self, "embedding_")
        landmarks = getattr(self, "landmarks_", None)
        D = self.geodesic_distances_ if landmarks is None else (
            self.geodesic_distances_[:, landmarks]  # among the landmarks only
        )
        Z = self.embedding_ if landmarks is None else self.embedding_[landmarks]
        return np.array([residual_variance(D, Z[:, :l]) for l in range(1, Z.shape[1] + 1)])

    def transform(self, X: ArrayLike) -> FloatArray:
        """Embed new points by the geodesic extension (see the module docstring)."""
        check_is_fitted(self, "embedding_")
        precomputed = self.metric == "precomputed"
        Y = check_n_features(X, self.X_fit_.shape[1], estimator=self, accept_sparse=True,
                             name="the distances to the training points" if precomputed
                             else "X")
        if precomputed and sp.issparse(self.X_fit_):  # a neighbours graph: so is Y
            if not sp.issparse(Y):
                raise TypeError(
                    "This Isomap was fitted on a sparse neighbours graph, so transform takes "
                    "the sparse graph of the new points to the training points (e.g. "
                    "KNeighborsTransformer(mode='distance').transform(X_new)), got a dense "
                    "array; pass it as scipy.sparse.csr_matrix(...) if it holds all distances."
                )
            E = cross_graph_from_sparse(Y, self.X_fit_.shape[0], n_neighbors=self.n_neighbors,
                                        radius=self.radius)
        elif getattr(self, "_by_distances", False):
            D_new = Y if precomputed else self._distances(self.X_fit_, Y)
            if precomputed and D_new.min() < 0:
                raise ValueError("The distances to the training points must be >= 0.")
            E = cross_graph_from_distances(D_new, n_neighbors=self.n_neighbors,
                                           radius=self.radius)
        else:
            E = cross_graph(Y, self.X_fit_, n_neighbors=self.n_neighbors, radius=self.radius)
        lonely = np.flatnonzero(np.diff(E.indptr) == 0)
        if len(lonely):
            raise ValueError(
                f"New point(s) {lonely[:5].tolist()} have no training point within "
                f"radius={self.radius}, so their geodesic distances are undefined; "
                "increase radius or drop those points."
            )
        # geodesic distances from the training points to the targets: all points, or landmarks
        to_targets = self.geodesic_distances_
        if "landmarks_" in vars(self):
            to_targets = self.geodesic_distances_.T
        D_new = np.empty((Y.shape[0], to_targets.shape[1]))
        for i in range(Y.shape[0]):
            nbrs = E.indices[E.indptr[i]:E.indptr[i + 1]]
            steps = E.data[E.indptr[i]:E.indptr[i + 1]]
            # d(y, x_j) = min over neighbours a of ||y - x_a|| + d^G(a, j)
            D_new[i] = (steps[:, None] + to_targets[nbrs]).min(axis=0)
        if "landmarks_" in vars(self):
            return triangulate(D_new**2, *self._triangulation)
        K_new = center_kernel_test(-0.5 * D_new**2, self._train_means)
        return K_new @ (self.eigenvectors_ / np.sqrt(self.eigenvalues_))
